"""Log lines an operator can follow: each carries the request id of the request it was written
for (`-` outside one), as text or, with LOG_FORMAT=json, as one JSON object per line. uvicorn's own
loggers (its access and error lines) are sent through the same handler, so a request's access
line and the app's lines about it carry the same id."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

from app.operations.request_id import request_id

TEXT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")
# Libraries whose INFO lines name the URLs they call: a seat's webhook URL is its secret.
# alembic's INFO lines (its plugins, read whenever /readyz looks up the head) say nothing useful.
QUIET = ("httpx", "httpcore", "alembic")


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (`-` when there is none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = request_id() or "-"
        return True


class JsonLines(logging.Formatter):
    """One JSON object per record: time, level, logger, request id, message, and the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", None) or request_id() or "-",
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class StarboardHandler(logging.Handler):
    """The one handler the app installs (told apart from any other, so installing is idempotent).
    It writes to whatever `sys.stderr` is at the time (a test run swaps it), a line a record."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # a broken stream must not break the request that logged
            self.handleError(record)


def configure(log_format: Literal["text", "json"], level: str = "INFO") -> None:
    """Install the handler on the root logger and route uvicorn's loggers through it. Redaction
    filters already on uvicorn's loggers stay where they are, and run before the record reaches
    the handler."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, StarboardHandler)), None)
    if handler is None:
        handler = StarboardHandler()
        handler.addFilter(RequestIdFilter())
        root.addHandler(handler)
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT))
    root.setLevel(level.upper())
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    for name in UVICORN:
        logger = logging.getLogger(name)
        for other in list(logger.handlers):
            logger.removeHandler(other)
        logger.propagate = True
