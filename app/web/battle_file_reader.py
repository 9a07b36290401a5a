"""The one strict reader of battle files, shared by the home page's import and POST
/api/v1/battles/import: strict JSON (no NaN or Infinity, no number past 64 bits, no text a
database cannot store, nesting at most 32 levels deep), so neither door stores on SQLite what
PostgreSQL refuses, and a deep file is a 422 naming the field, never a 500. The size limit is
the request body's (MAX_BODY_BYTES) on both doors. Beside it, what goes out the same way from
every door: a file to download (a battle's, a campaign's, a library ship's) and an import's
documented request body."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from app.services.errors import Invalid
from app.web.middleware.security import JsonRefused, strict_loads


def read_battle_file(raw: bytes | str, field: str | None = None) -> Any:
    """The file's JSON, or Invalid naming `field` (the page's form field), else where in the file
    the refusal is (`battle.options`), else `file`."""
    try:
        return strict_loads(raw)
    except JsonRefused as exc:
        where = exc.field or "file"
        reason = exc.reason.replace("the body", "the file")
        raise Invalid(f"{where}: not a battle file Starboard can store ({reason})", field or where) from None


def file_download(data: Any, filename: str) -> JSONResponse:
    """The document as a file the browser saves under `filename` rather than shows."""
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def file_body(description: str) -> dict[str, Any]:
    """An import's request body as the OpenAPI document shows it: one JSON object, the file."""
    return {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object", "description": description}}},
    }
