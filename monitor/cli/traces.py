"""`sumwatch traces` and `sumwatch traces show`: summarization spans."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    FormatOption,
    HomeOption,
    JsonOption,
    OutputOption,
    download,
    fail,
    limit_option,
    load_settings,
    open_client,
    out,
    print_json,
    table,
)

traces_app = typer.Typer(invoke_without_command=True, help="Summarization spans.")


@traces_app.callback()
def traces(ctx: typer.Context, limit: int = limit_option(20, "How many spans, newest first"),
           service: str | None = typer.Option(None, "--service", help="Only this service."),
           domain: str | None = typer.Option(None, "--domain", help="Only this domain."),
           band: str | None = typer.Option(None, "--band", help="Only this length band (tldr, short, ...)."),
           since: str | None = typer.Option(None, "--since", help="Only spans this recent, like 24h or 7d."),
           output: Path | None = OutputOption, format_: str | None = FormatOption,
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List recent summarization spans (`traces show ID` for one); `--output F` takes them all out, whole."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    from datetime import datetime, timedelta, timezone  # noqa: PLC0415 - start-up: a command imports what it runs

    from ..settings import parse_duration  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..store.traces import TAGGED  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        start = datetime.now(timezone.utc) - timedelta(seconds=parse_duration(since)) if since else None
    except ValueError as exc:
        fail(f"--since: {exc}")
    with open_client(load_settings(db, home)) as client:
        if output is not None:
            download(client, "traces", output, format_, service=service, domain=domain, band=band,
                     since=start.isoformat() if start else None)
            return
        rows = client.traces(limit=limit, service=service, domain=domain, band=band, since=start)
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
                       f"\n[dim]{escape(r.summary_preview[:140])}"
                       f"{'…' if len(r.summary_preview) > 140 else ''}[/dim]") for r in rows], text_width=34))


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


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
