"""`sumwatch demo` in this process: trace a generated workload, score it, cluster its failures.

    run = run_demo(settings, n=200, seed=7, mode=None, score=True, cluster=True, progress=bars)
    run.result.stored, run.scoring.pass_rates, run.clustering.issues
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..contract.actions import Progress
from ..demo.run import DemoResult, DemoScoring, score_demo
from ..demo.run import run_demo as trace_demo
from ..settings import Settings
from . import EngineError
from .local import build_runtime, open_store

if TYPE_CHECKING:
    from ..contract.issues import ClusterRunReport


@dataclass
class DemoRun:
    result: DemoResult
    scoring: DemoScoring | None = None
    clustering: ClusterRunReport | None = None


def run_demo(settings: Settings, *, n: int, seed: int, mode: str | None, score: bool, cluster: bool,
             progress: Progress) -> DemoRun:
    """The demo on the store of ``settings``, reporting stages ``summarizing``, ``scoring`` and ``clustering: ...``
    to ``progress``. One runtime: the scoring and the clustering share its sentence model. Settings the scoring
    or clustering cannot use are an :class:`EngineError` before that step starts."""
    with open_store(settings) as store:
        runtime = build_runtime(settings, store)
        try:
            cascade = runtime.cascade(mode) if score else None
        except ValueError as exc:
            raise EngineError(str(exc)) from None
        run = DemoRun(trace_demo(store, n=n, seed=seed, service=settings.receiver.service_name,
                                 on_progress=lambda done, total: progress("summarizing", done, total)))
        if cascade is None:
            return run
        run.scoring = score_demo(store, cascade, run.result.run_id, daily_cap_usd=settings.judge.llm_daily_cap_usd,
                                 on_progress=lambda seen, scored: progress("scoring", scored, n))
        if cluster:
            try:
                clusterer = runtime.clusterer()
            except ValueError as exc:
                raise EngineError(str(exc)) from None
            run.clustering = runtime.cluster(
                lambda stage, done, total: progress(stage if stage == "clustering" else f"clustering: {stage}",
                                                    done, total), clusterer=clusterer)
    return run
