"""The doors: HTML pages (with htmx), the websocket, and the REST API. They parse and render only."""
