"""The Shadow living ship: pain track and reactions (SH-01 … SH-17)."""
