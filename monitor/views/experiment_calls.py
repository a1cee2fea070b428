"""The API client's experiment requests (a part of :class:`.client.ApiClient`).

    started = client.start_experiment(StartExperiment(dataset="sw3", name="prompt-v4", task="app:summarize"))
    client.experiment_items(started.experiment.experiment_id, [outcome])
    report = client.score_experiment("prompt-v4", on_progress=print)
    client.experiments(), client.experiment("prompt-v4"), client.compare_experiments("prompt-v3", "prompt-v4")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import quote

from ..contract.actions import ActionProgress

if TYPE_CHECKING:  # the records load with the first experiment request: a command that reads traces needs none
    from ..contract.experiments import (
        Comparison,
        ExperimentInfo,
        ExperimentReport,
        ItemOutcome,
        ItemsAnswer,
        LiveComparison,
        StartAnswer,
        StartExperiment,
    )

T = TypeVar("T")


class _Requests(Protocol):
    def _get(self, kind: type[T], path: str, params: dict[str, Any] | None = None) -> T: ...

    def _post(self, kind: type[T], path: str, body: dict[str, Any]) -> T: ...

    def _action(self, kind: type[T], path: str, action: str,
                on_progress: Callable[[ActionProgress], None] | None, **kw: Any) -> T: ...


def _key(key: str) -> str:
    return quote(key, safe="")


class ExperimentCalls:
    def start_experiment(self: _Requests, body: StartExperiment) -> StartAnswer:
        """A new experiment on the dataset's version, or the one of that name resumed."""
        from ..contract.experiments import StartAnswer  # noqa: PLC0415 - start-up: see the import at the top

        return self._post(StartAnswer, "/api/experiments", body.model_dump(exclude_none=True))

    def experiment_items(self: _Requests, experiment_id: str, outcomes: Sequence[ItemOutcome]) -> ItemsAnswer:
        """Store items' calls: their spans, or the error the task raised."""
        from ..contract.experiments import ItemsAnswer  # noqa: PLC0415 - start-up: see the import at the top

        return self._post(ItemsAnswer, f"/api/experiments/{_key(experiment_id)}/items",
                          {"items": [o.model_dump() for o in outcomes]})

    def score_experiment(self: _Requests, key: str, *, mode: str | None = None,
                         on_progress: Callable[[ActionProgress], None] | None = None) -> ExperimentReport:
        """Judge every item not judged yet (active judges and reference rubrics); the experiment's report."""
        from ..contract.experiments import ExperimentReport  # noqa: PLC0415 - start-up: see the import at the top

        return self._action(ExperimentReport, f"/api/experiments/{_key(key)}/score", "experiment_score",
                            on_progress, json={"mode": mode} if mode else {})

    def experiments(self: _Requests, dataset: str | None = None) -> list[ExperimentInfo]:
        from ..contract.experiments import ExperimentInfo  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(list[ExperimentInfo], "/api/experiments", {"dataset": dataset})

    def experiment(self: _Requests, key: str) -> ExperimentReport:
        from ..contract.experiments import ExperimentReport  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(ExperimentReport, f"/api/experiments/{_key(key)}")

    def compare_experiments(self: _Requests, base: str, candidate: str, rubrics: Sequence[str] = ()) -> Comparison:
        from ..contract.experiments import Comparison  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(Comparison, f"/api/experiments/{_key(base)}/compare/{_key(candidate)}",
                         {"rubric": list(rubrics) or None})

    def compare_live(self: _Requests, key: str, prompt_version: str, *, service: str = "",
                     since: str = "7d") -> LiveComparison:
        from ..contract.experiments import LiveComparison  # noqa: PLC0415 - start-up: see the import at the top

        return self._get(LiveComparison, f"/api/experiments/{_key(key)}/compare-live",
                         {"prompt_version": prompt_version, "service": service or None, "since": since})
