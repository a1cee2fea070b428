"""``evaluate`` and ``assert_summary``: the Python side of experiments (see the package's docstring)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..contract.datasets import DatasetItem, ItemLine
from ..contract.experiments import ExperimentInfo, ExperimentReport, RubricRate
from ..contract.server import serving_api
from ..settings import Settings, reveal
from ..views.client import ApiClient
from ..views.experiment_runner import load_task, run_experiment

if TYPE_CHECKING:
    from ..rubrics.verdicts import RubricResult


@dataclass
class Evaluation:
    """What an experiment run from Python found: the same figures `sumwatch experiment run` prints."""

    report: ExperimentReport
    resumed: bool
    ran: int
    errors: list[tuple[str, str]] = field(default_factory=list)  # (item, what the task raised)

    @property
    def experiment(self) -> ExperimentInfo:
        return self.report.experiment

    @property
    def rates(self) -> dict[str, float | None]:
        return {r.rubric: r.rate for r in self.report.rates}

    def rate(self, rubric: str) -> RubricRate:
        return next(r for r in self.report.rates if r.rubric == rubric)


@contextmanager
def api_client(settings: Settings | None = None) -> Iterator[ApiClient]:
    """The running server's API when one holds the embedded database, else the app in this process."""
    settings = settings or Settings.from_env()
    token = reveal(settings.receiver.api_token) or None
    with ExitStack() as stack:
        api = serving_api(settings.embedded_path) if settings.is_embedded else None
        if api is None:
            from ..engine.local import local_app  # noqa: PLC0415 - the app only when no server runs

            api, app = local_app(stack, settings)
        client = ApiClient.remote(api, token) if api is not None else ApiClient.in_process(app, token)
        yield stack.enter_context(client)


def _items(data: Sequence[DatasetItem | Mapping[str, Any]]) -> list[DatasetItem]:
    items = []
    for n, entry in enumerate(data, start=1):
        if isinstance(entry, DatasetItem):
            items.append(entry)
            continue
        try:
            items.append(ItemLine.model_validate(dict(entry)).item())
        except ValueError as exc:
            raise ValueError(f"item {n}: {' '.join(str(exc).split())[:300]}") from None
    if not items:
        raise ValueError("no items to evaluate")
    return items


def evaluate(data: str | Sequence[DatasetItem | Mapping[str, Any]], task: Callable[..., Any] | str, *,
             name: str | None = None, version: int | None = None, concurrency: int = 4, mode: str | None = None,
             settings: Settings | None = None) -> Evaluation:
    """Run ``task`` on a dataset (its name) or on items (made a dataset of their own, named by their content),
    judge the summaries, and return the figures. ``task`` is a function or ``module:function``."""
    function = load_task(task) if isinstance(task, str) else task
    task_name = task if isinstance(task, str) else f"{function.__module__}:{getattr(function, '__qualname__', '')}"
    with api_client(settings) as client:
        dataset = data if isinstance(data, str) else _dataset_of(client, _items(data))
        outcome = run_experiment(client, dataset, function, task_name=task_name, name=name, version=version,
                                 concurrency=concurrency)
        report = client.score_experiment(outcome.experiment.experiment_id, mode=mode)
    return Evaluation(report, outcome.resumed, outcome.ran, outcome.errors)


def _dataset_of(client: ApiClient, items: list[DatasetItem]) -> str:
    lines = "".join(i.json_line() for i in items).encode("utf-8")
    name = "eval-" + hashlib.sha256(lines).hexdigest()[:12]
    client.import_dataset(name, lines, "jsonl", description="items given to sumwatch.monitor.testing.evaluate")
    return name


class SummaryAssertionError(AssertionError):
    """A summary that failed a rubric: the message names each failing rubric, its verdict and its evidence."""

    def __init__(self, failed: Sequence[RubricResult]) -> None:
        self.failed = list(failed)
        lines = [f"{r.rubric} failed ({r.failure_mode or r.verdict})" + (f": {r.evidence}" if r.evidence else "")
                 + (f" [{r.explanation}]" if r.explanation and not r.evidence else "") for r in failed]
        super().__init__("; ".join(lines) if len(lines) > 1 else lines[0])


def judge_summary(source: str, summary: str, *, rubrics: Sequence[str] | None = None, reference: str = "",
                  questions: Sequence[str] = (), band: str | None = None, expected_facts: Sequence[str] = (),
                  mode: str | None = None, settings: Settings | None = None) -> dict[str, RubricResult]:
    """Every asked rubric's verdict on one summary, judged in this process: the cascade's rubrics, and the
    reference rubrics when ``reference`` or ``questions`` are given (those they cannot judge are left out)."""
    from ..rubrics.reference import ReferenceCase, reference_results  # noqa: PLC0415 - judges load when used
    from ..rubrics.reference_verdicts import UNJUDGED  # noqa: PLC0415 - as above
    from ..rubrics.verdicts import SummaryCase  # noqa: PLC0415 - as above
    from ..scoring.judges import build_cascade, build_embedder, build_llm  # noqa: PLC0415 - as above

    settings = settings or Settings.from_env()
    chosen = mode or settings.judge.judge_mode
    embedder = build_embedder(settings) if settings.judge.embeddings else None
    llm = build_llm(settings) if chosen != "off" else None
    cascade = build_cascade(settings, mode=chosen, embeddings=embedder is not None, embedder=embedder, llm=llm)
    wanted = [r for r in cascade.rubrics if rubrics is None or r in rubrics]
    results: dict[str, RubricResult] = {}
    if wanted:
        case = SummaryCase(source, summary, band, tuple(expected_facts), None)
        results.update(cascade.score_batch([case], rubrics=wanted)[0])
    if reference or questions:
        judged = reference_results(ReferenceCase(source=source, summary=summary, reference=reference,
                                                 questions=tuple(questions)), embedder=embedder, llm=llm)
        results.update({r.rubric: r for r in judged if r.verdict != UNJUDGED
                        and (rubrics is None or r.rubric in rubrics)})
    unknown = sorted(set(rubrics or ()) - set(results))
    if unknown:
        raise ValueError(f"nothing here judged {', '.join(unknown)}: a rubric is one the cascade judges "
                         f"({', '.join(cascade.rubrics)}) or a reference rubric with a reference or questions given")
    return results


def assert_summary(source: str, summary: str, *, rubrics: Sequence[str] | None = None, reference: str = "",
                   questions: Sequence[str] = (), band: str | None = None, expected_facts: Sequence[str] = (),
                   mode: str | None = None, settings: Settings | None = None) -> dict[str, RubricResult]:
    """Raise :class:`SummaryAssertionError` naming each rubric ``summary`` fails, with its verdict and evidence;
    the verdicts when every one passes."""
    results = judge_summary(source, summary, rubrics=rubrics, reference=reference, questions=questions, band=band,
                            expected_facts=expected_facts, mode=mode, settings=settings)
    failed = [r for r in results.values() if not r.passed]
    if failed:
        raise SummaryAssertionError(failed)
    return results

