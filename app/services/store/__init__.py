"""A battle's rows and how they are read and written: battles, seats and their tokens, an action's
own statements (bare driver on PostgreSQL, the ORM on SQLite), drafts kept outside the log, and
each seat's status and the table's options. The ground every other service stands on."""
