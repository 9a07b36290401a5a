"""The write path: `submit()` is the only way anything changes in a battle (and decides, in the
same unit of work, whether a player's damage waits for the referee: `waiting`). Beside it, a new
battle with its fleet in one transaction (`creation`), and players' requests to the referee."""
