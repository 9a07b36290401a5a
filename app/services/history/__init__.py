"""The append-only log as history: replaying it (the state at any seq, checkpoints), the actions
that reach back into it (undo, redo, rewind), the dice record checked against revealed seeds, and
the battle as a file (export, import by replay, a what-if fork)."""
