"""Star Trek ships in Babylon 5 Wars (ST-01 … ST-25)."""
