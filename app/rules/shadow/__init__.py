"""The Shadow living ship: pain track and reactions (SH-01 … SH-17).

Importing the package registers the `pain` part, the damage listener, the step hooks and the
`shadow.*` actions, and forbids boarding living ships.
"""

from app.rules.shadow import actions, hooks, pain, reactions, track  # noqa: F401
