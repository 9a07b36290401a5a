"""Running Starboard for real: metrics, request ids and log lines, shutdown, backups."""
