"""Length bands: the tracer's band names with limits, checked with the tracer's word counter."""

from __future__ import annotations

from sumwatch.monitor.rubrics.bands import BANDS, CUSTOM, band_for
from sumwatch.monitor.rubrics.rules import RulesJudge
from sumwatch.monitor.rubrics.verdicts import COMPLETENESS, CONCISENESS, SummaryCase
from sumwatch.tracer import semconv, word_count

judge = RulesJudge()
# a long source in other words, so neither compression nor copied runs decide the verdicts below
SOURCE = " ".join(["The plant in Tilbury shipped parcels to customers across the region last week."] * 40)
# 37 words by the tracer's count; 43 whitespace-separated pieces, since each dash is one
DASHED = ("Revenue rose 12% to $4.2 million — net income reached $310,000 — the board rejected the buyback — "
          "outage lasted 188 minutes on March 5 — staff moved the catalogue to Tilbury — sales grew — "
          "shareholders vote on dividends at the meeting.")


def test_the_bands_are_the_tracers_band_names_with_limits():
    assert set(BANDS) | {CUSTOM} == set(semconv.BANDS) and CUSTOM not in BANDS
    assert band_for(CUSTOM) is None and band_for("tldr").max_words == 40
    assert all(b.min_words < b.max_words and 0 < b.min_ratio < b.max_ratio < 1 for b in BANDS.values())


def test_every_band_is_keyed_by_its_own_name():
    assert all(name == band.name and band_for(name) is band for name, band in BANDS.items())
    assert band_for(None) is None and band_for("") is None and band_for("haiku") is None


def test_band_checks_count_words_as_the_tracer_records_them():
    assert (word_count(DASHED), len(DASHED.split())) == (37, 43)
    # 37 words is within the tldr maximum of 40: no length note, though str.split would see 43
    r = judge.judge(CONCISENESS, SummaryCase(source=SOURCE, summary=DASHED, band="tldr"))
    assert (r.verdict, r.failure_mode, r.score) == ("concise", "", 1.0)
    # under half the tldr minimum of 12 by the tracer's count (4), though str.split would see 7
    r = judge.judge(COMPLETENESS, SummaryCase(source=SOURCE, summary="Q3 — revenue — rose — 12%", band="tldr"))
    assert (r.verdict, r.failure_mode) == ("absent", "under_band_length")
    assert r.evidence == "summary: 4 words | band tldr: 12-40"
