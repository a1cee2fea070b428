"""Plotly figures (data, layout, config) built from the store's records; the page hands them to
``Plotly.newPlot`` as they are, so no chart is drawn by hand.

    fig = volume_figure(series)                      # {"data": [...], "layout": {...}, "config": {...}}
    fig = map_figure(points)                         # scattergl, one trace per issue, noise grey

Pure functions: records in, JSON-ready dicts out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from ...store.projections import ProjectionPoint
from ...store.stats import CompareRow

# categorical colors, readable on white (Tableau 10, then a second, lighter set)
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#2f4b7c", "#a05195", "#d45087", "#f95d6a", "#ff7c43", "#00876c", "#6a4c93", "#1982c4", "#8ac926")
NOISE_COLOR = "#c4c4c4"
MAP_LEGEND_ISSUES = 24  # issues with a trace (and legend entry) of their own; the rest share one trace
HOVER_CHARS = 150

Figure = dict[str, Any]


def _config(**extra: Any) -> dict[str, Any]:
    return {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["lasso2d", "select2d"], **extra}


def _layout(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"margin": {"l": 48, "r": 16, "t": 16, "b": 40}, "height": 260,
                            "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
                            "font": {"family": "system-ui, sans-serif", "size": 12},
                            "legend": {"orientation": "h", "y": -0.2}, "hovermode": "x unified"}
    base.update(extra)
    return base


def _iso(value: datetime) -> str:
    return value.isoformat()


def _time_axis(stamps: Sequence[datetime], bucket_s: int, now: datetime | None = None, **extra: Any) -> dict[str, Any]:
    """A date axis that ends where the last bucket ends, or at ``now`` while that bucket is still filling: never
    in the future. Data in fewer than 8 buckets is shown at the right of an 8-bucket window, not stretched over
    its few milliseconds."""
    axis: dict[str, Any] = {"type": "date", **extra}
    if stamps:
        first, last = min(stamps), max(stamps)
        bucket = timedelta(seconds=bucket_s)
        end = last + bucket if now is None else max(last, min(last + bucket, now))
        axis["range"] = [_iso(min(first, end - 8 * bucket)), _iso(end)]
    return axis


def color_of(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def volume_figure(series: Sequence[tuple[datetime, int]], bucket_s: int, now: datetime | None = None) -> Figure:
    """Summarization spans per time bucket (bars start at their bucket and are one bucket wide); the axis ends at
    ``now`` while the last bucket is still filling."""
    return {"data": [{"type": "bar", "name": "spans", "x": [_iso(b) for b, _ in series],
                      "y": [n for _, n in series], "marker": {"color": PALETTE[0]}, "offset": 0,
                      "width": [bucket_s * 1000 * 0.9] * len(series)}],
            "layout": _layout(yaxis={"title": {"text": "spans"}, "rangemode": "tozero"}, showlegend=False,
                              xaxis=_time_axis([b for b, _ in series], bucket_s, now)),
            "config": _config()}


def pass_rate_figure(series: Mapping[str, Sequence[tuple[datetime, int, int]]], bucket_s: int,
                     now: datetime | None = None) -> Figure:
    """Pass rate per rubric per time bucket, one line each; hover gives passed of judged. The axis ends as the
    volume chart's does."""
    data = []
    for i, (rubric, points) in enumerate(sorted(series.items())):
        data.append({"type": "scatter", "mode": "lines+markers", "name": rubric,
                     "x": [_iso(b) for b, _, _ in points],
                     "y": [round(p / t, 4) if t else None for _, p, t in points],
                     "customdata": [[p, t] for _, p, t in points],
                     "hovertemplate": f"{rubric}: %{{y:.1%}} (%{{customdata[0]}} of %{{customdata[1]}})<extra></extra>",
                     "line": {"color": color_of(i)}})
    stamps = [b for points in series.values() for b, _, _ in points]
    return {"data": data, "layout": _layout(yaxis={"title": {"text": "pass rate"}, "tickformat": ".0%",
                                                   "range": [0, 1.02]},
                                            xaxis=_time_axis(stamps, bucket_s, now)),
            "config": _config()}


def sparkline_figure(values: Sequence[int]) -> Figure:
    """Small bars of an issue's traces in each of the last runs, without axes."""
    axis = {"visible": False, "fixedrange": True}
    return {"data": [{"type": "bar", "y": list(values), "marker": {"color": PALETTE[2]}, "hoverinfo": "y"}],
            "layout": {"margin": {"l": 0, "r": 0, "t": 2, "b": 2}, "height": 28, "width": 120, "showlegend": False,
                       "bargap": 0.25, "xaxis": {**axis, "range": [-0.5, max(len(values), 6) - 0.5]},
                       "yaxis": {**axis, "rangemode": "tozero"},
                       "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)"},
            "config": {"staticPlot": True, "displayModeBar": False}}


