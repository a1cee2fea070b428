"""`sumwatch sample` (score unscored spans) and `sumwatch scores` (list them)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ..settings.values import parse_workers
from ._shared import (
    DbOption,
    FormatOption,
    HomeOption,
    JsonOption,
    OutputOption,
    action_progress,
    check_rubric_name,
    download,
    fail,
    flag,
    limit_option,
    load_settings,
    open_client,
    out,
    own_settings_for,
    print_json,
    rubric_read,
    table,
)


def _shard(value: str | None) -> tuple[int, int]:
    if not value:
        return (0, 1)
    index, sep, count = value.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        fail(f"--shard must be i/N with 0 <= i < N (e.g. 0/4), got {value!r}")
    return int(index), int(count)


def _workers(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_workers(value)
    except ValueError as exc:
        fail(f"--{exc}")


def sample(all_spans: bool = flag(False, "--all",
                                  help="Ignore the watermark: consider every stored span "
                                       "(backfills, new judge versions). Nothing is scored twice."),
           rate: float | None = typer.Option(None, "--rate", min=0.0, max=1.0, help="Share of traces to score."),
           shard: str | None = typer.Option(None, "--shard", help="i/N: this sampler's share of the work."),
           limit: int | None = typer.Option(None, "--limit", min=1, help="Stop after this many spans."),
           workers: str | None = typer.Option(None, "--workers",
                                              help="Processes that run the sentence model: N, or auto (0) for one "
                                                   "per usable CPU over SUMWATCH_MODEL_THREADS (default "
                                                   "SUMWATCH_SAMPLER_WORKERS, auto). Same scores whatever N."),
           mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
           events: bool | None = flag(None, "--events/--no-events",
                                      help="Also write gen_ai.evaluation.result events into otel_traces "
                                           "(default SUMWATCH_EVAL_EVENTS, off)."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Score unscored summarization spans on the four rubrics (one pass)."""
    from ..views.client import ScoreRequest  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home)
    shard_pair = _shard(shard)
    processes = _workers(workers)
    with open_client(settings, note="scoring through it") as client:
        carried = own_settings_for(client, settings, "sample")
        request = ScoreRequest(all=all_spans, rate=rate if rate is not None else carried.get("rate"),
                               shard=f"{shard_pair[0]}/{shard_pair[1]}", limit=limit,
                               mode=mode or carried.get("mode"),
                               events=events if events is not None else carried.get("events"),
                               workers=processes if processes is not None else carried.get("workers"))
        with action_progress("scoring") as on_progress:
            report = client.score(request, on_progress=on_progress)
    if json_:
        print_json(report)
        return
    out.print(f"scored {report.scored_spans} spans ({report.score_rows} rubric scores) with {report.judge_version} "
              f"in {report.seconds:.1f}s on {report.workers} model process{'es' if report.workers != 1 else ''}"
              + f"; {report.failing} with a failing rubric, {report.errors} judge errors"
              + (f", {report.skipped_no_text} without text" if report.skipped_no_text else "")
              + (f"; {report.llm_requests} LLM judgements, ${report.spent_usd:.4f}" if report.llm_requests else ""))


def scores(trace: str | None = typer.Option(None, "--trace", help="Only this trace (32-hex id)."),
           rubric: str | None = typer.Option(None, "--rubric", help="Only this rubric: groundedness | "
                                                                     "completeness | factuality | conciseness, "
                                                                     "or one of your own."),
           failing: bool = flag(False, "--failing", help="Only failing scores."),
           limit: int = limit_option(50, "How many scores, newest first"),
           output: Path | None = OutputOption, format_: str | None = FormatOption,
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List rubric scores, newest first; `--output F` takes them all out."""
    from ..store.traces import normalize_trace_id  # noqa: PLC0415 - start-up: a command imports what it runs

    check_rubric_name(rubric)
    try:
        trace = normalize_trace_id(trace) if trace is not None else None
    except ValueError as exc:
        fail(str(exc))
    with open_client(load_settings(db, home)) as client, rubric_read():
        if output is not None:
            download(client, "scores", output, format_, trace=trace, rubric=rubric,
                     failing="true" if failing else None)
            return
        rows = client.scores(trace_id=trace, rubric=rubric, failing=failing, limit=limit)
    if json_:
        print_json(rows)
        return
    if not rows:
        out.print("no scores yet: run `sumwatch sample`")
        return
    out.print(table(f"{len(rows)} scores", ["rubric\nverdict", "score\ntier", "trace id / failure mode / evidence"],
                     [(f"{r.rubric}\n{r.verdict}", f"{r.score:.2f}\n{r.tier}",
                       f"{r.trace_id}" + (f" · {escape(r.failure_mode)}" if r.failure_mode else "")
                       + f"\n[dim]{escape((r.error or r.evidence)[:160])}[/dim]") for r in rows], text_width=34))
