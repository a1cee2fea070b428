"""`sumwatch ingest`: backfill summarization spans from a JSONL file."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    err,
    fail,
    flag,
    load_settings,
    open_reader,
    out,
    print_json,
    progress_bars,
    readable_file,
)


def ingest(file: Path = typer.Argument(..., help="JSONL file: one {source, summary, ...} object per line."),
           allow_partial: bool = flag(False, "--allow-partial",
                                      help="Exit 0 even when bad lines were skipped (by default a file with "
                                           "bad lines exits 1)."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Backfill: each line becomes a summarization span. Bad lines are reported and skipped, the good ones
    stored; exit 1 when any line was skipped, unless --allow-partial."""
    from ..ingest.backfill import BadLine, IngestReport, ingest_file
    from ..views.readers import RemoteError, RemoteReader, StoreReader

    readable_file(file)
    settings = load_settings(db, home)
    with open_reader(settings, note="ingesting through it") as reader:
        try:
            if isinstance(reader, RemoteReader):
                try:
                    answer = reader.upload("/api/ingest", file.read_bytes())
                except RemoteError as exc:
                    if exc.status == 400:
                        fail(f"cannot read {file}: {exc.reason}")
                    raise
                report = IngestReport(str(file), answer["stored"],
                                      [BadLine(b["line"], b["reason"]) for b in answer["skipped"]])
            else:
                assert isinstance(reader, StoreReader)
                with progress_bars() as progress:
                    task = progress.add_task(f"ingesting {file.name}", total=None)
                    report = ingest_file(reader.store, file,
                                         on_progress=lambda stored, bad: progress.update(task, completed=stored))
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror or exc}")
        except RecursionError:
            fail(f"cannot read {file}: a line is JSON nested too deeply to parse (lines before it may be stored)")
    for bad in report.bad[:50]:
        err.print(f"[yellow]{escape(str(file))}:{bad.line}:[/yellow] skipped: {escape(bad.reason)}", highlight=False)
    if len(report.bad) > 50:
        err.print(f"... and {len(report.bad) - 50} more bad lines")
    lines = report.stored + len(report.bad)
    if json_:
        print_json({"file": str(file), "stored": report.stored,
                     "skipped": [{"line": b.line, "reason": b.reason} for b in report.bad]})
    else:
        out.print(f"stored {report.stored} summarization spans from {file}"
                  + (f"; skipped {len(report.bad)} bad line(s)" if report.bad else ""), highlight=False)
    if report.bad and not allow_partial:
        fail(f"skipped {len(report.bad)} of {lines} lines of {file} ({report.stored} stored); fix those lines and "
             f"ingest only them again, or pass --allow-partial to accept a partial file", 1)
