"""At the table, beside the rules: the battle's chat (its own seq, never the log's) and the
notifications a slow game sends to a seat it waits on."""