def history_figure(history: Sequence[Mapping[str, Any]]) -> Figure:
    """An issue's members in each finished run, colored by the status the run gave it."""
    statuses = sorted({str(h["status"]) for h in history})
    order = [_run_label(h["run_at"]) for h in history]
    data = []
    for i, status in enumerate(statuses):
        rows = [h for h in history if h["status"] == status]
        data.append({"type": "bar", "name": status, "x": [_run_label(h["run_at"]) for h in rows],
                     "y": [h["members"] for h in rows], "marker": {"color": color_of(i)},
                     "hovertemplate": f"%{{x}}: %{{y}} failures ({status})<extra></extra>"})
    # one bar per run, in run order, however far apart the runs were
    return {"data": data, "layout": _layout(barmode="stack", hovermode="closest", showlegend=True,
                                            bargap=max(0.2, 1 - 0.12 * len(order)),  # a lone run is no wall
                                            xaxis={"type": "category", "categoryorder": "array",
                                                   "categoryarray": order},
                                            yaxis={"title": {"text": "failures"}, "rangemode": "tozero"}),
            "config": _config()}


def _run_label(run_at: str) -> str:
    return run_at.replace("T", " ")[:19]


def compare_figure(rows: Sequence[CompareRow]) -> Figure:
    """Pass rate per rubric for each group, with the 95% interval as error bars."""
    groups = sorted({r.group for r in rows})
    data = []
    for i, group in enumerate(groups):
        mine = sorted((r for r in rows if r.group == group), key=lambda r: r.rubric)
        data.append({"type": "bar", "name": group or "(none)", "x": [r.rubric for r in mine],
                     "y": [r.rate for r in mine], "marker": {"color": color_of(i)},
                     "customdata": [[r.passed, r.total, r.low, r.high] for r in mine],
                     "hovertemplate": "%{x}: %{y:.1%} (%{customdata[0]} of %{customdata[1]}; "
                                      "95% CI %{customdata[2]:.1%} to %{customdata[3]:.1%})<extra>"
                                      + (group or "(none)") + "</extra>",
                     "error_y": {"type": "data", "symmetric": False,
                                 "array": [round(r.high - r.rate, 4) for r in mine],
                                 "arrayminus": [round(r.rate - r.low, 4) for r in mine]}})
    return {"data": data, "layout": _layout(barmode="group", hovermode="closest", showlegend=True,
                                            yaxis={"title": {"text": "pass rate"}, "tickformat": ".0%",
                                                   "range": [0, 1.05]}),
            "config": _config()}


_LINES = re.compile(r".{1,60}(?=\s|$)|\S{61,}")  # lines of up to 60 characters, broken at spaces


def _hover(text: str) -> str:
    """The failure text for a hover box: one line of at most ``HOVER_CHARS``, wrapped at about 60 characters,
    and literal (Plotly reads a small HTML subset in hover text)."""
    flat = " ".join(text.split())
    if len(flat) > HOVER_CHARS:
        flat = flat[:HOVER_CHARS - 1] + "…"
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "<br>".join(line.strip() for line in _LINES.findall(flat))


def map_figure(points: Sequence[ProjectionPoint], titles: Mapping[str, str] | None = None) -> Figure:
    """The failures in 2D: one WebGL trace per large issue, the other issues in one trace, noise grey.
    Each point's ``customdata`` is the path of its trace page, which a click opens."""
    titles = titles or {}
    sizes: dict[str, int] = {}
    for p in points:
        if p.issue_id:
            sizes[p.issue_id] = sizes.get(p.issue_id, 0) + 1
    ranked = sorted(sizes, key=lambda i: (-sizes[i], _number(i)))
    own = {issue: n for n, issue in enumerate(ranked[:MAP_LEGEND_ISSUES])}
    buckets: dict[str, list[ProjectionPoint]] = {}
    for p in points:
        key = p.issue_id if p.issue_id in own else ("~other" if p.issue_id else "~noise")
        buckets.setdefault(key, []).append(p)
    data = []
    for key in [*ranked[:MAP_LEGEND_ISSUES], "~other", "~noise"]:
        members = buckets.get(key)
        if not members:
            continue
        color: str | list[str]
        if key == "~noise":
            name, color = f"noise ({len(members)})", NOISE_COLOR
        elif key == "~other":
            name, color = f"other issues ({len(members)})", [color_of(len(own) + _number(p.issue_id or ""))
                                                              for p in members]
        else:
            name = f"{key} {_clip(titles.get(key, ''), 40)}".strip() + f" ({len(members)})"
            color = color_of(own[key])
        data.append({"type": "scattergl", "mode": "markers", "name": name,
                     "x": [round(p.x, 3) for p in members], "y": [round(p.y, 3) for p in members],
                     "customdata": [f"/traces/{p.trace_id}#span-{p.span_id}" for p in members],
                     "text": [f"<b>{p.issue_id or 'noise'}</b> {p.rubric}<br>{_hover(p.text)}" for p in members],
                     "hovertemplate": "%{text}<extra></extra>",
                     "marker": {"color": color, "size": 6 if len(points) > 5000 else 8, "opacity": 0.8}})
    axis = {"showgrid": False, "zeroline": False, "showticklabels": False, "title": {"text": ""}}
    return {"data": data, "layout": _layout(height=620, hovermode="closest", xaxis=axis, yaxis=axis,
                                            legend={"orientation": "v", "x": 1.01, "y": 1},
                                            margin={"l": 8, "r": 8, "t": 8, "b": 8}),
            "config": _config(scrollZoom=True)}


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"


def _number(issue_id: str) -> int:
    digits = issue_id.rpartition("-")[2]
    return int(digits) if digits.isdigit() else 0
