"""One lock per job, shared by the scheduled jobs and the API's actions of one runtime (``sumwatch.monitor.runtime``).

    locks = runtime.locks                        # one JobLocks per runtime: its worker and its server share it
    with locks.hold(SCORING, "score (POST /api/actions/score)"):
        ...                                      # JobBusy(holder) if anything else holds SCORING now

`sumwatch up` runs the worker's sampler and clustering job next to the API's score now and cluster now;
a manual pass overlapping a scheduled one would judge the same spans twice. The scheduled job that finds
its lock held skips (and counts the skip); the API answers 409 naming the holder. Never blocks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

SCORING = "scoring"  # a sampler pass: the worker's sampler, POST /api/actions/score
CLUSTERING = "clustering"  # a clustering run: the worker's cron job, POST /api/actions/cluster
CALIBRATION = "calibration"  # POST /api/actions/calibrate
INGEST = "ingest"  # POST /api/ingest


class JobBusy(Exception):
    """The job's lock is held; ``holder`` says by what."""

    def __init__(self, job: str, holder: str) -> None:
        super().__init__(f"{holder} is already running")
        self.job, self.holder = job, holder


class JobLocks:
    """Named non-blocking locks, each remembering what holds it."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._holders: dict[str, str] = {}

    def acquire(self, job: str, holder: str) -> str | None:
        """Take ``job``'s lock for ``holder``: None when taken, else what holds it."""
        with self._mutex:
            current = self._holders.get(job)
            if current is not None:
                return current
            self._holders[job] = holder
            return None

    def release(self, job: str) -> None:
        with self._mutex:
            self._holders.pop(job, None)

    def holder(self, job: str) -> str | None:
        with self._mutex:
            return self._holders.get(job)

    def held(self) -> dict[str, str]:
        """job -> holder, for every lock held now."""
        with self._mutex:
            return dict(self._holders)

    @contextmanager
    def hold(self, job: str, holder: str) -> Iterator[None]:
        """Hold ``job``'s lock for the block; JobBusy without running it when something else holds it."""
        current = self.acquire(job, holder)
        if current is not None:
            raise JobBusy(job, current)
        try:
            yield
        finally:
            self.release(job)
