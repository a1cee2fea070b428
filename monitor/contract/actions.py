"""The long actions as the API serves them (score, rescore, cluster, calibrate, ingest, a judge's test and
promotion): an action's state and progress while a client polls it, and the answers about uploaded lines.

    POST /api/actions/score?wait=false   -> ActionState(running=True, ...)
    GET  /api/actions/score              -> ActionState(progress=ActionProgress("scoring", 40, None), ...)

The server's actions (:mod:`sumwatch.monitor.views.services`) and routes make them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

# how a long job reports as it goes: (stage, done, total), total None when not known yet. A clustering run, an
# action of the server and a command's progress bars all speak it; ActionProgress is one report as a record.
Progress = Callable[[str, int, "int | None"], None]


@dataclass
class ActionProgress:
    stage: str
    done: int
    total: int | None = None


@dataclass
class ActionState:
    """An action's last (or current) run: when, how far, and its result or its error."""

    action: str
    running: bool
    started_at: str
    finished_at: str | None = None
    seconds: float | None = None
    error: str | None = None
    status: int | None = None  # the HTTP status its error answers (400 bad input, 409 busy, 500 failed)
    progress: ActionProgress | None = None
    result: dict[str, Any] | None = None


class SkippedLine(BaseModel):
    line: int
    reason: str


class IngestAnswer(BaseModel):
    stored: int
    skipped: list[SkippedLine]
