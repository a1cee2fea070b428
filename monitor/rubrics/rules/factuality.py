"""Factuality by the rules: a number, date, name, negation or score line that disagrees with the source."""

from __future__ import annotations

from collections.abc import Callable

from ..verdicts import FACTUALITY, RubricResult, SummaryCase
from .claims import FACT_MODE, FACT_VERDICT, analyze
from .scorelines import changed_scorelines
from .source import quote, versus

# a result ("4-1") the source, which states results, does not state: two numbers stated otherwise, the mode the
# factuality definition names for that (and one the offline cascade fails on: 4 flagged, 0 of them consistent,
# on SummEval, SummaC and SummEdits, tests/bench/scoreline_precision.py)
SCORE_MODE = "number_mismatch"


def judge(case: SummaryCase, result: Callable[..., RubricResult]) -> RubricResult:
    changed = changed_scorelines(case.source, case.summary)
    if changed:  # before the number checks, which read "4-1" as two counts the source has
        score = changed[0]
        extra = len(changed) - 1
        also = f" ({extra} more score line{'s' if extra > 1 else ''})" if extra else ""
        return result(
            FACTUALITY, "numerically_wrong", failure_mode=SCORE_MODE, evidence=versus(score.summary, score.source),
            explanation=f"In {quote(score.sentence, 80)}, the score {score.summary} is not a result the source "
                        f"states ({score.source}){also}.", confident=True,
            details=tuple({"claim": c.sentence, "status": "numerically_wrong", "failure_mode": SCORE_MODE,
                           "evidence": versus(c.summary, c.source)} for c in changed))
    analysis = analyze(case.source, case.summary)
    findings = [(c, f) for c in analysis.claims for f in c.findings if f.mode in FACT_VERDICT]
    if findings:
        claim, first = findings[0]
        others = len(findings) - 1
        more = f" ({others} more mismatch{'es' if others > 1 else ''})" if others else ""
        return result(
            FACTUALITY, FACT_VERDICT[first.mode], failure_mode=FACT_MODE.get(first.mode, first.mode),
            evidence=first.evidence, explanation=f"In {quote(claim.text, 80)}, {first.note}{more}.",
            confident=first.confident,
            details=tuple({"claim": c.text, "status": FACT_VERDICT[f.mode],
                           "failure_mode": FACT_MODE.get(f.mode, f.mode), "evidence": f.evidence}
                          for c, f in findings))
    checked = sum(c.checked for c in analysis.claims)
    unsettled = sum(c.unsettled for c in analysis.claims)
    confident = unsettled == 0 and checked > 0 and analysis.support >= 0.7
    why = (f"All {checked} checkable items (numbers, names, dates, negations) agree with the source"
           if confident else f"No mismatch in {checked} checkable items, but {unsettled} could not be checked "
                             f"and lexical support is {analysis.support:.2f}")
    return result(FACTUALITY, "correct", explanation=f"{why}.", confident=confident)
