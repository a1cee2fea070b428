"""Evidence marking, the filter bar's buckets and the map figure as pure functions."""

from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.store.projections import ProjectionPoint
from sumwatch.monitor.views.dashboard import charts
from sumwatch.monitor.views.dashboard.evidence import evidence_phrases, highlight
from sumwatch.monitor.views.dashboard.query import BadRequest, display_bucket, filter_choice


def test_each_quoted_phrase_of_every_judge_format_is_found():
    assert evidence_phrases('summary: "rose 21%" | source: "rose 12%"') == ("rose 21%", "rose 12%")
    assert evidence_phrases('summary "Port Adair" vs source "Quarry Avenue Bridge"; summary "x"') == (
        "Port Adair", "Quarry Avenue Bridge")  # a one-letter quote would mark every x
    assert evidence_phrases('fact: "The council approved the rebuild…"') == ("The council approved the rebuild",)
    assert evidence_phrases("summary: 13 words | band abstract: 60-150") == ()
    assert evidence_phrases('summary: "a b"', 'source: "a b"') == ("a b",)


def test_marks_go_where_the_phrase_stands_whatever_its_case_and_spacing():
    marked = highlight("Revenue ROSE\n 12% in May, not 112%.", ["rose 12%", "12%"])
    assert marked == "Revenue <mark>ROSE\n 12%</mark> in May, not 112%."
    # overlapping phrases make one mark; the rest of the text is escaped, the marks are not
    assert highlight("<b>Port Adair</b> & co", ["Port Adair", "Adair</b>"]) == \
        "&lt;b&gt;<mark>Port Adair&lt;/b&gt;</mark> &amp; co"
    assert highlight("nothing here", ["absent"]) == "nothing here"


def test_the_filter_bar_reads_its_range_and_refuses_others():
    now = datetime(2026, 3, 2, 12, tzinfo=timezone.utc)
    choice = filter_choice({"range": "24h", "service": " digest "}, now)
    assert choice.filters.start == now - timedelta(hours=24) and choice.filters.service == "digest"
    assert choice.filters.model is None and filter_choice({"range": "all"}, now).filters.start is None
    with pytest.raises(BadRequest, match="range must be one of"):
        filter_choice({"range": "2y"}, now)


def test_chart_buckets_fit_the_data_actually_there():
    t0 = datetime(2026, 3, 2, tzinfo=timezone.utc)
    assert display_bucket(t0, t0 + timedelta(hours=1), 60) == 60
    assert display_bucket(t0, t0 + timedelta(days=2), 60) == 3600
    assert display_bucket(t0, t0 + timedelta(days=6), 600) == 3 * 3600


def test_the_map_gives_big_issues_a_trace_each_the_rest_one_and_noise_grey():
    points = [ProjectionPoint(f"{i:032x}", f"{i:016x}", "factuality", i, -i, f"SW-{i % 40 + 1}" if i % 5 else None,
                              "<script>x</script>") for i in range(400)]
    fig = charts.map_figure(points, {"SW-2": "Numbers changed"})
    traces = fig["data"]
    assert {t["type"] for t in traces} == {"scattergl"}
    assert sum(len(t["x"]) for t in traces) == 400
    assert len(traces) == charts.MAP_LEGEND_ISSUES + 2  # the largest issues, "other issues", noise
    noise = traces[-1]
    assert noise["name"] == "noise (80)" and noise["marker"]["color"] == charts.NOISE_COLOR
    assert any(t["name"].startswith("SW-2 Numbers changed") for t in traces)
    assert traces[0]["customdata"][0] == f"/traces/{points[1].trace_id}#span-{points[1].span_id}"
    assert "&lt;script&gt;" in traces[0]["text"][0] and "<script>" not in traces[0]["text"][0]
