"""Factuality by the rules: a number, date, name or negation that disagrees with the source."""

from __future__ import annotations

from collections.abc import Callable

from ..verdicts import FACTUALITY, RubricResult, SummaryCase
from .claims import FACT_MODE, FACT_VERDICT, analyze
from .source import quote


def judge(case: SummaryCase, result: Callable[..., RubricResult]) -> RubricResult:
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
