"""`sumwatch traces` and `sumwatch traces show`: summarization spans."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ..contract.listing import TraceFilters
from ..contract.traces import TAGGED
from ._shared import (
    DbOption,
    FormatOption,
    HomeOption,
    JsonOption,
    OutputOption,
    build_model,
    download,
    fail,
    limit_option,
    load_settings,
    model_options,
    open_client,
    option_name,
    out,
    print_json,
    table,
)

traces_app = typer.Typer(invoke_without_command=True, help="Summarization spans.")


_DURATIONS = {"since": "Only spans this recent, like 24h or 7d.", "until": "Only spans older than this, like 1h."}


@traces_app.callback()
@model_options(TraceFilters, "filters", help_of=lambda name, text: _DURATIONS.get(name, text))
def traces(ctx: typer.Context, filters: dict[str, str | None],
           limit: int = limit_option(20, "How many spans, newest first"),
           output: Path | None = OutputOption, format_: str | None = FormatOption,
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List recent summarization spans, searched and filtered (`traces show ID` for one, `traces unsure` for the
    suspicions no LLM confirmed); `--output F` takes them all out, whole."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    bulk = ("service", "domain", "band", "since")  # what a whole export takes
    narrowing = [option_name(TraceFilters, k) for k, v in filters.items() if v and k not in bulk]
    if output is not None and narrowing:
        fail("--output takes --service, --domain, --band and --since; not " + ", ".join(narrowing), 2)
    chosen = build_model(TraceFilters, {**filters, **{k: _ago(k, filters.get(k)) for k in _DURATIONS}})
    with open_client(load_settings(db, home)) as client:
        if output is not None:
            download(client, "traces", output, format_, service=chosen.service, domain=chosen.domain,
                     band=chosen.band, since=chosen.since.isoformat() if chosen.since else None)
            return
        rows = client.traces(chosen, limit=limit)
    if json_:
        print_json(rows)
        return
    if not rows:
        out.print("no summarization spans yet: run `sumwatch demo`, `sumwatch ingest FILE`, or point an "
                  "exporter at `sumwatch up`")
        return
    # short values stacked in four columns, so the 32-character trace id and the summary fit in 80 columns; a
    # span recognised in another instrumentation names it where a tagged span names its domain
    out.print(table(f"latest {len(rows)} summarization spans",
                     ["time (UTC)", "service\ndomain or\ninstrumentation\nband", "words\nstatus\nms",
                      "trace id\nmodel, tokens in→out\nsummary"],
                     [(r.timestamp[:19].replace("T", "\n"),
                       f"{escape(r.service)}\n{escape(r.domain if r.instrumentation == TAGGED else r.instrumentation)}"
                       f"\n{r.band}",
                       f"{r.source_words}→{r.summary_words}\n{r.status}\n{r.duration_ms}",
                       f"{r.trace_id}\n{escape(r.model or '–')}, {_count(r.input_tokens)}→{_count(r.output_tokens)}"
                       + (f"  {_verdicts(r.verdicts)}" if r.verdicts else "")
                       + f"\n[dim]{escape(r.summary_preview[:140])}"
                       f"{'…' if len(r.summary_preview) > 140 else ''}[/dim]") for r in rows], text_width=34))


def _ago(option: str, text: str | None) -> str | None:
    """A duration option (``--since 24h``) as the time that long ago, in ISO 8601; exits 2 for a bad one."""
    from datetime import datetime, timedelta, timezone  # noqa: PLC0415 - start-up: a command imports what it runs

    from ..settings import parse_duration  # noqa: PLC0415 - start-up: a command imports what it runs

    if not text:
        return None
    try:
        return (datetime.now(timezone.utc) - timedelta(seconds=parse_duration(text))).isoformat()
    except ValueError as exc:
        fail(f"--{option}: {exc}")


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


def _verdicts(verdicts: dict[str, str]) -> str:
    return " ".join(f"{rubric[:5]}:{v}" for rubric, v in verdicts.items())


@traces_app.command("unsure")
def traces_unsure(ctx: typer.Context,
                  since: str | None = typer.Option(None, "--since", help="Only spans this recent, like 24h or 7d."),
                  rubric: str | None = typer.Option(None, "--rubric", help="Only this rubric."),
                  per_kind: int = limit_option(5, "Spans shown under each kind"),
                  db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """The suspicions no LLM confirmed (results recorded as unsure), by what was suspected: what offline mode
    would have flagged."""
    from datetime import datetime, timedelta, timezone  # noqa: PLC0415 - start-up: a command imports what it runs

    from ..settings import parse_duration  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        start = datetime.now(timezone.utc) - timedelta(seconds=parse_duration(since)) if since else None
    except ValueError as exc:
        fail(f"--since: {exc}")
    parent_db, parent_home = ctx.obj or (None, None)
    with open_client(load_settings(db or parent_db, home or parent_home)) as client:
        kinds = client.unsure(since=start, rubric=rubric, per_kind=per_kind)
    if json_:
        print_json(kinds)
        return
    if not kinds:
        out.print("no unsure results: every suspicion was confirmed or rejected by the LLM, or none was raised")
        return
    for k in kinds:
        out.print(table(f"{k.kind.replace('_', ' ')}: {k.count} unsure", ["time (UTC)", "rubric\ntier",
                                                                          "trace id\nevidence"],
                        [(s.span_time[:19].replace("T", "\n"), f"{s.rubric}\n{s.tier}",
                          f"{s.trace_id}\n[dim]{escape(s.evidence[:140])}[/dim]") for s in k.spans], text_width=34))


@traces_app.command("show")
def traces_show(ctx: typer.Context, trace_id: str = typer.Argument(..., help="32-hex trace id."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Show one trace's spans with all attributes."""
    parent_db, parent_home = ctx.obj or (None, None)
    try:
        with open_client(load_settings(db or parent_db, home or parent_home)) as client:
            spans = client.trace(trace_id)
    except ValueError as exc:
        fail(str(exc), 2)
    if not spans:
        fail(f"no trace {trace_id} in the store", 1)
    if json_:
        print_json(spans)
        return
    for s in spans:
        out.print("  " * s.depth + f"[bold]{s.name}[/bold]  trace {s.trace_id}  span {s.span_id}  {s.kind}  {s.status}"
                  f"{(': ' + s.status_message) if s.status_message else ''}  {s.duration_ms} ms  "
                  f"service {s.service}  at {s.timestamp}"
                  + (f"  model {s.model}" if s.model else "")
                  + (f"  tokens {_count(s.input_tokens)}→{_count(s.output_tokens)}"
                     if s.input_tokens is not None or s.output_tokens is not None else ""))
        if s.recognised is not None:
            out.print(f"recognised in {escape(s.recognised.instrumentation)}: the document and the answer")
            out.print(table("texts", ["source", "summary"], [(s.recognised.source, s.recognised.summary)]))
        out.print(table("attributes", ["key", "value"], sorted(s.attributes.items())))
        for event in s.events:
            out.print(f"event {event['name']} at {event['timestamp']}: {event['attributes']}")
