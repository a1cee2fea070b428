"""Rubrics, their verdicts, and the records every judge tier reads and returns. Defined once.

    case = SummaryCase(source=doc, summary=summ, band="tldr")
    result = RubricResult.make("factuality", "numerically_wrong", tier="rules",
                               failure_mode="number_mismatch", evidence='summary "21%" vs source "12%"')
    result.passed  # False

A verdict is always categorical; ``score`` (0..1) is derived from it unless a tier has a finer one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sumwatch.tracer.vocabulary import Choice

from .definition import BUILTIN, BUILTIN_NAMES, JudgeDefinition


class Rubric(Choice):
    """The four built-in rubrics (a team's own judge definitions may add more by name)."""

    GROUNDEDNESS = "groundedness"
    COMPLETENESS = "completeness"
    FACTUALITY = "factuality"
    CONCISENESS = "conciseness"


# the names as plain text: keys of the tables below and of stored rows
GROUNDEDNESS, COMPLETENESS, FACTUALITY, CONCISENESS = Rubric.values()
RUBRICS: tuple[str, ...] = Rubric.values()
assert RUBRICS == BUILTIN_NAMES

# the built-in rubrics' tables, read from their definition files (monitor/rubrics/definitions/*.toml)
# verdict -> default score; the first verdict of each rubric is the passing one
VERDICTS: dict[str, dict[str, float]] = {name: BUILTIN[name].scores for name in RUBRICS}
PASSING: dict[str, frozenset[str]] = {name: BUILTIN[name].passing for name in RUBRICS}
# every verdict that passes some rubric: what a per-claim or per-fact row may say when nothing is wrong
PASSING_ANY: frozenset[str] = frozenset().union(*PASSING.values())
# the verdict of a summary with nothing wrong at all (full score), e.g. a known-good calibration item
CLEAN: dict[str, str] = {rubric: next(iter(verdicts)) for rubric, verdicts in VERDICTS.items()}
ERROR = "error"  # a judge that failed: never a pass, retried on the next sampler pass

RULES, EMBEDDINGS, LEARNED, LLM = "rules", "embeddings", "learned", "llm"
TIERS: tuple[str, ...] = (RULES, EMBEDDINGS, LEARNED, LLM)
HUMAN = "human"  # a person's label of the span (a labelled calibration item that came from it)

# Which verdict of a (span, rubric) counts: the strongest source, then the newest. A person's label outranks
# the LLM, which outranks the cheap tiers (rules, embeddings and the learned model are one rank: each settles
# only what it is sure of). A weaker verdict is never stored over a stronger one (store/scores.py), so every
# read that takes the newest verdict takes the strongest.
TIER_STRENGTH: dict[str, int] = {RULES: 1, EMBEDDINGS: 1, LEARNED: 1, LLM: 2, HUMAN: 3}


def strength(tier: str) -> int:
    """The rank of a verdict's source: ``strength("llm") > strength("rules")``; an unknown tier ranks lowest."""
    return TIER_STRENGTH.get(tier, 1)

# failure modes, by rubric (the finer label under a failing verdict; clustering groups on it)
FAILURE_MODES: dict[str, tuple[str, ...]] = {name: BUILTIN[name].mode_names for name in RUBRICS}


def check_verdict(rubric: str, verdict: str) -> None:
    if rubric not in VERDICTS:
        raise ValueError(f"unknown rubric {rubric!r} (rubrics: {', '.join(RUBRICS)})")
    if verdict != ERROR and verdict not in VERDICTS[rubric]:
        raise ValueError(f"{verdict!r} is not a {rubric} verdict (one of {', '.join(VERDICTS[rubric])})")


@dataclass(frozen=True)
class SummaryCase:
    """What a judge sees: the source, the summary, and what the span says about them."""

    source: str
    summary: str
    band: str | None = None
    expected_facts: tuple[str, ...] = ()
    domain: str | None = None
    # what a cheaper tier suspects, handed to the LLM judge as a lead to check (never as a verdict)
    hint: str = field(default="", compare=False)
    # a reference (gold) summary of the source, from a dataset item: read only by a definition with reference = true
    reference: str = ""


@dataclass(frozen=True)
class RubricResult:
    rubric: str
    verdict: str
    score: float
    passed: bool
    failure_mode: str = ""  # empty when passed
    evidence: str = ""  # quoted text: the summary phrase and, where there is one, the source phrase
    explanation: str = ""
    tier: str = RULES
    judge_version: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    confident: bool = True  # False: this tier could not settle the case (the cascade may escalate)
    error: str = ""  # set with verdict "error"
    details: tuple[dict[str, Any], ...] = field(default=(), compare=False)  # per claim / per fact

    @classmethod
    def make(cls, rubric: str, verdict: str, *, score: float | None = None, **kw: Any) -> RubricResult:
        """A result whose score and passed flag follow from the verdict (unless a score is given)."""
        check_verdict(rubric, verdict)
        if verdict == ERROR:
            return cls(rubric, ERROR, 0.0, False, **kw)
        value = VERDICTS[rubric][verdict] if score is None else float(score)
        return cls(rubric, verdict, max(0.0, min(1.0, value)), verdict in PASSING[rubric], **kw)

    @classmethod
    def judged(cls, definition: JudgeDefinition, verdict: str, **kw: Any) -> RubricResult:
        """A result on any rubric, built-in or a team's own, whose score and passed flag follow from the
        verdict as ``definition`` scores it."""
        if verdict == ERROR:
            return cls(definition.name, ERROR, 0.0, False, **kw)
        if verdict not in definition.scores:
            raise ValueError(f"{verdict!r} is not a {definition.name} verdict (one of {', '.join(definition.overall)})")
        return cls(definition.name, verdict, definition.scores[verdict], verdict in definition.passing, **kw)

    @classmethod
    def failed_judge(cls, rubric: str, error: str, **kw: Any) -> RubricResult:
        """A judge that could not answer, on any rubric (built-in or a team's own): verdict ``error``, never a pass."""
        return cls(rubric, ERROR, 0.0, False, error=error, confident=True, **kw)

    def with_(self, **changes: Any) -> RubricResult:
        return replace(self, **changes)
