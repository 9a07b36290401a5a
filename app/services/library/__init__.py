"""What a table picks from: the sample ships shipped as files, the ship library referees grow, and
the action catalogue every door shows."""
