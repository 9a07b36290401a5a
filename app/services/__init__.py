"""The service layer: the only write path. Pages, websocket and REST all call these functions."""
