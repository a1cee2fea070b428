"""`sumwatch ingest`: backfill summarization spans from a JSONL file."""

from __future__ import annotations

from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, JsonOption, err, load_settings, open_store, out, print_json, progress_bars


def ingest(file: Path = typer.Argument(..., help="JSONL file: one {source, summary, ...} object per line."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Backfill: each line becomes a summarization span. Bad lines are reported and skipped."""
    from ..ingest.backfill import ingest_file

    if not file.is_file():
        err.print(f"[red]error:[/red] no such file: {file}")
        raise typer.Exit(2)
    settings = load_settings(db, home)
    with open_store(settings) as store, progress_bars() as progress:
        task = progress.add_task(f"ingesting {file.name}", total=None)
        report = ingest_file(store, file, on_progress=lambda stored, bad: progress.update(task, completed=stored))
    for bad in report.bad[:50]:
        err.print(f"[yellow]{file}:{bad.line}:[/yellow] skipped: {bad.reason}", markup=True, highlight=False)
    if len(report.bad) > 50:
        err.print(f"... and {len(report.bad) - 50} more bad lines")
    if json_:
        print_json({"file": str(file), "stored": report.stored,
                     "skipped": [{"line": b.line, "reason": b.reason} for b in report.bad]})
    else:
        out.print(f"stored {report.stored} summarization spans from {file}"
                  + (f"; skipped {len(report.bad)} bad line(s)" if report.bad else ""))
