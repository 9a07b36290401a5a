"""The game systems, one small data module each. A fifth goes here as one more module and one more
entry in `app/rules/registry.py`."""
