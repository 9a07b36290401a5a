"""What stands around every door: sessions, CSRF and origin checks, strict JSON and size limits,
security headers and log redaction, rate limits, the HTTP protocol's header deadline, and service
errors turned into each door's answer."""
