"""`sumwatch sample` (score unscored spans) and `sumwatch scores` (list them)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    build_judges,
    fail,
    flag,
    limit_option,
    load_settings,
    open_reader,
    out,
    print_json,
    progress_bars,
    refused,
    table,
)


def _shard(value: str | None) -> tuple[int, int]:
    if not value:
        return (0, 1)
    index, sep, count = value.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        fail(f"--shard must be i/N with 0 <= i < N (e.g. 0/4), got {value!r}")
    return int(index), int(count)


def sample(all_spans: bool = flag(False, "--all",
                                  help="Ignore the watermark: consider every stored span "
                                       "(backfills, new judge versions). Nothing is scored twice."),
           rate: float | None = typer.Option(None, "--rate", min=0.0, max=1.0, help="Share of traces to score."),
           shard: str | None = typer.Option(None, "--shard", help="i/N: this sampler's share of the work."),
           limit: int | None = typer.Option(None, "--limit", min=1, help="Stop after this many spans."),
           mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
           events: bool | None = flag(None, "--events/--no-events",
                                      help="Also write gen_ai.evaluation.result events into otel_traces "
                                           "(default SUMWATCH_EVAL_EVENTS, off)."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Score unscored summarization spans on the four rubrics (one pass)."""
    from ..scoring.sampler import PassReport, Sampler
    from ..views.readers import RemoteError, RemoteReader, StoreReader

    settings = load_settings(db, home)
    shard_pair = _shard(shard)
    with open_reader(settings, note="scoring through it") as reader:
        if isinstance(reader, RemoteReader):
            body = {"all": all_spans, "rate": rate, "shard": f"{shard_pair[0]}/{shard_pair[1]}", "limit": limit,
                    "mode": mode, "events": events}
            try:
                report = PassReport(**reader.post("/api/actions/score", body, wait=True))
            except RemoteError as exc:
                refused(exc)
        else:
            assert isinstance(reader, StoreReader)
            cascade = build_judges(settings, mode)
            with progress_bars() as progress:
                try:
                    sampler = Sampler.from_settings(reader.store, cascade, settings, rate=rate, shard=shard_pair,
                                                    eval_events=events)
                except ValueError as exc:
                    fail(str(exc))
                task = progress.add_task("scoring", total=None)
                report = sampler.run_pass(all_spans=all_spans, limit=limit,
                                          on_progress=lambda seen, scored: progress.update(task, completed=scored))
    if json_:
        print_json(report.to_json())
        return
    out.print(f"scored {report.scored_spans} spans ({report.score_rows} rubric scores) with {report.judge_version} "
              f"in {report.seconds:.1f}s; {report.failing} with a failing rubric, {report.errors} judge errors"
              + (f", {report.skipped_no_text} without text" if report.skipped_no_text else "")
              + (f"; {report.llm_requests} LLM judgements, ${report.spent_usd:.4f}" if report.llm_requests else ""))


def scores(trace: str | None = typer.Option(None, "--trace", help="Only this trace (32-hex id)."),
           rubric: str | None = typer.Option(None, "--rubric", help="Only this rubric: groundedness | "
                                                                     "completeness | factuality | conciseness."),
           failing: bool = flag(False, "--failing", help="Only failing scores."),
           limit: int = limit_option(50, "How many scores, newest first"),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List rubric scores, newest first."""
    from ..rubrics.verdicts import RUBRICS
    from ..store.traces import normalize_trace_id

    if rubric is not None and rubric not in RUBRICS:
        fail(f"unknown rubric {rubric!r} (one of {', '.join(RUBRICS)})")
    try:
        trace = normalize_trace_id(trace) if trace is not None else None
    except ValueError as exc:
        fail(str(exc))
    with open_reader(load_settings(db, home)) as reader:
        rows = reader.scores(trace_id=trace, rubric=rubric, failing=failing, limit=limit)
    if json_:
        print_json([r.to_json() for r in rows])
        return
    if not rows:
        out.print("no scores yet: run `sumwatch sample`")
        return
    out.print(table(f"{len(rows)} scores", ["rubric\nverdict", "score\ntier", "trace id / failure mode / evidence"],
                     [(f"{r.rubric}\n{r.verdict}", f"{r.score:.2f}\n{r.tier}",
                       f"{r.trace_id}" + (f" · {escape(r.failure_mode)}" if r.failure_mode else "")
                       + f"\n[dim]{escape((r.error or r.evidence)[:160])}[/dim]") for r in rows], text_width=34))
