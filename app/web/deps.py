"""Shared FastAPI dependencies (Annotated aliases) for the doors."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.realtime.hub import Hub
from app.services.platform import Platform


# async: FastAPI runs a plain `def` dependency in its thread pool, a thread hop on every request.
async def get_platform(request: Request) -> Platform:
    return request.app.state.platform


async def get_hub(request: Request) -> Hub:
    return request.app.state.hub


PlatformDep = Annotated[Platform, Depends(get_platform)]
HubDep = Annotated[Hub, Depends(get_hub)]
