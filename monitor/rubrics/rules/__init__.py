"""The rules tier: deterministic checks on the four rubrics, no model and no network.

    judge = RulesJudge()
    result = judge.judge("factuality", SummaryCase(source=doc, summary=summ, band="tldr"))
    result.verdict, result.evidence, result.confident
    # ('numerically_wrong', 'summary: "21% of requests" | source: "12% of requests"', True)

Rules settle what text can settle: a number, date, name or negation that disagrees with the source, a
padded or copied summary, a summary far outside its length band. ``confident=False`` hands the case on
to a later tier (embeddings, then an LLM); conciseness is always settled here.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from ..text import detokenize
from ..verdicts import COMPLETENESS, CONCISENESS, FACTUALITY, GROUNDEDNESS, RULES, RubricResult, SummaryCase
from . import completeness, conciseness, factuality, groundedness
from .conciseness import VERBATIM_RUN

__all__ = ["VERBATIM_RUN", "RulesJudge"]


class RulesJudge:
    """Deterministic judge for all four rubrics, one module per rubric.

        RulesJudge().judge("conciseness", SummaryCase(source=doc, summary="Sure! Here's a summary: ..."))
        # RubricResult(verdict="padded", failure_mode="chatty_preamble", confident=True, ...)
    """

    tier = RULES
    version = "rules-5"  # 2: restatement per sentence, compression where meaningful; 3: day-first dates;
    # 4: names and amounts checked for precision (aliases, surnames, roles, ages, counts, Unicode words);
    # 5: a score line the source does not state fails factuality

    def __init__(self) -> None:
        self._judges = {FACTUALITY: factuality.judge, GROUNDEDNESS: groundedness.judge,
                        COMPLETENESS: completeness.judge, CONCISENESS: conciseness.judge}
        self._result = partial(RubricResult.make, tier=RULES, judge_version=self.version)

    def judge(self, rubric: str, case: SummaryCase) -> RubricResult:
        if rubric not in self._judges:
            raise ValueError(f"unknown rubric {rubric!r} (rubrics: {GROUNDEDNESS}, {COMPLETENESS}, {FACTUALITY}, "
                             f"{CONCISENESS})")
        source, summary = detokenize(case.source), detokenize(case.summary)
        if source is not case.source or summary is not case.summary:
            case = replace(case, source=source, summary=summary)
        return self._judges[rubric](case, self._result)
