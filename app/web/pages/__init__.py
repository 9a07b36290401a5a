"""The pages: HTML for people at the table (htmx where JavaScript runs, plain forms where it does
not): joining, the battle and its forms, the wizard, the map, the report, the dice check, the
referee's picker, battle files and the ship library, table talk. Each parses, calls a service, draws."""
