"""A deterministic demo workload for sumwatch: documents plus summaries with known failures.

    cases = generate_workload(200, seed=7)

Each :class:`DemoCase` carries a generated document (finance, healthcare, meetings,
news or technology), a summary in one of the :data:`BANDS`, and the failure mode
planted in that summary (``"none"`` for a good one), with the details of what was
changed.  Modes are assigned by largest-remainder rounding of ``n * rate`` and then
shuffled, so the counts per mode match the rates as closely as ``n`` allows.
Only the standard library is used.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from .corpus import DOMAIN_PREFIX, DOMAINS, build_document
from .perturb import BANDS, DEFAULT_RATES, PLANTED_MODES, build_reference, expected_facts
from .planting import MODE_NEEDS, RECAP_MODES, plant

# Ground truth the demo writes on its spans; the scorers never read these.
PLANTED_MODE_ATTR = "sumwatch.demo.planted_mode"
PLANTED_DETAIL_ATTR = "sumwatch.demo.planted_detail"

__all__ = ["BANDS", "DEFAULT_RATES", "DOMAINS", "DemoCase", "PLANTED_MODES", "generate_workload"]

_ALL_MODES = ("none",) + PLANTED_MODES
_PROSE_BANDS = ("tldr", "exec_summary", "abstract")
_RECAP_SHARE = 0.85          # meetings summarised as an action recap when the mode allows it
_FEATURES = ("number", "quant", "entity", "polar", None, None)


@dataclass(frozen=True)
class DemoCase:
    document_id: str          # stable, e.g. "fin-0007"
    domain: str               # "finance" | "healthcare" | "meetings" | "news" | "technology"
    title: str
    source: str               # the document text
    summary: str              # the summary (good or with the planted failure)
    band: str                 # key of BANDS
    planted_mode: str         # "none" or one of PLANTED_MODES
    planted_detail: dict[str, Any]      # JSON-serializable description of the change; {} for none
    expected_facts: tuple[str, ...]   # 3-8 short statements the summary should contain
    reference_summary: str    # the good summary of this document


def _check_rates(rates: Mapping[str, float] | None) -> dict[str, float]:
    if rates is None:
        return dict(DEFAULT_RATES)
    if not isinstance(rates, Mapping):
        raise ValueError(f"rates must be a dict[str, Any] of mode -> probability, got {type(rates).__name__}")
    unknown = sorted(str(k) for k in rates if k not in _ALL_MODES)
    if unknown:
        raise ValueError(f"unknown mode(s) in rates: {unknown}; expected 'none' or one of {list(PLANTED_MODES)}")
    clean: dict[str, float] = {}
    for mode in _ALL_MODES:
        value = rates.get(mode, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"rate for {mode!r} must be a finite number, got {value!r}")
        if value < 0:
            raise ValueError(f"rate for {mode!r} is negative ({value}); rates must be >= 0")
        clean[mode] = float(value)
    total = sum(clean.values())
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"rates must sum to 1.0 (tolerance 1e-6), got {total:.6f}")
    return clean


def _allocate(n: int, rates: dict[str, float]) -> list[str]:
    """Largest-remainder rounding of n * rate, in mode order."""
    quotas = [n * rates[m] for m in _ALL_MODES]
    counts = [math.floor(q + 1e-9) for q in quotas]
    left = n - sum(counts)
    by_remainder = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[:max(left, 0)]:
        counts[i] += 1
    for i in reversed(by_remainder):   # only if rounding overshot
        if left >= 0:
            break
        if counts[i] > 0:
            counts[i] -= 1
            left += 1
    out: list[str] = []
    for mode, count in zip(_ALL_MODES, counts):
        out.extend([mode] * count)
    return out


def generate_workload(n: int, seed: int = 7, rates: dict[str, float] | None = None) -> list[DemoCase]:
    """``n`` demo cases; the same (n, seed, rates) always gives the same list."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"n must be an integer, got {n!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    clean = _check_rates(rates)
    rng = random.Random(seed)
    modes = _allocate(n, clean)
    rng.shuffle(modes)
    domains = [DOMAINS[i % len(DOMAINS)] for i in range(n)]
    rng.shuffle(domains)
    seen = {d: 0 for d in DOMAINS}
    cases: list[DemoCase] = []
    for mode, domain in zip(modes, domains):
        k = seen[domain]
        seen[domain] += 1
        case_rng = random.Random(rng.getrandbits(64))
        doc = build_document(domain, k, case_rng)
        if domain == "meetings" and mode in RECAP_MODES and case_rng.random() < _RECAP_SHARE:
            band = "action_recap"
        else:
            band = _PROSE_BANDS[k % len(_PROSE_BANDS)]
        need = MODE_NEEDS.get(mode) if mode != "none" else None
        if mode == "none" or need is None:
            need = case_rng.choice(_FEATURES)   # good and planted summaries cover the same kinds of facts
        reference = build_reference(doc, band, case_rng, need)
        if mode == "none":
            summary, detail = reference.render(), cast(dict[str, Any], {})
        else:
            planted, detail = plant(mode, reference, doc, case_rng)
            summary = planted.render()
        cases.append(DemoCase(
            document_id=f"{DOMAIN_PREFIX[domain]}-{k + 1:04d}",
            domain=domain,
            title=doc.title,
            source=doc.text,
            summary=summary,
            band=band,
            planted_mode=mode,
            planted_detail=detail,
            expected_facts=expected_facts(doc, reference),
            reference_summary=reference.render(),
        ))
    return cases
