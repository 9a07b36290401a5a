"""The REST door under /api/v1 for bots and tools (bearer tokens, JSON in and out): battles, seats,
actions (with the lean action door in front of the framework), battle files, the table, health.
The same service calls the pages make, answered as JSON."""
