"""The judge cascade: cheapest tier first, the LLM only where the cheaper tiers cannot settle a case.

    cascade = Cascade(rules=RulesJudge(), embeddings=EmbeddingJudge(), llm=LLMJudge(config), mode="ambiguous")
    results = cascade.score_batch([SummaryCase(source, summary, band="tldr")])[0]
    results["factuality"].verdict, results["factuality"].tier

Each tier is a stage with one job and can be swapped (any object with the same methods):
- rules: ``judge(rubric, case) -> RubricResult`` (always answers; ``confident`` says if it settled it)
- embeddings: ``judge_batch(cases) -> list[dict[rubric, RubricResult]]`` (may omit a rubric)
- llm: ``ajudge_many([(rubric, case), ...]) -> list[RubricResult]`` and ``version``

Modes: ``off`` never calls the LLM; ``ambiguous`` (the default with an LLM) sends only unsettled
rubric/case pairs; ``always`` sends every pair except conciseness, which the rules decide entirely.
A deterministic failure found by the rules (quoted evidence) stands in every mode. An LLM error is
the final verdict (``error``): never a pass, and the sampler retries it on its next pass.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from .verdicts import CONCISENESS, RUBRICS, RubricResult, SummaryCase

MODES = ("off", "ambiguous", "always")
CASCADE_VERSION = "cascade-1"


class RulesTier(Protocol):
    version: str

    def judge(self, rubric: str, case: SummaryCase) -> RubricResult: ...


class EmbeddingTier(Protocol):
    version: str

    def judge_batch(self, cases: list[SummaryCase]) -> list[dict[str, RubricResult]]: ...


class LLMTier(Protocol):
    version: str

    async def ajudge_many(self, items: list[tuple[str, SummaryCase]]) -> list[RubricResult]: ...


class Cascade:
    def __init__(self, rules: RulesTier, embeddings: EmbeddingTier | None = None, llm: LLMTier | None = None,
                 mode: str | None = None, rubrics: Sequence[str] = RUBRICS) -> None:
        mode = mode or ("ambiguous" if llm is not None else "off")
        if mode not in MODES:
            raise ValueError(f"judge mode must be one of {', '.join(MODES)}, got {mode!r}")
        if mode != "off" and llm is None:
            raise ValueError(f"judge mode {mode!r} needs an LLM: configure a model (SUMWATCH_LLM_MODEL) or use 'off'")
        _check_rubrics(rubrics)
        self.rules, self.embeddings, self.llm, self.mode = rules, embeddings, llm, mode
        self.rubrics = tuple(rubrics)
        self.llm_requests = 0  # rubric/case pairs sent to the LLM, for the ambiguous-vs-always saving

    @property
    def version(self) -> str:
        """Identifies the judge configuration; scores are keyed by it."""
        parts = [CASCADE_VERSION, self.rules.version]
        if self.embeddings is not None:
            parts.append(self.embeddings.version)
        if self.llm is not None and self.mode != "off":
            parts.append(f"{self.llm.version}@{self.mode}")
        return "/".join(parts)

    def _offline(self, cases: list[SummaryCase], rubrics: Sequence[str]
                 ) -> tuple[list[dict[str, RubricResult]], list[tuple[int, str]]]:
        """Rules then embeddings; returns the results so far and the (case, rubric) pairs for the LLM."""
        by_embedding = self.embeddings.judge_batch(cases) if self.embeddings is not None else [{} for _ in cases]
        results: list[dict[str, RubricResult]] = []
        escalate: list[tuple[int, str]] = []
        for i, case in enumerate(cases):
            out: dict[str, RubricResult] = {}
            for rubric in rubrics:
                ruled = self.rules.judge(rubric, case)
                decided = _settle(ruled, by_embedding[i].get(rubric))
                out[rubric] = decided
                if rubric == CONCISENESS or self.mode == "off":
                    continue
                deterministic_failure = ruled.confident and not ruled.passed
                if (self.mode == "always" and not deterministic_failure
                        or self.mode == "ambiguous" and not decided.confident):
                    escalate.append((i, rubric))
            results.append(out)
        return results, escalate

    async def ascore_batch(self, cases: Sequence[SummaryCase],
                           rubrics: Sequence[str] | None = None) -> list[dict[str, RubricResult]]:
        cases = list(cases)
        chosen = _check_rubrics(rubrics) if rubrics is not None else self.rubrics
        results, escalate = self._offline(cases, chosen)
        if escalate:
            assert self.llm is not None
            self.llm_requests += len(escalate)
            answers = await self.llm.ajudge_many([(rubric, cases[i]) for i, rubric in escalate])
            for (i, rubric), answer in zip(escalate, answers):
                results[i][rubric] = answer
        return results

    def score_batch(self, cases: Sequence[SummaryCase],
                    rubrics: Sequence[str] | None = None) -> list[dict[str, RubricResult]]:
        """Synchronous form (runs the LLM part on a private event loop)."""
        return asyncio.run(self.ascore_batch(cases, rubrics))

    def score(self, case: SummaryCase) -> dict[str, RubricResult]:
        return self.score_batch([case])[0]


def _check_rubrics(rubrics: Sequence[str]) -> tuple[str, ...]:
    unknown = set(rubrics) - set(RUBRICS)
    if unknown:
        raise ValueError(f"unknown rubrics: {', '.join(sorted(unknown))}")
    return tuple(rubrics)


def _settle(ruled: RubricResult, embedded: RubricResult | None) -> RubricResult:
    """The offline verdict for one rubric. A rules failure stands (embeddings cannot see a flipped
    negation or a swapped name, so their "supported" cannot overturn one), as does a confident rules
    pass. Where the rules passed without being sure, a confident embedding result decides; when neither
    tier is sure, the rules verdict stays (an unsettled case is not a failure without a judge to settle
    it) with the embedding tier's finer score and confident=False, so ``ambiguous`` mode still sends it
    to the LLM and rankings still see the doubt."""
    if ruled.confident or not ruled.passed or embedded is None:
        return ruled
    if embedded.confident:
        return embedded
    return ruled.with_(score=min(ruled.score, embedded.score), confident=False,
                       explanation=(ruled.explanation + " " if ruled.explanation else "")
                       + f"Embedding tier unsure ({embedded.verdict}, {embedded.score:.2f}).")
