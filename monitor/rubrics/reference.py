"""Reference rubrics: an experiment's summary judged against its dataset item's reference summary and questions.

    from sumwatch.monitor.rubrics.reference import ReferenceCase, reference_results, tri_gate_score
    case = ReferenceCase(source=doc, summary=candidate, reference=gold, questions=("Did revenue rise?",))
    results = reference_results(case, embedder=embedder, llm=judge)    # six RubricResults, in REFERENCE_RUBRICS order
    results = await areference_results(case, embedder=embedder, llm=judge)   # inside an event loop
    tri_gate_score(results)     # the Tri-Gate composite in [0, 1]; None while a gate is unjudged
    missing_facts(results)      # the reference's facts ref_recall found missing from the summary
    missed_questions(results)   # the questions the source answers yes and the summary does not

``embedder`` is the shared sentence model (``sumwatch.clustering.sentence_model.Embedder``) or anything with
``name`` and ``encode(texts) -> unit rows``; ``llm`` is the :class:`.llm.LLMJudge` the scoring uses (a cascade's
``llm``: its connection, retries, spend cap, reply cache and counters). Either may be None: what needs it is then
``unjudged``.

| rubric | tier | verdicts (passing first) | judged from |
|---|---|---|---|
| ``ref_length`` | rules | in_range, too_short, too_long | words within ±20% of the reference's |
| ``ref_format`` | rules | clean, off_format | chatter, meta-commentary, markdown the reference lacks |
| ``ref_drift`` | embeddings | aligned, drifted | sentence-centroid cosine to the reference (``DRIFT_THRESHOLD``) |
| ``ref_tri_gate`` | rules | pass, fail | the three gates; its score the composite (:func:`tri_gate_score`) |
| ``ref_recall`` | llm | recalled, approximate, missing | the definition ``definitions/reference_recall.toml`` |
| ``ref_coverage`` | llm | covered, uncovered | assessment questions, source vs summary (:mod:`.coverage`) |

The gates live in :mod:`.reference_gates`, the names and verdicts in :mod:`.reference_verdicts`.

Each result carries its evidence (counts, quoted phrases, quoted reference and summary passages) and the verdict
that follows from it. ``unjudged`` (no reference, no questions, no LLM, no embedder; the reason in
``details[0]["unjudged"]``) is never a pass and scores 0: leave it out of comparisons, like ``error`` (an LLM that
could not answer). The names all start ``ref_``, which a team's own judge definition may not take unless it reads
the reference; a team edits ``ref_recall``'s words in its TOML file and passes the edited definition as ``recall``.
ref_recall's score is the mean of its facts' verdict scores (recalled 1, approximate 0.7, missing 0), its
verdict any missing fact fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from .cascade import LLMTier
from .coverage import COVERAGE_PASS, acoverage
from .coverage import missed_questions as _missed_questions
from .definition import JudgeDefinition
from .llm import LLMJudge, quoted_in
from .reference_gates import DRIFT_THRESHOLD, SentenceEncoder, drift_gate, format_gate, length_gate, tri_gate
from .reference_gates import tri_gate_score as tri_gate_score
from .reference_verdicts import (
    NO_LLM,
    NO_REFERENCE,
    RECALL,
    REF_COVERAGE,
    REFERENCE_RUBRICS,
    UNJUDGED,
    ReferenceCase,
    unjudged,
)
from .rules.source import quote
from .verdicts import ERROR, LLM, RubricResult

__all__ = ["COVERAGE_PASS", "DRIFT_THRESHOLD", "RECALL", "REFERENCE_RUBRICS", "UNJUDGED", "ReferenceCase",
           "areference_results", "arecall", "missed_questions", "missing_facts", "reference_results",
           "tri_gate_score"]


def reference_results(case: ReferenceCase, *, embedder: SentenceEncoder | None = None,
                      llm: LLMJudge | LLMTier | None = None, recall: JudgeDefinition = RECALL,
                      coverage_threshold: float = COVERAGE_PASS) -> list[RubricResult]:
    """Every reference rubric of ``case``, in :data:`REFERENCE_RUBRICS` order; the synchronous form of
    :func:`areference_results`, for code with no event loop running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(areference_results(case, embedder=embedder, llm=llm, recall=recall,
                                              coverage_threshold=coverage_threshold))
    raise RuntimeError("reference_results() cannot run inside an event loop; await areference_results() instead")


