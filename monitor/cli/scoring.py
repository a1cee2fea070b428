"""`sumwatch sample` (score unscored spans), `sumwatch rescore` (judge stored spans again, on purpose) and
`sumwatch scores` (list them)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    FormatOption,
    HomeOption,
    JsonOption,
    OutputOption,
    action_progress,
    check_rubric_name,
    download,
    err,
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
    from ..settings.values import parse_workers  # noqa: PLC0415 - start-up: a command imports what it runs

    if value is None:
        return None
    try:
        return parse_workers(value)
    except ValueError as exc:
        fail(f"--{exc}")


def sample(all_spans: bool = flag(False, "--all",
                                  help="Ignore the watermark: consider every stored span never judged (old spans "
                                       "never sampled before). States the spans and LLM requests first, and asks "
                                       "on a terminal when it would spend. Judging stored spans again is "
                                       "`sumwatch rescore`."),
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
           yes: bool = flag(False, "--yes", "-y", help="With --all: do not ask before spending."),
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
        if all_spans:
            estimate = client.score_estimate(request)
            _agree(estimate, "sample --all", yes, json_, ask=estimate.llm_requests_max > 0)
        with action_progress("scoring") as on_progress:
            report = client.score(request, on_progress=on_progress)
    _show(report, _pass_line(report), json_)


def rescore(rubric: list[str] | None = typer.Option(None, "--rubric", help="Only this rubric (repeat for more; "
                                                                            "default: every judged rubric)."),
            since: str | None = typer.Option(None, "--since", help="Only spans of this recent window, like 24h or "
                                                                    "7d (default: all stored spans)."),
            service: str | None = typer.Option(None, "--service", help="Only this service's spans."),
            mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
            dry_run: bool = flag(False, "--dry-run", help="State what it would judge and spend, and stop."),
            yes: bool = flag(False, "--yes", "-y", help="Do not ask (needed without a terminal)."),
            db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Judge stored spans again with the judges active now (a new judge version judges new spans only). States
    the spans, LLM requests and cost first, and asks; a weaker tier never replaces a stronger verdict."""
    from ..settings import parse_duration  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.client import RescoreRequest  # noqa: PLC0415 - start-up: a command imports what it runs

    for name in rubric or ():
        check_rubric_name(name)
    if since is not None:
        try:
            parse_duration(since)
        except ValueError as exc:
            fail(f"--since: {exc}")
    if service is not None and not service.strip():
        fail("--service must name a service")
    settings = load_settings(db, home)
    with open_client(settings, note="rescoring through it") as client:
        carried = own_settings_for(client, settings, "sample")
        request = RescoreRequest(rubrics=list(rubric) if rubric else None, since=since, service=service,
                                 mode=mode or carried.get("mode"))
        estimate = client.rescore_estimate(request)
        if dry_run or not estimate.spans:
            _show(estimate, estimate.sentence("rescore would judge" if dry_run else "rescore"), json_)
            return
        _agree(estimate, "rescore", yes, json_, ask=True)
        with action_progress("rescoring") as on_progress:
            report = client.rescore(request, on_progress=on_progress)
    _show(report, _pass_line(report), json_)


def _show(record: Any, line: str, json_: bool) -> None:
    """``record`` as JSON for scripts, else its line."""
    if json_:
        print_json(record)
    else:
        out.print(line, highlight=False)


def _say(line: str, json_: bool) -> None:
    (err if json_ else out).print(line, highlight=False)


def _agree(estimate: Any, what: str, yes: bool, json_: bool, *, ask: bool) -> None:
    """State the estimate; on a terminal ask before going on, without one go on only with --yes."""
    _say(estimate.sentence(what), json_)
    if yes or not ask:
        return
    if not sys.stdin.isatty():
        fail(f"{what} asks before judging: add --yes to go on without a terminal (or --dry-run to look only)")
    if not typer.confirm("Go on?", default=False):
        fail(f"{what}: nothing judged", code=1)


def _pass_line(report: Any) -> str:
    what = "rescored" if report.rescore else "scored"
    cap = (f"; {report.unjudged_cap} left to the cheap tiers at the daily LLM cap "
           f"(${report.spent_today_usd:.4f} of ${report.daily_cap_usd:.2f} spent today)" if report.unjudged_cap else "")
    kept = (f"; {report.kept_stronger} results not stored over a verdict from a stronger source"
            if report.kept_stronger else "")
    return (f"{what} {report.scored_spans} spans ({report.score_rows} rubric scores) with {report.judge_version} "
            f"in {report.seconds:.1f}s on {report.workers} model process{'es' if report.workers != 1 else ''}"
            + f"; {report.failing} with a failing rubric, {report.errors} judge errors"
            + (f", {report.skipped_no_text} without text" if report.skipped_no_text else "")
            + (f"; {report.llm_requests} LLM judgements, ${report.spent_usd:.4f}" if report.llm_requests else "")
            + kept + cap)


def scores(trace: str | None = typer.Option(None, "--trace", help="Only this trace (32-hex id)."),
           rubric: str | None = typer.Option(None, "--rubric", help="Only this rubric: groundedness | "
                                                                     "completeness | factuality | conciseness, "
                                                                     "or one of your own."),
           failing: bool = flag(False, "--failing", help="Only failing scores."),
           limit: int = limit_option(50, "How many scores, newest first"),
           output: Path | None = OutputOption, format_: str | None = FormatOption,
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List rubric scores, newest first; `--output F` takes them all out."""
    from ..contract.traces import normalize_trace_id  # noqa: PLC0415 - start-up: a command imports what it runs

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
