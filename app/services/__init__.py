"""The service layer the doors call, from the ground up: store/ (a battle's rows), history/ (the
log: replay, reaching back, the dice record, battle files), reading/ (what one viewer may see),
table/ and library/, and write/ on top, whose submit() is the only write path."""
