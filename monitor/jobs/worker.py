"""The scheduled jobs: the sampler on an interval, the clustering job on a cron, in one process.

    worker = Worker(runtime)              # SUMWATCH_SAMPLER_INTERVAL_S, SUMWATCH_CLUSTER_CRON of runtime.settings
    worker.run_until_signal()             # blocks; SIGTERM or SIGINT stops it cleanly
    worker.stats["sampler"].runs

Each job runs one instance at a time and coalesces missed runs. Progress lives in ClickHouse (the
sampler's watermark, the clustering run row written last), so a worker killed at any point resumes on
the next start without losing or duplicating anything; ``stop`` only makes the shutdown quick.
"""

from __future__ import annotations

import logging
import math
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from ..contract.scores import PassReport
from ..exports import alerts
from ..exports.cap_alert import cap_alert
from ..exports.registry import rule_problems
from ..exports.score_sends import after_sampling, score_rule_problems
from ..exports.sync import after_clustering, triage_to_tickets
from ..rubrics.cascade import Cascade
from ..runtime import Runtime
from ..scoring.sampler import Sampler
from ..settings import Settings, crontab_fields
from ..store.job_locks import CLUSTERING, SCORING
from ..store.scores import daily_spend

_log = logging.getLogger(__name__)

SAMPLER_JOB = "sampler"
CLUSTERING_JOB = "clustering"
_CLUSTER_GRACE_S = 600  # a clustering run up to 10 minutes late (a suspended host) still runs, once
# the store-wide lock each job holds while it runs: the API's score now and cluster now take the same ones
_JOB_LOCKS = {SAMPLER_JOB: (SCORING, "the scheduled sampler pass"),
              CLUSTERING_JOB: (CLUSTERING, "the scheduled clustering run")}


@dataclass(frozen=True)
class JobStats:
    """What one job has done since the worker was built."""

    runs: int = 0  # finished runs, failed and stopped ones included
    failures: int = 0
    skipped: int = 0  # runs not started: the previous one (or a manual one) was still going, or the time was missed
    last_error: str | None = None  # of the latest failure, kept after later successes
    last_summary: str = ""  # the log line of the last finished run
    last_seconds: float = 0.0


class _Stopping(Exception):
    """Raised from a job's progress callback to end it at a safe point when the worker stops."""


def crontab_trigger(expr: str) -> CronTrigger:
    """A UTC trigger for a 5-field crontab (weekdays counted from Sunday = 0, as in cron); ValueError naming
    SUMWATCH_CLUSTER_CRON when it is not one. One difference from cron remains: with both day of month and
    weekday restricted, both must match."""
    try:
        return CronTrigger.from_crontab(" ".join(crontab_fields(expr)), timezone="UTC")
    except ValueError as exc:
        raise ValueError(f"{Settings.label('cluster_cron')} {expr!r} is not a 5-field crontab: {exc}") from None


def interval_trigger(seconds: float) -> IntervalTrigger:
    """A trigger every ``seconds``; ValueError naming SUMWATCH_SAMPLER_INTERVAL_S when it is not positive."""
    if not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"SUMWATCH_SAMPLER_INTERVAL_S (--interval) must be a positive number of seconds, "
                         f"got {seconds!r}")
    return IntervalTrigger(seconds=seconds, timezone=timezone.utc)


