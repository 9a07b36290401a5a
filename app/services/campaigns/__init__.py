"""Campaigns: fleets that outlive a battle (docs/campaigns.md).

`log.py` the campaign's append-only log and seats; `fold.py` the fleets rebuilt from the log (pure);
`carry.py` what each ship keeps when its battle ends, read from the parts' declarations (pure);
`record.py` a finished battle's result walked from its log; `fleets.py` every change a referee
makes; `view.py` the one per-viewer read; `files.py` a campaign as one JSON file."""
