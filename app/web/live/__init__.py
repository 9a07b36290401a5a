"""The live doors: the battle websocket (its door before the framework and the lean protocol uvicorn
runs under it) and the bots' Server-Sent Events feed. Both ride the broker's wake-ups and read the
battle again from the database; what a frame shows is drawn in app/web/drawing/."""
