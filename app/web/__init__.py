"""The doors: pages/ (HTML with htmx), api/ (REST for bots and tools) and live/ (the websocket and
the bots' feed) stand side by side and none imports another; below them middleware/ (what stands
around every request), drawing/ (how a battle is drawn for one viewer) and deps.py. The doors parse
and render only: every change goes through app/services/write."""
