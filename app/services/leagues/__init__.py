"""Leagues: a season's standings between profiles in one game system. `leagues` makes and joins
them and marks a battle rated before play; `ratings` rates each rated battle as it ends (openskill's
Plackett-Luce) into an append-only record; `standings` reads the table from that record and
rebuilds it from scratch for an audit; `points` prices each side's fleet at set-up."""