class Worker:
    """The sampler and the clustering job on an APScheduler background scheduler (UTC)."""

    def __init__(self, runtime: Runtime, *, cascade: Cascade | None = None, clusterer: Any = None) -> None:
        """The jobs on ``runtime``: its settings, store, tracker settings and job locks; the sampler judges with
        ``cascade`` (default: the runtime's of the settings' mode) and clustering runs on ``clusterer`` (default:
        one the runtime builds now)."""
        settings, store = runtime.settings, runtime.store
        # every setting is checked here, before anything runs: a bad cron fails the start, not a job
        sampler_trigger = interval_trigger(settings.sampler.sampler_interval_s)
        cluster_trigger = crontab_trigger(settings.clustering.cluster_cron)
        if cascade is None:
            cascade = runtime.cascade()
        self.runtime = runtime
        self._store, self.settings = store, settings
        self._sampler = Sampler.from_settings(store, cascade, settings)
        self._clusterer = clusterer if clusterer is not None else runtime.clusterer()
        # tracker rules (SUMWATCH_EXPORT_TARGETS, SUMWATCH_ALERT_TARGETS), run after each clustering run
        self._exports = runtime.exports
        problems = (rule_problems(self._exports) + score_rule_problems(self._exports)
                    + alerts.alert_rule_problems(self._exports))
        if problems:
            raise ValueError("; ".join(problems))
        self._stats = {SAMPLER_JOB: JobStats(), CLUSTERING_JOB: JobStats()}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.scheduler = BackgroundScheduler(timezone=timezone.utc)
        self.scheduler.add_listener(self._on_skipped, EVENT_JOB_MAX_INSTANCES | EVENT_JOB_MISSED)
        # coalesce + one instance: a slow run delays the next instead of piling runs up behind it
        self.scheduler.add_job(self._run_sampler, sampler_trigger, id=SAMPLER_JOB, name=SAMPLER_JOB,
                               max_instances=1, coalesce=True,
                               misfire_grace_time=max(30, math.ceil(settings.sampler.sampler_interval_s)),
                               next_run_time=datetime.now(timezone.utc))
        self.scheduler.add_job(self._run_clustering, cluster_trigger, id=CLUSTERING_JOB, name=CLUSTERING_JOB,
                               max_instances=1, coalesce=True, misfire_grace_time=_CLUSTER_GRACE_S)

    # -- public surface -----------------------------------------------------------------------
    @property
    def stats(self) -> dict[str, JobStats]:
        """A snapshot: job name -> JobStats."""
        with self._lock:
            return dict(self._stats)

    @property
    def running(self) -> bool:
        return bool(self.scheduler.running)

    def describe(self) -> str:
        """One line saying what runs when."""
        return (f"sampler every {self.settings.sampler.sampler_interval_s:g}s (first run now), "
                f"clustering on cron '{self.settings.clustering.cluster_cron}' (UTC)")

    def start(self) -> Worker:
        """Start the jobs in background threads; the sampler runs at once."""
        self._stopping.clear()
        self.scheduler.start()
        _log.info("worker started: %s", self.describe())
        return self

    def stop(self, wait: bool = True) -> None:
        """Stop scheduling; a running job ends at its next safe point (a sampler batch stored, or a
        clustering run before it writes) and, with ``wait``, is waited for. Safe to call twice."""
        self._stopping.set()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=wait)

    def run_once(self) -> dict[str, JobStats]:
        """One sampler pass, then one clustering run, in this thread (for cron users and tests)."""
        self._stopping.clear()
        self._run_sampler()
        self._run_clustering()
        return self.stats

    def run_until_signal(self) -> None:
        """Start, block until SIGTERM or SIGINT, stop cleanly and return. Call from the main thread."""
        received = threading.Event()
        previous = {sig: signal.signal(sig, lambda signum, frame: received.set())
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            if not self.scheduler.running:
                self.start()
            while not received.wait(0.5):  # a timed wait keeps the main thread responsive to signals
                pass
            _log.info("worker stopping: waiting for a running job to reach a safe point")
        finally:
            self.stop(wait=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    # -- jobs -----------------------------------------------------------------------------------
    def _check_stopping(self, *args: Any) -> None:
        if self._stopping.is_set():
            raise _Stopping

    def _run_sampler(self) -> None:
        seen = {"spans": 0}

        def progress(considered: int, scored: int) -> None:
            seen["spans"] = scored
            self._check_stopping()  # called after each batch's scores and watermark are stored
            pause = self.settings.sampler.sampler_batch_pause_s
            if pause > 0:
                _log.info("sampler: %d spans scored and stored so far; pausing %gs", scored, pause)
                if self._stopping.wait(pause):
                    raise _Stopping

        def run() -> str:
            r = self._sampler.run_pass(on_progress=progress)
            return (f"sampler: scored {r.scored_spans} spans ({r.score_rows} rubric scores, {r.failing} failing, "
                    f"{r.errors} judge errors) in {r.seconds:.2f}s" + self._at_cap(r) + self._send_scores()
                    + self._check_alerts() + self._send_triage())

        self._run(SAMPLER_JOB, run, lambda: f"sampler: stopped after scoring {seen['spans']} spans; anything "
                                            f"left waits for the next start")

    def _send_scores(self) -> str:
        """SUMWATCH_SCORES_TARGETS after a pass; a failure is on the ledger and in the log, never the pass's."""
        try:
            results = after_sampling(self._store, self._exports)
        except Exception as exc:  # the scores are stored: sending them again is the next pass's job
            _log.warning("sending scores failed: %s: %s", type(exc).__name__, exc)
            return "; sending scores failed (see the log)"
        return "".join(f"; scores to {r.target}: {r.sent} sent" + (f", {r.failed} failed" if r.failed else "")
                       for r in results if r.sent or r.failed)

    def _send_triage(self) -> str:
        """Triage events to the export targets' tickets after a pass; a failure is on the rows, never the pass's."""
        try:
            results = triage_to_tickets(self._store, self._exports)
        except Exception as exc:
            _log.warning("sending triage to tickets failed: %s: %s", type(exc).__name__, exc)
            return "; sending triage to tickets failed (see the log)"
        sent = sum(r.action != "failed" for r in results)
        return f"; triage to tickets: {sent} sent, {len(results) - sent} failed" if results else ""

    def _at_cap(self, report: PassReport) -> str:
        """A pass that met the daily LLM cap says so, and the alert channels hear it once a day."""
        if not report.unjudged_cap:
            return ""
        line = (f"; daily LLM cap reached (${report.spent_today_usd:.4f} of ${report.daily_cap_usd or 0:.2f}): "
                f"{report.unjudged_cap} results left to the cheap tiers")
        try:
            sent = cap_alert(self._store, self._exports, daily_spend(self._store, report.daily_cap_usd))
        except Exception as exc:  # the scores are stored: the next pass that meets the cap tries again
            _log.warning("the daily cap alert failed: %s: %s", type(exc).__name__, exc)
            return line + "; its alert failed (see the log)"
        return line + (f"; {sent}" if sent else "")

    def _check_alerts(self) -> str:
        """SUMWATCH_ALERT_RULES after a pass; a failure is in the log, never the pass's (the next pass checks again)."""
        try:
            statuses = alerts.after_sampling(self._store, self._exports)
        except Exception as exc:
            _log.warning("checking alert rules failed: %s: %s", type(exc).__name__, exc)
            return "; checking alert rules failed (see the log)"
        return "".join(f"; alert {s.action}: {s.rule}" for s in statuses if s.action)

    def _run_clustering(self) -> None:
        def run() -> str:
            # progress comes before anything is written, so stopping there leaves no trace of the run
            r = self.runtime.cluster(self._check_stopping, clusterer=self._clusterer)
            exported = after_clustering(self._store, self._exports)  # failures are on the export rows
            done = [e for e in exported if e.action not in ("failed", "skipped")]
            return (f"clustering: {r.failures} failing spans -> {len(r.issues)} issues ({r.new_issues} new, "
                    f"{len(r.resolved)} resolved), {r.promoted} promoted, run {r.run_id}, in {r.seconds:.2f}s"
                    + (f"; exports: {len(done)} sent, {len(exported) - len(done)} failed or skipped"
                       if exported else ""))

        self._run(CLUSTERING_JOB, run, lambda: "clustering: stopped before writing; the run is discarded")

    def _run(self, name: str, job: Callable[[], str], stopped: Callable[[], str]) -> None:
        """Run a job, log one line, count it. An exception is logged and counted, never raised: the
        scheduler must keep going, and the next run starts over from what is stored. A run that finds the
        job's lock held (a manual pass through the API) is skipped and counted as such."""
        lock, holder = _JOB_LOCKS[name]
        locks = self.runtime.locks
        busy = locks.acquire(lock, holder)
        if busy is not None:
            _log.info("%s: skipped, %s is still running", name, busy)
            with self._lock:
                s = self._stats[name]
                self._stats[name] = replace(s, skipped=s.skipped + 1)
            return
        try:
            self._run_locked(name, job, stopped)
        finally:
            locks.release(lock)

    def _run_locked(self, name: str, job: Callable[[], str], stopped: Callable[[], str]) -> None:
        started = time.perf_counter()
        error: str | None = None
        try:
            summary = job()
            _log.info("%s", summary)
        except _Stopping:
            summary = stopped()
            _log.info("%s", summary)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            summary = f"{name}: failed after {time.perf_counter() - started:.2f}s: {error}"
            _log.exception("%s; the next run is as scheduled", summary)
        seconds = round(time.perf_counter() - started, 3)
        with self._lock:
            s = self._stats[name]
            self._stats[name] = replace(s, runs=s.runs + 1, failures=s.failures + (error is not None),
                                        last_error=error or s.last_error, last_summary=summary,
                                        last_seconds=seconds)

    def _on_skipped(self, event: JobEvent) -> None:
        with self._lock:
            if event.job_id in self._stats:
                s = self._stats[event.job_id]
                self._stats[event.job_id] = replace(s, skipped=s.skipped + 1)
