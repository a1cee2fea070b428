"""The edit-test-promote loop of a judge definition: run a candidate beside the active version on the rubric's
labelled corpus, gate it on kappa, and store it as the rubric's active version.

    report = test_candidate(store, cascade, load_definition(Path("factuality.toml")))
    report.gate.passed, report.candidate.kappa, report.active.kappa, report.changed
    promote(store, cascade, candidate, force_reason="the corpus mislabels two items", promoted_by="ana")

Both versions judge the same items through the same tiers (``cascade.with_definitions``), so the kappas
differ only by the definition. A corpus item either version shows the judge as a few-shot example is left
out of the measured items: a judge graded on its own examples would look better than it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..contract.actions import Progress
from ..contract.calibration import (
    LABELLED,
    CandidateReport,
    ChangedItem,
    CorpusItem,
    GateResult,
    PromotionReport,
)
from ..rubrics.definition import JudgeDefinition
from ..rubrics.verdicts import ERROR, LLM, RubricResult
from ..store.connection import Store
from ..store.corpus import item_case, load_items
from ..store.judges import JudgeRecord, active_definitions, record_promotion, resolve_examples, stored_version
from .gate import agreement, gate_against, record_baseline


def example_ids(definition: JudgeDefinition) -> set[str]:
    """The corpus items ``definition`` shows the judge, by id."""
    return {e.corpus_item for e in definition.examples if e.corpus_item}


def _shown(definitions: Sequence[JudgeDefinition], item: CorpusItem) -> bool:
    """Whether a definition shows ``item`` as an example: by its id, or inline with the same texts."""
    for definition in definitions:
        for example in definition.examples:
            if example.corpus_item == item.item_id or (
                    example.source.strip() == item.source.strip() and example.summary.strip() == item.text.strip()):
                return True
    return False


def _spent(results: Sequence[RubricResult]) -> tuple[int, int, int, float]:
    # a reply served from the cache used no tokens and is no call
    asked = [r for r in results if r.tier == LLM and (r.input_tokens or r.output_tokens or r.verdict == ERROR)]
    return (len(asked), sum(r.input_tokens for r in asked), sum(r.output_tokens for r in asked),
            round(sum(r.cost_usd for r in asked), 6))


def _check_verdicts(candidate: JudgeDefinition, items: Sequence[CorpusItem]) -> None:
    for item in items:
        if item.human_verdict not in candidate.overall:
            raise ValueError(f"corpus item {item.item_id} of {candidate.name} is labelled {item.human_verdict!r}, "
                             f"which is not one of the verdicts of {candidate.origin or candidate.judge_version} "
                             f"({', '.join(candidate.overall)}): relabel it, or keep the verdict in the definition")


def test_candidate(store: Store, cascade: Any, candidate: JudgeDefinition, *,
                   on_progress: Progress | None = None) -> CandidateReport:
    """Judge the rubric's labelled corpus with the active definition and with ``candidate``; the kappas side by
    side, the items whose verdict changed, what the candidate's run spent, and the gate."""
    rubric = candidate.name
    progress = on_progress or (lambda stage, done, total: None)
    active_defs = active_definitions(store)
    # versions as stored (a resolved example's texts would change the content hash)
    candidate_version = candidate.judge_version
    active_version = active_defs[rubric].judge_version if rubric in active_defs else None
    candidate = resolve_examples(store, candidate)
    # a built-in rubric is active from its shipped file until promoted; a custom one once promoted
    active = resolve_examples(store, active_defs[rubric]) if rubric in active_defs else None
    labelled = load_items(store, rubric=rubric, status=LABELLED)
    _check_verdicts(candidate, labelled)
    versions = [candidate] + ([active] if active is not None else [])
    items = [i for i in labelled if not _shown(versions, i)]
    excluded = [i.item_id for i in labelled if _shown(versions, i)]
    notes = []
    if excluded:
        notes.append(f"{len(excluded)} item(s) shown to the judge as few-shot examples are left out of the "
                     f"measurement (a judge graded on its own examples looks better than it is)")
    if not items:
        why = (f"the {rubric} corpus has no labelled items" if not labelled else
               f"every labelled {rubric} item is a few-shot example")
        return CandidateReport(rubric, candidate_version, active_version, 0,
                               excluded, None, None, [], GateResult(False, None, None, [
                                   f"{why}: nothing to gate against; label items (`sumwatch corpus import`, "
                                   f"`sumwatch corpus label`), or promote with --force REASON"]), notes=notes)
    cases = [item_case(i) for i in items]
    with_candidate = {**active_defs, rubric: candidate}
    active_report, active_verdicts = None, []
    if active is not None:
        progress("active version", 0, len(items))
        ran = cascade.with_definitions({**active_defs, rubric: active}).score_batch(cases, rubrics=[rubric])
        active_verdicts = [r[rubric].verdict for r in ran]
        active_report = agreement(rubric, items, active_verdicts, active_version or "", passing=active.passing)
        progress("active version", len(items), len(items))
    progress("candidate", 0, len(items))
    results = [r[rubric] for r in cascade.with_definitions(with_candidate).score_batch(cases, rubrics=[rubric])]
    progress("candidate", len(items), len(items))
    verdicts = [r.verdict for r in results]
    report = agreement(rubric, items, verdicts, candidate_version, passing=candidate.passing)
    errors = [r for r in results if r.verdict == ERROR]
    if errors:
        notes.append(f"the candidate's judge failed on {len(errors)} item(s), counted as failing verdicts "
                     f"(first: {' '.join(errors[0].error.split())[:160]})")
    notes.extend(report.warnings)
    if active_report is None:
        result = GateResult(True, None, None, [f"{rubric} has no active version: nothing to compare with; this "
                                               f"run becomes the {rubric} baseline when promoted"])
        changed: list[ChangedItem] = []
    else:
        result = gate_against(report, active_report)
        changed = [ChangedItem(i.item_id, i.bucket, i.human_verdict, a, c)
                   for i, a, c in zip(items, active_verdicts, verdicts) if a != c]
    calls, tokens_in, tokens_out, cost = _spent(results)
    return CandidateReport(rubric, candidate_version, active_version, len(items),
                           excluded, report, active_report, changed, result, calls, tokens_in, tokens_out, cost,
                           notes)


