"""What the routes share, built once by ``create_app`` and reached through one dependency.

    def route(s: ServicesDep) -> ...: s.store, s.settings, s.judges("always"), s.actions.start("score", work)

The services are the runtime's (``sumwatch.monitor.runtime``): its settings, store, cascades, job locks and
tracker settings; ``s.runtime.cluster(progress)`` runs a clustering.

Actions (score now, cluster now, calibrate, ingest) run one at a time in a thread of their own; the answer to
``POST /api/actions/<name>?wait=false`` is the action's state, which ``GET /api/actions/<name>`` then shows with
its progress, so a client polls with bounded timeouts instead of holding one request open for minutes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request
from pydantic import TypeAdapter

from ..contract.actions import ActionProgress, ActionState, Progress
from ..runtime import Judges, Runtime
from ..settings import Settings
from ..store.connection import Store
from ..store.job_locks import CALIBRATION, CLUSTERING, INGEST, SCORING, JobLocks
from .errors import ApiError

if TYPE_CHECKING:
    from ..exports.config import ExportConfig

__all__ = ["ACTION_LOCKS", "ActionRunner", "Judges", "Progress", "Services", "ServicesDep", "services"]
# the store-wide job lock each action holds while it runs (the scheduled jobs hold the same ones)
ACTION_LOCKS = {"score": SCORING, "rescore": SCORING, "cluster": CLUSTERING, "calibrate": CALIBRATION, "ingest": INGEST,
                "judge_test": CALIBRATION, "judge_promote": CALIBRATION, "experiment_score": SCORING}


class ActionRunner:
    """Runs one action at a time; another while it runs, or while a scheduled run holds its job lock, is
    refused with 409 naming what runs."""

    def __init__(self, locks: JobLocks | None = None) -> None:
        self._lock = threading.Lock()
        self.locks = locks if locks is not None else JobLocks()
        self.last: dict[str, ActionState] = {}
        self.running: str | None = None
        self._done: dict[str, threading.Event] = {}

    def start(self, action: str, work: Callable[[Progress], Any]) -> ActionState:
        """Start ``work`` in a thread; its return value (a record) becomes the state's result."""
        if not self._lock.acquire(blocking=False):
            raise ApiError(409, f"{self.running or 'an action'} is already running; try again when it has finished "
                                f"(GET /api/actions shows it)")
        job = ACTION_LOCKS.get(action, action)
        busy = self.locks.acquire(job, action)
        if busy is not None:
            self._lock.release()
            raise ApiError(409, f"{busy} is already running; try again when it has finished "
                                f"(GET /api/actions shows it)")
        self.running = action
        state = ActionState(action, True, datetime.now(timezone.utc).isoformat())
        self.last[action] = state
        done = self._done[action] = threading.Event()

        def progress(stage: str, count: int, total: int | None) -> None:
            state.progress = ActionProgress(stage, count, total)

        def run() -> None:
            clock = time.perf_counter()
            try:
                result = work(progress)
                state.result = TypeAdapter(type(result)).dump_python(result, mode="json")
            except ApiError as exc:
                state.error, state.status = exc.message, exc.status
            except ValueError as exc:  # a value the work could not use: the request's fault
                state.error, state.status = " ".join(str(exc).split())[:300], 400
            except Exception as exc:
                state.error, state.status = " ".join(str(exc).split())[:300] or type(exc).__name__, 500
            finally:
                state.running, state.seconds = False, round(time.perf_counter() - clock, 3)
                state.finished_at = datetime.now(timezone.utc).isoformat()
                self.running = None
                self.locks.release(job)
                self._lock.release()
                done.set()

        threading.Thread(target=run, name=f"sumwatch-{action}", daemon=True).start()
        return state

    def wait(self, state: ActionState) -> ActionState:
        self._done[state.action].wait()
        return state

    def running_now(self) -> str | None:
        """The action running now, else a scheduled run holding one of the actions' job locks."""
        if self.running is not None:
            return self.running
        held = self.locks.held()
        return next((held[job] for job in ACTION_LOCKS.values() if job in held), None)


@dataclass
class Services:
    settings: Settings
    store: Store
    judges: Judges
    actions: ActionRunner
    export_config: ExportConfig
    export_lock: threading.Lock  # two clicks must not race a ticket
    runtime: Runtime


async def services(request: Request) -> Services:
    # async: FastAPI runs a plain def dependency in the thread pool, a hop of its own on every API request
    found: Services = request.app.state.services
    return found


ServicesDep = Annotated[Services, Depends(services)]
