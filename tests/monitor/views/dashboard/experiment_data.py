"""A dataset with two versions and experiments on it, written through the store's own functions, for the Datasets and
Experiments pages' tests; and an issue whose members recorded their texts, for the issue page's Make a dataset form.

    made = experiments(store)     # "buses" v1 and v2, base and candidate on v2, and two that cannot be compared
    issue(store)                  # SW-1 in run-1: three members with their source and summary

The candidate changes "14" to "41" in the summaries of every third item (factuality fails there: a regression beyond
noise) and fixes item 2, which the base summarized with a wrong number; item 5's call raised in both.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from sumwatch.monitor.contract.datasets import DatasetItem
from sumwatch.monitor.contract.experiments import EXPERIMENT_ATTR, ITEM_ATTR
from sumwatch.monitor.datasets.versions import save_dataset
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.experiments import FINISHED, ExperimentRow, ItemRow, record_items, save_experiment
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
CITIES = ["Leeds", "Porto", "Lyon", "Graz", "Turku", "Ghent", "Brno", "Cork", "Bern", "Split", "Aarhus", "Kaunas",
          "Malmo", "Tartu", "Pecs", "Gdansk", "Nantes", "Utrecht", "Bilbao", "Trieste", "Linz", "Ostrava", "Tampere",
          "Galway"]
ITEMS = 24  # in version 2; version 1 holds the first 20
REGRESSED = tuple(f"item-{i:02d}" for i in range(0, ITEMS, 3))  # 8 items: beyond noise
FIXED, RAISED = ("item-02",), "item-05"
LONG = "item-03"  # a source longer than the table shows
EVIDENCE = 'summary: "41 new bus lines" | source: "14 new bus lines"'  # the factuality judge's, on a wrong number
JUDGES = {"factuality": "factuality@v1", "conciseness": "conciseness@v1"}


def source(i: int) -> str:
    city = CITIES[i]
    text = (f"The council of {city} approved 14 new bus lines on Tuesday. The lines open in spring and serve the "
            f"northern districts of {city}. Officials said fares stay the same.")
    if f"item-{i:02d}" == LONG:
        text += " " + " ".join(f"Route {n} links the station with the hospital and the university campus."
                               for n in range(1, 9)) + " THE-END-OF-THE-LONG-SOURCE"
    return text


def items(n: int) -> list[DatasetItem]:
    return [DatasetItem(item_id=f"item-{i:02d}", source=source(i),
                        reference=f"The {CITIES[i]} council approved 14 new bus lines on Tuesday.",
                        questions=("Does it say how many lines?", "Does it say when they open?"),
                        expected_facts=("14 new bus lines",), band="tldr") for i in range(n)]


def summary(i: int, side: str) -> str:
    number = "14"
    if (side == "candidate" and f"item-{i:02d}" in REGRESSED) or (side == "base" and f"item-{i:02d}" in FIXED):
        number = "41"
    return f"The council of {CITIES[i]} approved {number} new bus lines."


def _span(trace_id: str, span_id: str, at: datetime, experiment_id: str, item_id: str, text: str, summary_text: str
          ) -> tuple:
    attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: text, semconv.OUTPUT_VALUE: summary_text,
             semconv.GEN_AI_REQUEST_MODEL: "house-model", semconv.GEN_AI_INPUT_TOKENS: str(len(text.split())),
             semconv.GEN_AI_OUTPUT_TOKENS: "12", EXPERIMENT_ATTR: experiment_id, ITEM_ATTR: item_id}
    return (int(at.timestamp() * 1e9), trace_id, span_id, "", "", semconv.SPAN_NAME, "Internal", "sumwatch-experiment",
            {"service.name": "sumwatch-experiment"}, semconv.INSTRUMENTATION_NAME, "", attrs, 800_000_000, "Unset", "",
            (), (), (), (), (), (), ())


def run(store, name: str, dataset: str, version: int, texts: list[DatasetItem], side: str, number: int,
        judges: dict[str, str] = JUDGES) -> ExperimentRow:
    """An experiment whose calls are stored spans and whose summaries are judged on factuality and conciseness."""
    row = save_experiment(store, ExperimentRow(f"exp-{number:010d}", name, dataset, version, f"app:{side}",
                                               len(texts), FINISHED, T0 + timedelta(hours=number)))
    spans, calls, scored = [], [], []
    for i, item in enumerate(texts):
        trace_id, span_id = f"{number:08x}{i + 1:024x}", f"{i + 1:016x}"
        if item.item_id == RAISED:
            calls.append(ItemRow(row.experiment_id, item.item_id, error="RuntimeError: the model refused this one"))
            continue
        text, at = summary(i, side), T0 + timedelta(hours=number, seconds=i)
        spans.append(_span(trace_id, span_id, at, row.experiment_id, item.item_id, item.source, text))
        calls.append(ItemRow(row.experiment_id, item.item_id, trace_id, span_id, text, latency_ms=700.0 + 10 * i))
        wrong = "41" in text
        factual = RubricResult.make("factuality", "numerically_wrong" if wrong else "correct",
                                    failure_mode="number_mismatch" if wrong else "", evidence=EVIDENCE if wrong else "")
        scored.append(ScoredSpan(SpanRef(trace_id, span_id, int(at.timestamp() * 1e9), "sumwatch-experiment"),
                                 {"factuality": factual, "conciseness": RubricResult.make("conciseness", "concise")}))
    store.insert_spans(spans)
    record_items(store, calls)
    write_scores(store, scored, judges.__getitem__)
    return row


def experiments(store) -> dict[str, ExperimentRow]:
    save_dataset(store, "buses", items(20), origin="file:buses.jsonl", description="first cut")
    second = items(ITEMS)
    save_dataset(store, "buses", second, origin="file:buses-2.jsonl", description="four more cities")
    save_dataset(store, "letters", [DatasetItem(item_id="l-1", source="Dear Ana, the parcel arrives Monday.")],
                 origin="file:letters.jsonl")
    made = {"base": run(store, "base", "buses", 2, second, "base", 1),
            "candidate": run(store, "candidate", "buses", 2, second, "candidate", 2),
            "rejudged": run(store, "rejudged", "buses", 2, second, "base", 3,
                            {"factuality": "factuality@v2", "conciseness": "conciseness@v1"})}
    made["elsewhere"] = save_experiment(store, ExperimentRow("exp-elsewhere", "elsewhere", "letters", 1, "app:base",
                                                             1, FINISHED, T0))
    return made


def issue(store) -> str:
    """SW-1 in run-1: the members are spans 0-2 of service digest, each with its source and summary."""
    from sumwatch.monitor.store.issue_members import MEMBER, REPRESENTATIVE, MemberRow, save_members
    from sumwatch.monitor.store.issues import IssueState, save_states
    from sumwatch.monitor.store.runs import RunRow, save_run

    rows = []
    for i in range(3):
        attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: source(i),
                 semconv.OUTPUT_VALUE: summary(i, "candidate"), semconv.GEN_AI_REQUEST_MODEL: "gpt-4o-mini"}
        rows.append((int((T0 + timedelta(minutes=i)).timestamp() * 1e9), f"{0xABC0 + i:032x}", f"{i + 1:016x}", "",
                     "", semconv.SPAN_NAME, "Internal", "digest", {"service.name": "digest"},
                     semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "", (), (), (), (), (), (), ()))
    store.insert_spans(rows)
    state = IssueState(1, "SW-1", "Bus line counts changed", "The count of lines is wrong.", "", "", "high",
                       "factuality", "number_mismatch", [], "new", 3, 3, 0.5, 0, T0, T0,
                       np.ones(4, dtype=np.float32) / 2, "m", "KeywordNamer")
    save_states(store, [state], "run-1", T0)
    save_members(store, [MemberRow("run-1", 1, f"{0xABC0 + i:032x}", f"{i + 1:016x}", T0, "digest", "factuality",
                                   "numerically_wrong", "number_mismatch", 0.9 - i / 10,
                                   REPRESENTATIVE if i == 0 else MEMBER, EVIDENCE,
                                   "factuality numerically wrong", T0) for i in range(3)])
    save_run(store, RunRow("run-1", T0, T0, T0, T0, failures=3, clustered=3, noise=0, issues=1, new_issues=1,
                           embedded=3, promoted=0, namer="KeywordNamer", embedding_model="m", seconds=1.0))
    return "SW-1"
