"""Live updates: a broker carries (battle, seq) wake-ups between processes; the hub renders per viewer."""
