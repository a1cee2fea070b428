"""Two experiments on the same items, compared per rubric: pass rates, the paired difference with a 95% interval,
an exact McNemar test, and the items that regressed or were fixed.

    pairs = {"item-1": (True, False), "item-2": (True, True), ...}     # item -> (base passed, candidate passed)
    diff = paired_difference("factuality", pairs)
    diff.delta, diff.low, diff.high          # -0.10 (-0.14, -0.06): the candidate passes 10 points less
    diff.p_value, diff.regressed, diff.fixed # McNemar's exact p; the items pass -> fail and fail -> pass
    diff.is_regression                       # True: a drop beyond noise (the gate's exit 1)

Only items both experiments judged are paired; an item either one could not judge is counted apart, never as a
pass or a fail. A drop is "beyond noise" when both hold: the whole 95% interval of the difference lies below zero
(a paired bootstrap over items, seeded, so the same runs give the same answer) and McNemar's exact two-sided test
on the discordant items rejects at 5%. Asking for both keeps the gate from failing a change on chance alone:
two runs of the same nondeterministic summarizer differ on a few items in both directions, which neither test
calls a regression, while a change that breaks a tenth of the items fails both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

RESAMPLES = 4000  # bootstrap resamples: the interval's ends move by well under a point between seeds
SEED = 20261202
ALPHA = 0.05


@dataclass(frozen=True)
class PairedDifference:
    """One rubric's comparison of a candidate with its base on the items both judged."""

    rubric: str
    paired: int  # items both experiments judged
    base_passed: int
    candidate_passed: int
    delta: float  # candidate pass rate - base pass rate, on the paired items
    low: float  # 95% interval of delta (paired bootstrap)
    high: float
    p_value: float  # McNemar's exact two-sided test on the discordant items
    regressed: list[str] = field(default_factory=list)  # passed in the base, failed in the candidate
    fixed: list[str] = field(default_factory=list)  # failed in the base, passed in the candidate
    unpaired: int = 0  # items only one experiment (or neither) could judge

    @property
    def base_rate(self) -> float | None:
        return self.base_passed / self.paired if self.paired else None

    @property
    def candidate_rate(self) -> float | None:
        return self.candidate_passed / self.paired if self.paired else None

    @property
    def is_regression(self) -> bool:
        """A drop beyond noise: the interval is below zero and McNemar's test rejects at 5%."""
        return self.paired > 0 and self.high < 0 and self.p_value < ALPHA

    @property
    def is_improvement(self) -> bool:
        return self.paired > 0 and self.low > 0 and self.p_value < ALPHA


def paired_difference(rubric: str, pairs: Mapping[str, tuple[bool | None, bool | None]], *,
                      resamples: int = RESAMPLES, seed: int = SEED) -> PairedDifference:
    """Compare on the items of ``pairs`` (item -> (base passed, candidate passed), None where not judged)."""
    both = {item: (b, c) for item, (b, c) in pairs.items() if b is not None and c is not None}
    regressed = sorted(item for item, (b, c) in both.items() if b and not c)
    fixed = sorted(item for item, (b, c) in both.items() if c and not b)
    n = len(both)
    base_passed = sum(1 for b, _ in both.values() if b)
    candidate_passed = sum(1 for _, c in both.values() if c)
    if n == 0:
        return PairedDifference(rubric, 0, 0, 0, 0.0, 0.0, 0.0, 1.0, unpaired=len(pairs))
    low, high = bootstrap_interval(len(regressed), len(fixed), n, resamples=resamples, seed=seed)
    return PairedDifference(rubric, n, base_passed, candidate_passed, (candidate_passed - base_passed) / n,
                            low, high, mcnemar_exact(len(regressed), len(fixed)), regressed, fixed,
                            unpaired=len(pairs) - n)


def bootstrap_interval(regressed: int, fixed: int, n: int, *, resamples: int = RESAMPLES,
                       seed: int = SEED) -> tuple[float, float]:
    """The 95% percentile interval of the paired difference in pass rate, resampling the ``n`` items with
    replacement. Each item's difference is -1 (regressed), +1 (fixed) or 0, so a resample is a multinomial draw
    of those three counts."""
    if n == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, [regressed / n, fixed / n, (n - regressed - fixed) / n], size=resamples)
    deltas = (draws[:, 1] - draws[:, 0]) / n
    low, high = np.quantile(deltas, [ALPHA / 2, 1 - ALPHA / 2])
    return float(low), float(high)


def mcnemar_exact(regressed: int, fixed: int) -> float:
    """McNemar's exact two-sided p-value: under no change, each discordant item is equally likely to have gone
    either way, so the smaller count is Binomial(regressed + fixed, 1/2)."""
    discordant = regressed + fixed
    if discordant == 0:
        return 1.0
    smaller = min(regressed, fixed)
    tail = sum(math.comb(discordant, k) for k in range(smaller + 1)) / 2 ** discordant
    return float(min(1.0, 2 * tail))
