"""Completeness by the rules: expected facts found, approximated or absent in the summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import text as tx
from ..bands import band_for
from ..text import Item, ParsedText
from ..verdicts import COMPLETENESS, RubricResult, SummaryCase
from .source import quote


def judge(case: SummaryCase, result: Callable[..., RubricResult]) -> RubricResult:
    band = band_for(case.band)
    words = tx.word_count(case.summary)
    if band and words < band.min_words / 2:
        return result(COMPLETENESS, "absent", failure_mode="under_band_length", confident=True,
                            evidence=f"summary: {words} words | band {band.name}: "
                                     f"{band.min_words}-{band.max_words}",
                            explanation=f"At {words} words the summary is under half the {band.name} minimum "
                                        f"of {band.min_words}; it cannot cover the source.")
    if not case.expected_facts:
        return result(COMPLETENESS, "present", confident=False,
                            explanation="No expected facts to check; coverage is left to a later tier.")
    summary = tx.parse(case.summary, context=case.source)
    numeric = summary.items(*tx.NUMERIC_KINDS)
    dates = frozenset(i.key for i in summary.items(tx.DATE))
    rows = [_fact_status(fact, summary, numeric, dates) for fact in case.expected_facts]
    statuses = [r["status"] for r in rows]
    # Expected facts list what a summary should carry, but a short band cannot hold every one: leaving
    # out a minority of them reads as approximate; leaving out half or more is a summary that is absent.
    absent_share = statuses.count("absent") / len(statuses)
    verdict = ("absent" if absent_share >= 0.5 else
               "approximate" if "absent" in statuses or "approximate" in statuses else "present")
    score = sum({"present": 1.0, "approximate": 0.6, "absent": 0.0}[s] for s in statuses) / len(statuses)
    if verdict == "absent":
        score = min(score, 0.45)
    confident = all(r["checkable"] or r["decisive"] for r in rows)
    missing = [r for r in rows if r["status"] != "present"]
    mode = "missing_expected_fact" if verdict == "absent" else ""  # approximate passes: no failure mode
    evidence = "; ".join(f'fact: {quote(r["fact"], 100)} -> {r["status"]}' for r in missing[:3])
    tally = ", ".join(f"{statuses.count(k)} {k}" for k in ("present", "approximate", "absent") if k in statuses)
    return result(COMPLETENESS, verdict, score=score, failure_mode=mode, evidence=evidence,
                        explanation=f"Of {len(rows)} expected facts in the summary: {tally}.", confident=confident,
                        details=tuple({k: v for k, v in r.items() if k not in ("checkable", "decisive")}
                                      for r in rows))




_FACT_KINDS = tx.NUMERIC_KINDS | {tx.DATE, tx.ENTITY}


def _fact_status(fact: str, summary: ParsedText, summary_numeric: tuple[Item, ...],
                 summary_dates: frozenset[str]) -> dict[str, Any]:
    items = tx.extract_items(fact, kinds=_FACT_KINDS)  # a fact is one statement: no sentence split needed
    numeric = [i for i in items if i.kind in tx.NUMERIC_KINDS]
    dates = [i for i in items if i.kind == tx.DATE]
    names = [i for i in items if i.kind == tx.ENTITY]
    fact_terms = tx.terms(fact)
    found: list[str] = []
    missing: list[str] = []
    for item in numeric:
        (found if any(tx.values_match(item, y) for y in summary_numeric) else missing).append(item.text)
    for item in dates:
        (found if tx.date_supported(item.key, summary_dates) else missing).append(item.text)
    for item in names:
        (found if tx.entity_supported(item, summary) else missing).append(item.text)
    content = {t for t in fact_terms if not t[0].isdigit()}
    coverage = len(content & summary.terms) / len(content) if content else 0.0
    hard = len(found) + len(missing)
    if hard:
        if not missing:
            status = "present" if coverage >= 0.3 else "approximate"
        elif not found:
            status = "approximate" if coverage >= 0.5 else "absent"
        else:
            status = "approximate"
    else:
        status = "present" if coverage >= 0.6 else "approximate" if coverage >= 0.3 else "absent"
    return {"fact": fact, "status": status, "found": tuple(found), "missing": tuple(missing),
            "coverage": round(coverage, 2), "checkable": hard > 0, "decisive": coverage >= 0.8 or coverage <= 0.1}