test_candidate.__test__ = False  # type: ignore[attr-defined]  # pytest: a function, not a test


def promote(store: Store, cascade: Any, candidate: JudgeDefinition, *, force_reason: str | None = None,
            promoted_by: str = "", on_progress: Progress | None = None) -> PromotionReport:
    """Test ``candidate`` and, when the gate passes (or ``force_reason`` overrides it), store it as the rubric's
    active version and its kappas as the rubric's calibration baseline. A version tag stored before with other
    content raises ValueError: an edit gets a new tag."""
    before = stored_version(store, candidate.name, candidate.version)
    if before is not None and before.content_hash != candidate.content_hash:
        raise ValueError(f"{candidate.name} version {candidate.version!r} is stored with other content "
                         f"({before.judge_version}, promoted {before.promoted_at:%Y-%m-%d %H:%M}): give the edit a "
                         f"new version tag")
    report = test_candidate(store, cascade, candidate, on_progress=on_progress)
    reason = " ".join((force_reason or "").split())
    base = PromotionReport(candidate.name, candidate.version, candidate.judge_version, False, report,
                           again=before is not None)
    if not report.gate.passed and not reason:
        base.refused = ("the gate failed: " + "; ".join(report.gate.reasons) +
                        " (promote with --force REASON to override)")
        return base
    forced = reason if not report.gate.passed else ""
    record_promotion(store, JudgeRecord.of(candidate, promoted_by=promoted_by, forced=forced,
                                           results=_results(report)))
    if report.candidate is not None:
        measured = load_items(store, rubric=candidate.name, status=LABELLED)
        kept = [i for i in measured if i.item_id not in set(report.excluded)]
        record_baseline(store, report.candidate, kept)
    base.promoted, base.forced = True, forced
    return base


def _results(report: CandidateReport) -> dict[str, Any]:
    """What the promotion's test measured, kept with the stored definition (history shows it per version)."""
    measured = report.candidate
    return {
        "kappa": measured.kappa if measured else None,
        "buckets": {b.bucket: b.kappa for b in measured.buckets} if measured else {},
        "items": report.items, "excluded": len(report.excluded), "changed": len(report.changed),
        "active_version": report.active_version, "active_kappa": report.active.kappa if report.active else None,
        "gate_passed": report.gate.passed, "gate_reasons": report.gate.reasons,
        "llm_calls": report.llm_calls, "cost_usd": report.cost_usd,
    }
