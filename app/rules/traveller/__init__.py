"""Traveller High Guard capital-ship combat (TR-01 … TR-27, GEN-05)."""
