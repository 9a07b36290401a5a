"""Shared FastAPI dependencies (Annotated aliases) for the doors."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.realtime.hub import Hub
from app.services.platform import Platform


def get_platform(request: Request) -> Platform:
    return request.app.state.platform


def get_hub(request: Request) -> Hub:
    return request.app.state.hub


PlatformDep = Annotated[Platform, Depends(get_platform)]
HubDep = Annotated[Hub, Depends(get_hub)]
