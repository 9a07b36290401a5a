"""An identity that follows the player, without a password: a profile (a display name) protected
by passkeys and recovery codes, remembering the seats its holder claimed. Seats stay the unit of
permission; a profile only remembers which ones it holds (`profiles`), `passkeys` runs the WebAuthn
ceremonies, `recovery` the printable codes."""
