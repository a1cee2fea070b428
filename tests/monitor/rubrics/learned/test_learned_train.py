"""The fit keeps its weights non-negative and is deterministic; the cuts follow their stated rules."""

from __future__ import annotations

import numpy as np

from sumwatch.monitor.rubrics.learned.data import LabelledSummary
from sumwatch.monitor.rubrics.learned.evaluate import doubt_cut, precise_fail_cut
from sumwatch.monitor.rubrics.learned.train import alarm_cut, fit, set_weights


def _rows(name: str, labels: list[int]) -> list[LabelledSummary]:
    return [LabelledSummary(name, "source", f"summary {k}", label) for k, label in enumerate(labels)]


def test_the_fit_ranks_by_support_and_never_weighs_a_signal_against_it() -> None:
    rng = np.random.default_rng(0)
    labels = np.array([1] * 200 + [0] * 200)
    support = np.where(labels == 1, 0.8, 0.4) + rng.normal(0, 0.1, 400)
    noise = rng.normal(0, 1, 400)
    # a signal that, in this sample, runs against support: the fit may not use it with a negative sign
    quirk = -support + rng.normal(0, 0.05, 400)
    x = np.column_stack([support, noise, quirk])
    mean, scale, coef, bias = fit(x, labels, np.ones(400))
    assert (coef >= 0).all() and coef[0] > 0.5
    again = fit(x, labels, np.ones(400))
    assert np.array_equal(again[2], coef) and again[3] == bias  # deterministic


def test_each_family_weighs_its_share_whatever_its_size() -> None:
    rows = _rows("halueval", [1] * 300) + _rows("summedits/news", [1] * 10) + _rows("summedits/podcast", [0] * 30)
    w = set_weights(rows)
    assert abs(w[:300].sum() - (w[300:310].sum() + w[310:].sum())) < 1e-6  # HaluEval = SummEdits
    assert abs(w[300:310].sum() - w[310:].sum()) < 1e-6  # SummEdits' domains alike


def test_cuts() -> None:
    scores = [0.05 * k for k in range(20)]
    labels = [0] * 12 + [1] * 8
    assert 0.55 < precise_fail_cut(scores, labels) < 0.6  # all 12 lowest are inconsistent
    assert doubt_cut(scores, labels) == scores[11]  # 90% of the 12 inconsistent fall below it (11 of 12)
    # the alarm cut keeps every set's consistent rows below it to at most 1%: one low outlier in 100 moves it
    rows = _rows("a", [1] * 100) + _rows("b", [1] * 100)
    flat = [0.5] * 100 + [0.02] + [0.5] * 99
    assert alarm_cut(rows, flat) == 0.5
    lower = [0.5] * 100 + [0.02, 0.03] + [0.5] * 98
    assert alarm_cut(rows, lower) == 0.03
