"""The server's state: schema version, spans stored, and the settings a client's own cannot override."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter

from ...store.migrations import MIGRATIONS
from ...store.traces import count_spans
from ..command_settings import Shown, shown_settings
from ..errors import error_responses
from ..services import Services, ServicesDep

router = APIRouter(prefix="/api", tags=["meta"], responses=error_responses(400, 401))


@dataclass(frozen=True)
class StoreStatus:
    """What ``doctor`` reports about the database, and the server's settings a command compares with its own:
    values that are not secret, and for secrets only whether one is set."""

    schema_version: int
    spans: int
    settings: Shown


@router.get("/status", summary="The database's schema version, the spans stored and the server's settings")
def status(s: ServicesDep) -> StoreStatus:
    return StoreStatus(max(m.version for m in MIGRATIONS), count_spans(s.store), server_settings(s))


def server_settings(s: Services) -> Shown:
    return shown_settings(s.settings, s.export_config)
