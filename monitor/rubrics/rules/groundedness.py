"""Groundedness by the rules: claims that contradict the source or bring what it lacks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..verdicts import GROUNDEDNESS, RubricResult, SummaryCase
from .claims import CONTRADICTIONS, GROUND_MODE, NOT_GROUNDEDNESS, analyze


def judge(case: SummaryCase, result: Callable[..., RubricResult]) -> RubricResult:
    analysis = analyze(case.source, case.summary)
    rows: list[dict[str, Any]] = []
    contradicted, unsupported = [], []
    for c in analysis.claims:
        hard = [f for f in c.findings if f.mode in CONTRADICTIONS]
        soft = [f for f in c.findings if f.mode not in CONTRADICTIONS and f.mode not in NOT_GROUNDEDNESS]
        if hard:
            status, f = "contradicted", hard[0]
            contradicted.append((c, f))
        elif soft:
            status, f = "unsupported", soft[0]
            unsupported.append((c, f))
        else:
            status, f = "supported", None
        rows.append({"claim": c.text, "status": status, "evidence": f.evidence if f else "",
                     "failure_mode": (GROUND_MODE.get(f.mode, f.mode) if f else "")})
    n = max(len(analysis.claims), 1)
    if contradicted:
        c, f = contradicted[0]
        return result(GROUNDEDNESS, "contradicted", failure_mode="contradicted_claim", evidence=f.evidence,
                            explanation=f"{len(contradicted)} of {n} claims contradict the source: {f.note}.",
                            confident=True, details=tuple(rows))
    if unsupported:
        c, f = unsupported[0]
        share = len(unsupported) / n
        verdict = "missing" if share > 0.5 else "partial"
        score = max(0.05, 0.35 - 0.3 * share) if verdict == "missing" else max(0.3, min(0.8, 1 - share))
        return result(GROUNDEDNESS, verdict, score=score, failure_mode=GROUND_MODE.get(f.mode, f.mode),
                            evidence=f.evidence,
                            explanation=f"{len(unsupported)} of {n} claims go beyond the source: {f.note}.",
                            confident=all(x.confident for _, x in unsupported), details=tuple(rows))
    weak = any(c.weak_cause for c in analysis.claims)
    confident = analysis.support >= 0.85 and not weak and all(c.unsettled == 0 for c in analysis.claims)
    return result(GROUNDEDNESS, "supported", confident=confident, details=tuple(rows),
                        explanation=f"No claim brings numbers, names or causes the source lacks; lexical "
                                    f"support {analysis.support:.2f}.")
