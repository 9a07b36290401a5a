"""The write path: `submit()` is the only way anything changes in a battle. Beside it, the one call
every door makes for a seat's action (`acting`), a new battle with its fleet in one transaction
(`creation`), and players' requests that wait for the referee before they are submitted."""
