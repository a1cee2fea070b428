"""A workload of a few long documents, each failing several ways, as the judges would write the failures.

    texts, meta = few_document_failures(documents=3, per_kind=6)   # failure texts, their (rubric, mode, document)
    purity(labels, [m.failure_mode for m in meta])                  # 1.0: no cluster mixes failure kinds
    clusters_per_kind(labels, [m.failure_mode for m in meta])       # 1.0: each kind in one cluster

Every failure of one document quotes that document in its explanation and evidence (the same names,
figures and sentences), so text alone pulls a document's failures together whatever their kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sumwatch.clustering.pipeline import PointMeta
from sumwatch.monitor.issues.failures import FailingScore, failure_text
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv

_DOCUMENTS = [
    ("Northwind Logistics", "Harbor Street depot", "Maria Okafor", "freight volume", 4.2, "Rotterdam"),
    ("Bluefin Pharmaceuticals", "Cambridge trial site", "Tomas Lindqvist", "enrolment", 37.5, "Basel"),
    ("Helios Solar Cooperative", "Valencia array", "Priya Raman", "generation output", 12.8, "Seville"),
    ("Kestrel Aerospace", "Toulouse hangar", "Jonas Meyer", "delivery backlog", 61.0, "Hamburg"),
    # documents no tuning workload uses: the held-out few-documents rows start here (``first=3``)
    ("Ostara Foods", "Porto bottling plant", "Ines Carvalho", "export orders", 18.4, "Lisbon"),
    ("Granite Ridge Mining", "Kalgoorlie pit", "Aaron Whitfield", "ore grade", 2.7, "Perth"),
    ("Lumen Health Network", "Leeds clinic", "Fatima Begum", "patient waiting time", 23.9, "Manchester"),
]


def _sentences(company: str, site: str, person: str, metric: str, figure: float, city: str) -> list[str]:
    return [f"{company} reported that {metric} at the {site} rose {figure}% in the third quarter.",
            f"{person}, who leads the {site}, said the {city} expansion would follow in spring.",
            f"The board of {company} approved a budget for the {city} office after {person} presented it.",
            f"Analysts expect {metric} at {company} to stay above {figure + 3:.1f}% through next year.",
            f"The {site} added two shifts, and {person} credited the {city} suppliers for the growth."]


def few_document_scores(documents: int = 3, per_kind: int = 6, first: int = 0) -> list[tuple[str, FailingScore]]:
    """``per_kind`` failing scores of each of four kinds for each of ``documents`` long documents from the
    ``first``, each with the text of the document it was judged against."""
    if first + documents > len(_DOCUMENTS):
        raise ValueError(f"there are {len(_DOCUMENTS)} documents, not {first + documents}")
    out = []
    for company, site, person, metric, figure, city in _DOCUMENTS[first:first + documents]:
        sentences = _sentences(company, site, person, metric, figure, city)
        document = " ".join(sentences)
        for i in range(per_kind):
            # judges quote generously: two or three sentences of the document in each failure
            quote = " ".join(sentences[(i + k) % len(sentences)] for k in range(2))
            other = " ".join(sentences[(i + k) % len(sentences)] for k in range(2, 5))
            changed = f"{figure + 1 + i:.1f}"
            kinds = [
                FailingScore("factuality", "numerically_wrong", 0.2, "numerically_wrong", "rules",
                             f'source: "{quote}" summary: "{quote.replace(str(figure), changed)}"',
                             f"The summary gives {changed}% where the source says {figure}% ({metric}, {company}).",
                             quote.replace(str(figure), changed)),
                FailingScore("factuality", "entity_wrong", 0.2, "entity_swap", "rules",
                             f'source: "{quote}" summary: "{quote.replace(person, "the " + city + " mayor")}"',
                             f"The summary attributes to the {city} mayor what the source says of {person} at "
                             f"{company}.", other.replace(person, f"the {city} mayor")),
                FailingScore("conciseness", "padded", 0.3, "filler_padding", "rules",
                             f'summary: "It is important to note that {quote}"',
                             f"Filler phrases pad the summary of {company}: {other}", quote),
                FailingScore("conciseness", "under_compressed", 0.3, "under_band_length", "rules",
                             f'summary: "{company} {metric} rose."',
                             f"The summary of {company} ({site}, {person}, {city}) has 4 words; the band asks for "
                             f"40 to 80. {quote}", f"{company} {metric} rose."),
            ]
            out += [(document, score) for score in kinds]
    return out


def few_document_failures(documents: int = 3, per_kind: int = 6, first: int = 0
                          ) -> tuple[list[str], list[PointMeta]]:
    """The failure texts of :func:`few_document_scores` and their (rubric, failure mode, document)."""
    scored = few_document_scores(documents, per_kind, first)
    return ([failure_text(score) for _, score in scored],
            [PointMeta(score.rubric, score.failure_mode, document) for document, score in scored])


def store_few_documents(store: Any, documents: int = 3, per_kind: int = 6, ns: int = 1_700_000_000_000_000_000
                        ) -> dict[tuple[str, str], str]:
    """The workload of :func:`few_document_scores` written as the sampler leaves it: one tagged span per
    failure (its source the document, its summary the blamed sentence, one nanosecond apart from ``ns``) and
    its failing score. Returns the failure kind ("rubric/mode") of each (trace id, span id)."""
    spans, results, kinds = [], [], {}
    for i, (document, score) in enumerate(few_document_scores(documents, per_kind)):
        tid, sid = f"{i + 1:032x}", f"{i + 1:016x}"
        attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: document,
                 semconv.OUTPUT_VALUE: score.sentence}
        spans.append((ns + i, tid, sid, "", "", semconv.SPAN_NAME, "Internal", "digest", {"service.name": "digest"},
                      semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000, "Unset", "", (), (), (), (), (), (), ()))
        results.append(ScoredSpan(SpanRef(tid, sid, ns + i, "digest"), {score.rubric: RubricResult.make(
            score.rubric, score.verdict, tier=score.tier, failure_mode=score.failure_mode, evidence=score.evidence,
            explanation=score.explanation, details=({"claim": score.sentence, "status": score.verdict},))}))
        kinds[(tid, sid)] = f"{score.rubric}/{score.failure_mode}"
    store.insert_spans(spans)
    write_scores(store, results, "v1")
    return kinds


def purity(labels: Sequence[int], kinds: Sequence[str]) -> float:
    """The share of clustered points whose cluster's most common kind is their own (noise left out)."""
    groups: dict[int, list[str]] = {}
    for label, kind in zip(labels, kinds):
        if label >= 0:
            groups.setdefault(int(label), []).append(kind)
    clustered = sum(len(g) for g in groups.values())
    if not clustered:
        return 0.0
    return sum(Counter(g).most_common(1)[0][1] for g in groups.values()) / clustered


def clusters_per_kind(labels: Sequence[int], kinds: Sequence[str]) -> float:
    """How many clusters a kind's clustered points are spread over, averaged over kinds (noise left out)."""
    spread: dict[str, set[int]] = {}
    for label, kind in zip(labels, kinds):
        if label >= 0:
            spread.setdefault(kind, set()).add(int(label))
    return sum(len(s) for s in spread.values()) / len(spread) if spread else 0.0
