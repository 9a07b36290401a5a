"""How a battle is drawn for one viewer: the template environment, the page's context and the live
frames from the same context, the memos that keep a ship card or a map region until what it reads
changes, and rule IDs drawn as links to the rules reference. Pages, frames and error pages use it."""
