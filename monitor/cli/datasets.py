"""`sumwatch dataset`: versioned sets of items (a source, and optionally a reference summary, expected facts and
assessment questions) to test a summarizer on; made from a file, an issue, traces or a corpus, shown and exported.
The server reads the files and builds the versions; this module only sends and prints."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from ..contract.listing import TraceFilters
from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    build_model,
    check_rubric_name,
    check_writable,
    err,
    fail,
    flag,
    limit_option,
    load_settings,
    model_options,
    open_client,
    out,
    print_json,
    readable_file,
    rubric_read,
    table,
    write_text,
)

if TYPE_CHECKING:
    from ..contract.datasets import DatasetAnswer

dataset_app = typer.Typer(no_args_is_help=True, help="Datasets: versioned items to test a summarizer on (import, "
                                                     "list, show, export; made from an issue, traces or a corpus).")

NameArgument = typer.Argument(..., help="The dataset's name: letters, digits, _ - and . (up to 64).")
DescriptionOption = typer.Option(None, "--description", help="What this version is for (kept with it).")
VersionOption = typer.Option(None, "--version", min=1, help="This version (default: the latest).")
_SHOWN_SKIPS = 50


def _check_name(name: str) -> None:
    from ..contract.datasets import check_dataset_name  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        check_dataset_name(name)
    except ValueError as exc:
        fail(str(exc))


@contextmanager
def _found(unusable_code: int | None = None) -> Iterator[None]:
    """Inside :func:`open_client`: the server's 404 for a dataset, a version or an issue it does not have exits 1
    with its line (an unknown rubric stays the argument's fault, 2); with ``unusable_code``, so does its 422 for
    an edit that found nothing to store."""
    from ..views.client import UNKNOWN_RUBRIC, ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        yield
    except ClientError as exc:
        if exc.status == 404 and exc.reason and not exc.reason.startswith(UNKNOWN_RUBRIC):
            fail(exc.reason, 1)
        if exc.status == 422 and exc.reason and unusable_code is not None:
            fail(exc.reason, unusable_code)
        raise


def _report(answer: DatasetAnswer, json_: bool) -> None:
    for note in answer.notes:
        err.print(f"note: {note}", markup=False, highlight=False)
    if json_:
        print_json(answer)
        return
    made = answer.dataset
    if not answer.created:
        out.print(f"{made.name}: no new version, the items are the same as version {made.version}'s "
                  f"({made.items} items)", markup=False, highlight=False)
        return
    since = (f"{answer.added} added, {answer.removed} removed, {answer.changed} changed since version "
             f"{answer.previous}" if answer.previous is not None else "a new dataset")
    out.print(f"{made.name} version {made.version}: {made.items} items ({since})", markup=False, highlight=False)


@dataset_app.command("import")
def dataset_import(name: str = NameArgument,
                   file: Path = typer.Argument(..., help="JSON lines, CSV or Parquet: one item per line (row), "
                                                         "with a source and optionally id, reference, "
                                                         "expected_facts, questions, band and metadata."),
                   description: str | None = DescriptionOption,
                   format_: str | None = typer.Option(None, "--format",
                                                      help="jsonl, csv or parquet (default: from the file's name)."),
                   allow_partial: bool = flag(False, "--allow-partial",
                                              help="Exit 0 even when bad lines were skipped (by default a file with "
                                                   "bad lines exits 1)."),
                   db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Make a new version of a dataset from a file (none when its items are the same as the latest version's).
    Bad lines are reported by number and skipped, the good ones stored; exit 1 when any line was skipped, unless
    --allow-partial."""
    from ..contract.datasets import FILE_FORMATS, format_of  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: as above
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: as above

    _check_name(name)
    readable_file(file)
    fmt = format_ or format_of(file.name)
    if fmt is None:
        fail(f"cannot tell the format of {file} from its name: pass --format {', '.join(FILE_FORMATS)}")
    if fmt not in FILE_FORMATS:
        fail(choice_error("--format", fmt, FILE_FORMATS))
    try:
        content = file.read_bytes()
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    with open_client(load_settings(db, home), note="importing through it") as client:
        try:
            answer = client.import_dataset(name, content, fmt, description=description, filename=file.name)
        except ClientError as exc:
            if exc.status == 422 and exc.reason:
                fail(f"{file}: {exc.reason}")
            raise
    bad = answer.skipped
    for skipped in bad[:_SHOWN_SKIPS]:
        err.print(f"[yellow]{escape(str(file))}:{skipped.line}:[/yellow] skipped: {escape(skipped.reason)}",
                  highlight=False)
    if len(bad) > _SHOWN_SKIPS:
        err.print(f"... and {len(bad) - _SHOWN_SKIPS} more bad lines", highlight=False)
    _report(answer, json_)
    if bad and not allow_partial:
        lines = "rows" if fmt == "parquet" else "lines"
        fail(f"skipped {len(bad)} of {len(bad) + answer.items} {lines} of {file} ({answer.items} items kept); fix "
             f"those {lines} and import again, or pass --allow-partial to accept a partial file", 1)


@dataset_app.command("list")
def dataset_list(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Every dataset at its latest version."""
    with open_client(load_settings(db, home)) as client:
        found = client.datasets()
    if json_:
        print_json(found)
        return
    if not found:
        out.print("no datasets yet: `sumwatch dataset import NAME FILE`, or `dataset from-issue`, `from-traces`, "
                  "`from-corpus`")
        return
    out.print(table(f"{len(found)} dataset(s)", ["name", "version", "items", "created (UTC)", "origin\ndescription"],
                    [(escape(d.name), d.version, d.items, d.created_at.strftime("%Y-%m-%d %H:%M"),
                      f"{escape(d.origin)}\n[dim]{escape(d.description[:120])}[/dim]") for d in found]))


@dataset_app.command("show")
def dataset_show(name: str = NameArgument, version: int | None = VersionOption,
                 limit: int = limit_option(20, "How many items to show"),
                 db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A dataset's versions, and the first items of one version (the latest by default)."""
    _check_name(name)
    with open_client(load_settings(db, home)) as client, _found():
        versions = client.dataset_versions(name)
        page = client.dataset_items(name, version, limit=limit)
    if json_:
        print_json({"versions": versions, "dataset": page.dataset, "items": page.items,
                    "next_cursor": page.next_cursor})
        return
    shown = page.dataset
    out.print(table(f"{name}: {len(versions)} version(s)", ["version", "items", "created (UTC)", "origin\ndescription"],
                    [(("▶ " if v.version == shown.version else "") + str(v.version), v.items,
                      v.created_at.strftime("%Y-%m-%d %H:%M"),
                      f"{escape(v.origin)}\n[dim]{escape(v.description[:120])}[/dim]") for v in versions]))
    more = f" (first {len(page.items)})" if shown.items > len(page.items) else ""
    out.print(table(f"version {shown.version}: {shown.items} items{more}",
                    ["id\nband", "reference · facts · questions", "source"],
                    [(f"{escape(i.item_id)}\n{i.band or '-'}",
                      f"{'yes' if i.reference else 'no'} · {len(i.expected_facts)} · {len(i.questions)}",
                      f"[dim]{escape(' '.join(i.source.split())[:160])}[/dim]") for i in page.items], text_width=30))


@dataset_app.command("export")
def dataset_export(name: str = NameArgument, version: int | None = VersionOption,
                   output: Path | None = typer.Option(None, "--output", "-o",
                                                      help="File to write, in a folder that exists (default: stdout)."),
                   db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Write a version's items as JSON lines, which `dataset import` reads back as the same items (so importing
    them into the same dataset makes no new version). With --output and --json, a summary on stdout."""
    from ..contract.limits import MAX_LIST_LIMIT  # noqa: PLC0415 - start-up: a command imports what it runs

    _check_name(name)
    if output is not None:
        check_writable(output)
    with open_client(load_settings(db, home)) as client, _found():
        page = client.dataset_items(name, version, limit=MAX_LIST_LIMIT)
        found, items = page.dataset, list(page.items)
        while page.next_cursor is not None:
            page = client.dataset_items(name, found.version, limit=MAX_LIST_LIMIT, cursor=page.next_cursor)
            items += page.items
    text = "".join(item.json_line() for item in items)
    if output is None:
        sys.stdout.write(text)
        return
    write_text(output, text)
    if json_:
        print_json({"dataset": found, "written": len(items), "output": str(output)})
    else:
        err.print(f"wrote {len(items)} items of {name} version {found.version} to {output}", markup=False,
                  highlight=False)


def _made(what: str, name: str, body: dict[str, Any], db: str | None, home: Path | None, json_: bool) -> None:
    with open_client(load_settings(db, home), note="building through it") as client, rubric_read(), _found(1):
        answer = client.dataset_from(name, what, body)
    _report(answer, json_)


@dataset_app.command("from-issue")
def dataset_from_issue(issue: str = typer.Argument(..., help="The issue, like SW-3."), name: str = NameArgument,
                       description: str | None = DescriptionOption, db: str | None = DbOption,
                       home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A new version from an issue's failing spans: their sources, with the summaries they had as metadata
    (summary_before). Exits 1 for an issue the last runs do not know, or one whose spans recorded no text."""
    from ..contract.issues import parse_issue_id  # noqa: PLC0415 - start-up: a command imports what it runs

    _check_name(name)
    try:
        parse_issue_id(issue)
    except ValueError as exc:
        fail(str(exc))
    _made("issue", name, {"issue": issue, "description": description}, db, home, json_)


_DURATIONS = {"since": "Only spans this recent, like 24h or 7d.", "until": "Only spans older than this, like 1h."}


@dataset_app.command("from-traces")
@model_options(TraceFilters, "filters", help_of=lambda name, text: _DURATIONS.get(name, text))
def dataset_from_traces(filters: dict[str, str | None], name: str = NameArgument,
                        limit: int = limit_option(100, "The newest this many matching spans"),
                        description: str | None = DescriptionOption, db: str | None = DbOption,
                        home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A new version from the spans `sumwatch traces` lists with the same options: their sources, with their
    summaries as metadata (summary_before). Exits 1 when no span with recorded text matches."""
    from .traces import _ago  # noqa: PLC0415 - start-up: a command imports what it runs

    _check_name(name)
    chosen = build_model(TraceFilters, {**filters, **{k: _ago(k, filters.get(k)) for k in _DURATIONS}})
    _made("traces", name, {"filters": chosen.model_dump(mode="json", exclude_none=True), "limit": limit,
                           "description": description}, db, home, json_)


@dataset_app.command("from-corpus")
def dataset_from_corpus(name: str = NameArgument,
                        rubric: str = typer.Option(..., "--rubric", help="The corpus: a built-in rubric or one "
                                                                         "promoted with `judge promote`."),
                        status: str | None = typer.Option(None, "--status", help="Only items with this status: "
                                                                                 "labelled | needs_label | disputed | "
                                                                                 "rejected (default: all but "
                                                                                 "rejected)."),
                        description: str | None = DescriptionOption, db: str | None = DbOption,
                        home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A new version from a calibration corpus, one item per source: a labelled passing summary is its
    reference, another summary its summary_before. Exits 1 when the corpus has no such items."""
    from ..contract.calibration import STATUSES  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: as above

    _check_name(name)
    check_rubric_name(rubric)
    if status is not None and status not in STATUSES:
        fail(choice_error("--status", status, STATUSES))
    _made("corpus", name, {"rubric": rubric, "status": status, "description": description}, db, home, json_)