async def areference_results(case: ReferenceCase, *, embedder: SentenceEncoder | None = None,
                             llm: LLMJudge | LLMTier | None = None, recall: JudgeDefinition = RECALL,
                             coverage_threshold: float = COVERAGE_PASS) -> list[RubricResult]:
    """Every reference rubric of ``case``, in :data:`REFERENCE_RUBRICS` order: the gates here (the embedder in a
    worker thread), recall and coverage through ``llm`` at the same time."""
    llm = _judge(llm)
    length, form = length_gate(case), format_gate(case)
    drifted, recalled, covered = await asyncio.gather(
        asyncio.to_thread(drift_gate, case, embedder), arecall(case, llm, recall),
        acoverage(case, llm.client if llm is not None else None, threshold=coverage_threshold))
    return [length, form, drifted, tri_gate([length, form, drifted]), recalled, covered]


def _judge(llm: LLMJudge | LLMTier | None) -> LLMJudge | None:
    """The LLM judge behind ``llm``: recall runs a judge definition and coverage asks its client, which another
    LLM tier (a test's stand-in for the cascade) does not have."""
    if llm is None or isinstance(llm, LLMJudge):
        return llm
    raise TypeError(f"the reference rubrics need an LLMJudge (the scoring's LLM judge), not {type(llm).__name__}")


async def arecall(case: ReferenceCase, llm: LLMJudge | LLMTier | None,
                  definition: JudgeDefinition = RECALL) -> RubricResult:
    """ref_recall (or the edited ``definition``): the LLM judge lists the reference's facts, quoting each from the
    reference and the summary's words for it, and says which the summary misses."""
    llm = _judge(llm)
    if not definition.reference:
        raise ValueError(f"{definition.name} does not read the reference (reference = true): not a recall judge")
    if not case.has_reference:
        return unjudged(definition.name, NO_REFERENCE, "the item has no reference summary to recall", tier=LLM)
    if llm is None:
        return unjudged(definition.name, NO_LLM, "no LLM is configured to judge recall", tier=LLM)
    judge = llm if llm.definitions.get(definition.name) == definition else llm.with_definitions(
        {definition.name: definition})
    result = await judge.ajudge(definition.name, case.summary_case)
    # the definition's own version (its tag and content) beside the judge's (its prompt and model), so an edit of
    # the file that leaves the prompt's words alone still gives its verdicts a version of their own
    result = result.with_(judge_version=f"{definition.judge_version}/{result.judge_version}")
    return result if result.verdict == ERROR else _with_missing(definition, case, result)


def _with_missing(definition: JudgeDefinition, case: ReferenceCase, result: RubricResult) -> RubricResult:
    """The judge's result with the missing facts named: each fact marked ``missing`` (with whether the judge's
    reference quote for it is really there), the score the mean of the facts' verdict scores, the evidence the
    missing facts against the reference."""
    rows: list[dict[str, Any]] = []
    for item in result.details:
        spec = definition.verdict(item.get("verdict", ""))
        lost = spec is None or not spec.passes
        row = {**item, "missing": lost}
        if lost:
            row["in_reference"] = quoted_in(item.get("evidence_quote", ""), case.reference)
        rows.append(row)
    scores = [spec.score if spec is not None and not spec.item_only else 0.0
              for spec in (definition.verdict(r.get("verdict", "")) for r in rows)]
    score = sum(scores) / len(scores) if scores else result.score
    missing = [r for r in rows if r["missing"]]
    if not missing:
        return result.with_(score=score, details=tuple(rows))
    evidence = "; ".join(
        f"reference {quote(r.get('evidence_quote') or r.get('claim', ''), 200)}"
        + ("" if r["in_reference"] else " (not found in the reference)")
        + (f" | summary {quote(r['summary_quote'], 200)}" if r.get("summary_quote", "").strip()
           else " | nothing in the summary")
        for r in missing[:3])
    listed = "; ".join(f"{n}. {r.get('claim', '')}" for n, r in enumerate(missing, 1))
    return result.with_(score=score, details=tuple(rows), evidence=evidence,
                        explanation=f"{result.explanation} Missing from the summary ({len(missing)} of {len(rows)} "
                                    f"facts of the reference): {listed}".strip())


def _named(results: Iterable[RubricResult], rubric: str) -> RubricResult | None:
    return next((r for r in results if r.rubric == rubric), None)


def missing_facts(results: Iterable[RubricResult], rubric: str = RECALL.name) -> tuple[str, ...]:
    """The reference facts the recall judge found missing from the summary, in the reference's order."""
    found = _named(results, rubric)
    if found is None:
        return ()
    return tuple(r.get("claim", "") for r in found.details if r.get("missing"))


def missed_questions(results: Iterable[RubricResult]) -> tuple[str, ...]:
    """The assessment questions the source answers yes and the summary does not."""
    found = _named(results, REF_COVERAGE)
    return _missed_questions(found) if found is not None else ()
