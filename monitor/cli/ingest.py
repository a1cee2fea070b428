"""`sumwatch ingest`: backfill summarization spans from a JSONL file."""

from __future__ import annotations

from collections.abc import Iterator
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
    open_client,
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
    from ..contract.actions import SkippedLine  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    readable_file(file)
    settings = load_settings(db, home)
    stored, bad = 0, list[SkippedLine]()  # bad: the skipped lines, numbered in the file
    with open_client(settings, note="ingesting through it") as client, progress_bars() as progress:
        task = progress.add_task(f"ingesting {file.name}", total=None)
        try:
            for first_line, chunk in line_chunks(file, UPLOAD_CHUNK_BYTES):
                answer = client.ingest(chunk)
                stored += answer.stored
                bad += [SkippedLine(line=first_line - 1 + b.line, reason=b.reason) for b in answer.skipped]
                progress.update(task, completed=stored)
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror or exc}")
        except ClientError as exc:
            if exc.status == 400:
                fail(f"cannot read {file}: {exc.reason}")
            raise
    for skipped in bad[:50]:
        err.print(f"[yellow]{escape(str(file))}:{skipped.line}:[/yellow] skipped: {escape(skipped.reason)}",
                  highlight=False)
    if len(bad) > 50:
        err.print(f"... and {len(bad) - 50} more bad lines")
    lines = stored + len(bad)
    if json_:
        print_json({"file": str(file), "stored": stored,
                     "skipped": [{"line": b.line, "reason": b.reason} for b in bad]})
    else:
        out.print(f"stored {stored} summarization spans from {file}"
                  + (f"; skipped {len(bad)} bad line(s)" if bad else ""), highlight=False)
        if stored:
            # spans are scored by arrival, so a backfill of old timestamps is scored like new spans
            out.print("the next sampler pass scores them (the worker of `sumwatch up`, or `sumwatch sample` now), "
                      "whatever their timestamps, at the sample rate", highlight=False)
    if bad and not allow_partial:
        fail(f"skipped {len(bad)} of {lines} lines of {file} ({stored} stored); fix those lines and "
             f"ingest only them again, or pass --allow-partial to accept a partial file", 1)


# a backfill goes to the API in pieces of whole lines, each well under the server's body limit
UPLOAD_CHUNK_BYTES = 4 * 1024 * 1024


def line_chunks(path: Path, size: int) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, whole lines of about ``size`` bytes) over the file."""
    with path.open("rb") as fh:
        first, lines, held = 1, 0, bytearray()
        for line in fh:
            held += line
            lines += 1
            if len(held) >= size:
                yield first, bytes(held)
                first, lines, held = first + lines, 0, bytearray()
        if held or first == 1:
            yield first, bytes(held)
