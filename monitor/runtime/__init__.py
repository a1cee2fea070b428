"""One runtime, built once from the settings: what the server, the worker and the commands run on.

    runtime = Runtime.build(settings, store)     # reads no environment: everything comes from ``settings``
    runtime.settings, runtime.store, runtime.exports, runtime.llm, runtime.locks
    runtime.embedder                             # the one sentence model (it loads on its first encode)
    runtime.cascade("always")                    # the judge cascade of a mode, built once per runtime
    runtime.clusterer()                          # a clustering pipeline as the settings ask (new each call)
    report = runtime.cluster(progress)           # one clustering run; progress(stage, done, total)

    app = create_app(runtime)                    # the server (views/app.py)
    worker = Worker(runtime)                     # the scheduled jobs (jobs/worker.py), beside it in `sumwatch up`

Everything heavy or shared lives on the runtime and nowhere else: no module keeps a sentence model, an LLM
connection or a cascade for the process, so two runtimes on different settings never hand each other theirs,
and the app and the worker of one `sumwatch up` share theirs (and their job locks) because they share the
runtime. A clustering run is assembled here only: the worker, the server's cluster now and `sumwatch demo` call
:meth:`Runtime.cluster` with a :data:`Progress`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..contract.actions import Progress
from ..issues import job as clustering_job  # a module: tests swap run_clustering on it
from ..rubrics.learned.model import FaithfulnessModel
from ..scoring import judges as scoring_judges  # a module: tests swap build_cascade on it
from ..store.job_locks import JobLocks

if TYPE_CHECKING:
    from ..contract.issues import ClusterRunReport
    from ..remote.llm import LLMConnection
    from ..rubrics.cascade import Cascade
    from ..settings import ExportSettings, Settings
    from ..store.connection import Store

__all__ = ["Judges", "Progress", "Runtime"]

# the judge cascade of each mode (None: the settings' judge mode); tests hand a runtime offline ones
Judges = Callable[[str | None], "Cascade"]


@dataclass
class _Made:
    """What a runtime builds on first use (its one mutable part)."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    embedder: Any = None
    faithfulness: FaithfulnessModel | None = None
    cascades: dict[str | None, Cascade] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Runtime:
    """The settings, the store and everything built from them once; see the module docstring. Made by
    :meth:`build`; its fields are never rebound, and the sentence model and the cascades are made on first use."""

    settings: Settings
    store: Store
    exports: ExportSettings  # the settings' own: nothing reads the environment again
    llm: LLMConnection | None  # the one connection to the configured model (the judges' and the namer's)
    locks: JobLocks = field(default_factory=JobLocks)  # held by its worker's scheduled runs and its server's actions
    judges: Judges | None = field(default=None, repr=False)  # a cascade per mode instead of the settings' (tests)
    _made: _Made = field(default_factory=_Made, repr=False)

    @classmethod
    def build(cls, settings: Settings, store: Store, *, exports: ExportSettings | None = None,
              judges: Judges | None = None, embedder: Any = None) -> Runtime:
        """The runtime of ``settings`` on an open ``store``. ``exports`` replaces the settings' tracker settings
        (``runtime.settings.exports`` is then the same object); ``judges`` (a cascade per mode) and ``embedder``
        replace what the runtime would build, for tests that run offline."""
        if exports is not None:
            settings = settings.model_copy(update={"exports": exports})
        return cls(settings, store, settings.exports, scoring_judges.llm_connection(settings), judges=judges,
                   _made=_Made(embedder=embedder))

    def __repr__(self) -> str:
        return f"Runtime({self.settings.store.database} on {self.settings.safe_url})"

    # -- what it builds on first use ----------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        """The sentence model the settings ask for, shared by the judges and the clustering runs; building it
        is free, the model loads on its first encode."""
        with self._made.lock:
            if self._made.embedder is None:
                self._made.embedder = scoring_judges.build_embedder(self.settings)
            return self._made.embedder

    def _learned(self) -> FaithfulnessModel | None:
        """The learned faithfulness model over :attr:`embedder`, one for every cascade (None when off)."""
        if not (self.settings.judge.embeddings and self.settings.judge.learned):
            return None
        with self._made.lock:
            if self._made.faithfulness is None:
                self._made.faithfulness = FaithfulnessModel(embedder=self.embedder)
            return self._made.faithfulness

    def cascade(self, mode: str | None = None) -> Cascade:
        """The judge cascade of ``mode`` (None: the settings' judge mode), built on first use and then the same
        object for this runtime. ValueError for settings it cannot be built from."""
        with self._made.lock:
            found = self._made.cascades.get(mode)
            if found is None:
                if self.judges is not None:
                    found = self.judges(mode)
                else:
                    found = scoring_judges.build_cascade(self.settings, mode=mode, embedder=self.embedder,
                                                         faithfulness=self._learned(), connection=self.llm)
                self._made.cascades[mode] = found
            return found

    def clusterer(self) -> Any:
        """A clustering pipeline as the settings ask, its LLM namer on :attr:`llm`; a new one each call (a
        pipeline keeps what its last run's namer did). ValueError for settings it cannot be built from."""
        return clustering_job.build_clusterer(self.settings, self.llm)

    def cluster(self, progress: Progress | None = None, *, window: str | None = None, clusterer: Any = None,
                now: datetime | None = None) -> ClusterRunReport:
        """One clustering run over the failing spans of ``window`` (default ``SUMWATCH_CLUSTER_WINDOW``) on this
        runtime's store, settings and sentence model, with ``clusterer`` (a new :meth:`clusterer` when not
        given); ``progress(stage, done, total)`` hears each stage, and whatever it raises ends the run before
        anything is written."""
        return clustering_job.run_clustering(self.store, self.settings, window=window, now=now,
                                             clusterer=clusterer if clusterer is not None else self.clusterer(),
                                             embedder=self.embedder, on_progress=progress)
