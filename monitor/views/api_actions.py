"""Actions in the HTTP API: score now (one sampler pass) and cluster now (one clustering run), one at a time.

    POST /api/actions/score {"limit": 500, "mode": "off"}   -> PassReport, when the pass is done
    POST /api/actions/cluster {"window": "24h"}             -> ClusterRunReport
    GET  /api/actions                                      -> {"running": null, "last": {"score": ActionState}}

While an action runs, another answers 409 naming it: the jobs share the database and the judge model, and a
second pass over the same spans would only wait for the first. Each action also holds its job's store-wide
lock (store/job_locks.py), the one `sumwatch up`'s scheduled sampler pass and clustering run hold: score now
during a scheduled pass answers 409 naming it, and a scheduled run during score now is skipped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from ..issues.job import ClusterRunReport, build_clusterer, run_clustering
from ..issues.reads import IssueView
from ..scoring.sampler import PassReport, Sampler
from ..settings import Settings, parse_duration
from ..store.connection import Store
from ..store.job_locks import CALIBRATION, CLUSTERING, INGEST, SCORING, JobLocks, job_locks
from .api_corpus import skipped_schema
from .openapi import ApiError, Endpoint, Schemas

if TYPE_CHECKING:
    from collections.abc import Callable

    from .api import Judges

_MODES = ["off", "ambiguous", "always", None]
# the store-wide job lock each action holds while it runs
ACTION_LOCKS = {"score": SCORING, "cluster": CLUSTERING, "calibrate": CALIBRATION, "ingest": INGEST}


@dataclass
class ActionState:
    """The last run of an action: when, how long, and its summary or its error."""

    action: str
    running: bool
    started_at: str
    finished_at: str | None
    seconds: float | None
    error: str | None
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class ActionRunner:
    """Runs one action at a time; a second one while it runs gets ApiError(409), and so does an action whose
    job lock a scheduled run holds."""

    def __init__(self, locks: JobLocks | None = None) -> None:
        self._lock = threading.Lock()
        self.locks = locks if locks is not None else JobLocks()
        self.last: dict[str, ActionState] = {}
        self.running: str | None = None

    def run(self, action: str, work: Callable[[], Any]) -> Any:
        if not self._lock.acquire(blocking=False):
            raise ApiError(409, f"{self.running or 'an action'} is already running; try again when it has finished "
                                f"(GET /api/actions shows it)")
        job = ACTION_LOCKS.get(action, action)
        busy = self.locks.acquire(job, action)
        if busy is not None:
            self._lock.release()
            raise ApiError(409, f"{busy} is already running; try again when it has finished "
                                f"(GET /api/actions shows it)")
        started, clock = datetime.now(timezone.utc), time.perf_counter()
        self.running = action
        state = ActionState(action, True, started.isoformat(), None, None, None, None)
        self.last[action] = state
        try:
            result = work()
            state.result = result.to_json()
            return result
        except Exception as exc:
            state.error = " ".join(str(exc).split())[:300] or type(exc).__name__
            raise
        finally:
            state.running, state.seconds = False, round(time.perf_counter() - clock, 3)
            state.finished_at = datetime.now(timezone.utc).isoformat()
            self.running = None
            self.locks.release(job)
            self._lock.release()

    def running_now(self) -> str | None:
        """The action running now, else a scheduled run holding one of the actions' job locks."""
        if self.running is not None:
            return self.running
        held = self.locks.held()
        return next((held[job] for job in ACTION_LOCKS.values() if job in held), None)


def _shard(value: str | None) -> tuple[int, int]:
    if not value:
        return (0, 1)
    index, sep, count = value.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        raise ApiError(400, f"shard must be i/N with 0 <= i < N (e.g. 0/4), got {value[:40]!r}")
    return int(index), int(count)


def action_endpoints(store: Store, settings: Settings, schemas: Schemas, judges: Judges) -> list[Endpoint]:
    runner = ActionRunner(job_locks(store))

    def score(request: Request, args: dict[str, Any]) -> Any:
        shard = _shard(args["shard"])
        sampler = Sampler.from_settings(store, judges(args["mode"]), settings, rate=args["rate"], shard=shard,
                                        eval_events=args["events"])
        return runner.run("score", lambda: sampler.run_pass(all_spans=bool(args["all"]), limit=args["limit"]))

    def cluster(request: Request, args: dict[str, Any]) -> Any:
        window = args["window"]
        if window is not None:
            try:
                parse_duration(window)
            except ValueError as exc:
                raise ApiError(400, f"window: {exc}") from None
        run_settings = settings.with_(cluster_window=window)
        clusterer = build_clusterer(run_settings)  # a ValueError (settings it cannot use) answers 400
        return runner.run("cluster", lambda: run_clustering(store, run_settings, clusterer=clusterer))

    def ingest(request: Request, args: dict[str, Any]) -> Any:
        from ..ingest.backfill import ingest_file
        from .api_corpus import _as_file, job_lock_or_409

        with job_lock_or_409(store, INGEST, "ingest"), _as_file(args["body"]) as path:
            try:
                report = ingest_file(store, path)
            except RecursionError:
                raise ApiError(400, "a line is JSON nested too deeply to parse (lines before it may be "
                                    "stored)") from None
        return {"stored": report.stored, "skipped": [{"line": b.line, "reason": b.reason} for b in report.bad]}

    def actions(request: Request, args: dict[str, Any]) -> Any:
        return {"running": runner.running_now(), "last": {k: v.to_json() for k, v in runner.last.items()}}

    score_body = {"type": "object", "additionalProperties": False, "properties": {
        "all": {"type": ["boolean", "null"], "description": "ignore the watermark: consider every stored span"},
        "rate": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "share of traces to score"},
        "shard": {"type": ["string", "null"], "description": "i/N: this pass's share of the work"},
        "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 2**31, "description": "stop after this "
                                                                                             "many spans"},
        "mode": {"type": ["string", "null"], "enum": _MODES, "description": "judge mode"},
        "events": {"type": ["boolean", "null"], "description": "also write gen_ai.evaluation.result events"}}}
    cluster_body = {"type": "object", "additionalProperties": False, "properties": {
        "window": {"type": ["string", "null"], "description": "how far back to look, like 24h or 7d"}}}
    run_report = schemas.define(ClusterRunReport.__name__, schemas.fields(
        ClusterRunReport, issues={"type": "array", "items": schemas.ref(IssueView)}))
    state = schemas.ref(ActionState)
    listing = {"type": "object", "additionalProperties": False, "required": ["running", "last"],
               "properties": {"running": {"type": ["string", "null"]},
                              "last": {"type": "object", "additionalProperties": state}}}
    busy = (400, 409)
    return [
        Endpoint("POST", "/api/actions/score", "Score now: one sampler pass, answered when it is done", score,
                 schemas.ref(PassReport), body=score_body, errors=busy, tag="actions"),
        Endpoint("POST", "/api/actions/cluster", "Cluster now: one clustering run, answered when it is done",
                 cluster, run_report, body=cluster_body, errors=busy, tag="actions"),
        Endpoint("POST", "/api/ingest", "Backfill: each JSON line becomes a summarization span (bad lines are "
                                        "skipped and reported by number)", ingest,
                 skipped_schema(stored={"type": "integer"}), raw_body="application/x-ndjson", errors=busy,
                 tag="actions"),
        Endpoint("GET", "/api/actions", "The action running now and the last run of each", actions, listing,
                 errors=(), tag="actions"),
    ]
