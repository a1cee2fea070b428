"""The reference rubrics' names, verdicts and the case they read: defined once (see :mod:`.reference`).

    case = ReferenceCase(source=doc, summary=candidate, reference=gold, questions=("Did sales rise?",))
    reference_result(REF_DRIFT, "drifted", score=0.41, failure_mode="semantic_drift", evidence="...")
    unjudged(REF_COVERAGE, NO_QUESTIONS, "the dataset item has no assessment questions")

Every rubric here starts ``ref_``: the definition reader refuses that prefix to a team's rubric unless it reads
the reference, and refuses the names computed in code outright, so no row of a team's rubric lands on one of these.
A result that could not be judged (no reference, no questions, no LLM, no embedder) says so with the verdict
``unjudged``: never a pass, ``confident=False``, score 0, and its reason in ``details`` as ``{"unjudged": reason}``
(the cascade marks a pair the spending cap kept from the LLM the same way); a comparison leaves such rows out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .definition import COMPUTED_REFERENCE_RUBRICS, DEFINITIONS_DIR, JudgeDefinition, load_definition
from .verdicts import ERROR, RubricResult, SummaryCase

REF_LENGTH, REF_FORMAT, REF_DRIFT, REF_TRI_GATE, REF_COVERAGE = COMPUTED_REFERENCE_RUBRICS
# the LLM judge of recall against the reference: a judge definition a team may edit like the built-ins
RECALL: JudgeDefinition = load_definition(DEFINITIONS_DIR / "reference_recall.toml")
REF_RECALL = RECALL.name
REFERENCE_RUBRICS: tuple[str, ...] = (REF_LENGTH, REF_FORMAT, REF_DRIFT, REF_TRI_GATE, REF_RECALL, REF_COVERAGE)

# verdicts in code, best (passing) first; ref_recall's are its definition's
_VERDICTS: dict[str, tuple[str, ...]] = {
    REF_LENGTH: ("in_range", "too_short", "too_long"),
    REF_FORMAT: ("clean", "off_format"),
    REF_DRIFT: ("aligned", "drifted"),
    REF_TRI_GATE: ("pass", "fail"),
    REF_COVERAGE: ("covered", "uncovered"),
}
VERDICTS: dict[str, tuple[str, ...]] = {**_VERDICTS, REF_RECALL: RECALL.overall}
FAILURE_MODES: dict[str, tuple[str, ...]] = {
    REF_LENGTH: ("under_reference_length", "over_reference_length"),
    REF_FORMAT: ("chatty_preamble", "filler_phrases", "meta_commentary", "markdown_structure"),
    REF_DRIFT: ("semantic_drift",),
    REF_TRI_GATE: ("under_reference_length", "over_reference_length", "chatty_preamble", "filler_phrases",
                   "meta_commentary", "markdown_structure", "semantic_drift"),
    REF_RECALL: RECALL.mode_names,
    REF_COVERAGE: ("unanswered_question", "contradicted_question"),
}

UNJUDGED = "unjudged"
# why a rubric is unjudged (``details[0]["unjudged"]``)
NO_REFERENCE, NO_QUESTIONS, NO_LLM, NO_EMBEDDER = "no_reference", "no_questions", "no_llm", "no_embedder"
NO_SOURCE_ANSWER = "no_source_answer"  # the source answers none of the questions "yes": nothing to cover
GATE_UNJUDGED = "gate_unjudged"  # the tri-gate: one of its gates is unjudged


@dataclass(frozen=True)
class ReferenceCase:
    """One experiment item's output: the source, the candidate summary, and what the dataset item carries."""

    source: str
    summary: str
    reference: str = ""  # the reference (gold) summary; blank: none
    questions: tuple[str, ...] = ()  # assessment questions, each answerable yes / no / unknown
    band: str | None = None
    domain: str | None = None

    @property
    def has_reference(self) -> bool:
        return bool(self.reference.strip())

    @property
    def summary_case(self) -> SummaryCase:
        """The case as the LLM judge reads it, the reference included."""
        return SummaryCase(self.source, self.summary, band=self.band, domain=self.domain, reference=self.reference)


def reference_result(rubric: str, verdict: str, *, score: float, **kw: Any) -> RubricResult:
    """A result of a rubric computed in code; it passes when its verdict is the rubric's first."""
    allowed = _VERDICTS.get(rubric)
    if allowed is None:
        raise ValueError(f"{rubric!r} is not a reference rubric computed in code ({', '.join(_VERDICTS)})")
    if verdict not in allowed:
        raise ValueError(f"{verdict!r} is not a {rubric} verdict (one of {', '.join(allowed)})")
    mode = kw.get("failure_mode", "")
    if mode and mode not in FAILURE_MODES[rubric]:
        raise ValueError(f"{mode!r} is not a {rubric} failure mode (one of {', '.join(FAILURE_MODES[rubric])})")
    return RubricResult(rubric, verdict, max(0.0, min(1.0, float(score))), verdict == allowed[0], **kw)


def unjudged(rubric: str, reason: str, why: str, **kw: Any) -> RubricResult:
    """A rubric that cannot be judged here, saying why: never a pass, never confident."""
    return RubricResult(rubric, UNJUDGED, 0.0, False, explanation=f"Not judged: {why}.", confident=False,
                        details=({UNJUDGED: reason},), **kw)


def failed(rubric: str, error: str, **kw: Any) -> RubricResult:
    """A judge that was asked and could not answer (the LLM's errors): verdict ``error``, never a pass."""
    return RubricResult(rubric, ERROR, 0.0, False, error=error,
                        explanation=f"The LLM gave no usable answer: {error}", **kw)


def is_unjudged(result: RubricResult) -> bool:
    return result.verdict == UNJUDGED
