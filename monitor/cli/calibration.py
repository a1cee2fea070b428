"""`sumwatch calibrate` (kappa against human verdicts, the gate) and `sumwatch corpus`
(review, label, label a trace, agreement between labellers, resolve, import, export)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    action_progress,
    check_rubric_name,
    check_writable,
    err,
    fail,
    flag,
    limit_option,
    load_settings,
    open_client,
    out,
    own_settings_for,
    print_json,
    readable_file,
    rubric_read,
    table,
    write_text,
)

corpus_app = typer.Typer(no_args_is_help=True, help="Calibration corpora: review, label, import, export.")


RUBRIC_HELP = "groundedness | completeness | factuality | conciseness, or a rubric promoted with `judge promote`"
RubricOption = typer.Option(..., "--rubric", help=RUBRIC_HELP)
RubricFilter = typer.Option(None, "--rubric", help=f"Only this rubric: {RUBRIC_HELP}.")
StatusFilter = typer.Option(None, "--status", help="Only items with this status: labelled | needs_label | rejected.")


def _check_status(status: str | None) -> None:
    from ..contract.calibration import STATUSES  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: as above

    if status is not None and status not in STATUSES:
        fail(choice_error("status", status, STATUSES))


BY_HELP = "Who labels (default: your OS user name)."
DefinitionOption = typer.Option(None, "--definition", help="A new rubric's definition file (TOML), for a rubric not "
                                                           "promoted yet: its corpus comes first, then `judge test`.")


def _definition(file: Path) -> tuple[str, str]:
    """(rubric, text) of a definition file, checked here: a broken one is one line and exit 2."""
    from ._shared import engine_errors  # noqa: PLC0415 - start-up: a command imports what it runs

    readable_file(file)
    with engine_errors():
        from ..engine.checks import definition_file  # noqa: PLC0415 - start-up: as above

        return definition_file(file)


def _labeller(by: str | None) -> str:
    from .issues import _os_user  # noqa: PLC0415 - start-up: a command imports what it runs

    return by or _os_user()


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def calibrate(rubric: str = RubricOption,
              judge_version: str | None = typer.Option(
                  None, "--judge-version", help="Label for this judge (default: the cascade's version)."),
              mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
              record: bool = flag(True, "--record/--no-record", help="Store a passing run as the baseline."),
              db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Cohen's kappa of the judge against the human verdicts; exits 1 when it fell below the baseline."""
    check_rubric_name(rubric)
    settings = load_settings(db, home)
    with open_client(settings, note="calibrating through it") as client:
        carried = own_settings_for(client, settings, "calibrate")
        with action_progress("calibrating") as on_progress:
            report = client.calibrate(rubric, mode=mode or carried.get("mode"), judge_version=judge_version,
                                      record=record, on_progress=on_progress)
    gate = report.gate
    if json_:
        print_json(report)
    else:
        baseline = (f"baseline {_fmt(gate.baseline_kappa)} ({gate.baseline_version})" if gate and gate.baseline_version
                    else "no baseline yet")
        out.print(table(f"{rubric}: {report.judge_version}",
                         ["bucket", "items", "kappa vs pass", "judge pass rate"],
                         [(b.bucket, b.items, _fmt(b.kappa), f"{b.judge_pass_rate:.0%}") for b in report.buckets],
                         caption=f"overall kappa {_fmt(report.kappa)}, accuracy {report.accuracy:.1%} on "
                                 f"{report.items} labelled items; {baseline}"))
        for warning in report.warnings:
            err.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
        for reason in (gate.reasons if gate else []):
            (out if gate and gate.passed else err).print(("" if gate and gate.passed else "[red]gate:[/red] ") + reason)
        if report.recorded:
            out.print(f"recorded as the {rubric} baseline for {report.judge_version}")
    if gate is not None and not gate.passed:
        raise typer.Exit(1)


@corpus_app.command("list")
def corpus_list(rubric: str | None = RubricFilter, status: str | None = StatusFilter,
                limit: int = limit_option(50, "How many items to show"),
                cursor: str | None = typer.Option(None, "--cursor", help="The page after the one that printed it."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Corpus items (promoted ones wait as needs_label), a page at a time."""
    check_rubric_name(rubric)
    _check_status(status)
    with open_client(load_settings(db, home)) as client, rubric_read():
        page = client.corpus(rubric=rubric, status=status, limit=limit, cursor=cursor)
    total, items = page.total, page.items
    if json_:
        print_json(items[:limit])
        return
    shown = f" (showing {len(items)})" if total > len(items) else ""
    out.print(table(f"{total} corpus items{shown}",
                     ["id\nrubric\nstatus", "human\nproposed", "bucket · origin / summary"],
                     [(f"{i.item_id}\n{i.rubric}\n{i.status}", f"{i.human_verdict or '-'}\n{i.proposed_verdict or '-'}",
                       f"{escape(i.bucket)} · {escape(i.origin)}\n[dim]{escape(' '.join(i.text.split())[:160])}[/dim]")
                      for i in items[:limit]], text_width=30))
    if page.next_cursor:
        err.print(f"next page: --cursor {page.next_cursor}", markup=False, highlight=False)


@corpus_app.command("label")
def corpus_label(item_id: str = typer.Argument(..., help="Item id (from `corpus list`)."),
                 verdict: str = typer.Argument(..., help="The human verdict, or 'rejected' to drop the item."),
                 bucket: str | None = typer.Option(None, "--bucket", help="Failure-mode bucket."),
                 note: str | None = typer.Option(None, "--note", help="Free text kept with the label."),
                 example: bool | None = flag(None, "--example/--no-example",
                                             help="Offer this hard case to the rubric's judge as a few-shot example "
                                                  "(`sumwatch judge show RUBRIC` lists the line to paste)."),
                 by: str | None = typer.Option(None, "--by", help=BY_HELP),
                 db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Label a corpus item; labelled items count in `calibrate` (once its labellers agree or it is resolved)."""
    with open_client(load_settings(db, home), note="labelling through it") as client:
        try:
            item = client.label(item_id, verdict, bucket=bucket, note=note, example=example, by=_labeller(by))
        except (KeyError, ValueError) as exc:
            fail(str(exc.args[0] if exc.args else exc))
    if json_:
        print_json(item)
    else:
        out.print(f"{item.item_id}: {item.status}" + (f" as {item.human_verdict}" if item.status == "labelled" else "")
                  + (", offered as a few-shot example" if item.example else ""))


@corpus_app.command("add")
def corpus_add(trace: str = typer.Option(..., "--trace", help="Trace id (32 hex characters)."),
               rubric: str = RubricOption,
               verdict: str = typer.Option(..., "--verdict",
                                           help="pass, fail (with --failure-mode when the rubric has several failing "
                                                "verdicts) or one of the rubric's verdicts."),
               failure_mode: str | None = typer.Option(
                   None, "--failure-mode", help="What failed: one of the rubric's failure modes (e.g. entity_swap) or "
                                                "failing verdicts (e.g. entity_wrong)."),
               span: str | None = typer.Option(None, "--span", help="The summarization span, when the trace has "
                                                                     "several."),
               note: str | None = typer.Option(None, "--note", help="Free text kept with the label."),
               by: str | None = typer.Option(None, "--by", help=BY_HELP),
               definition: Path | None = DefinitionOption,
               db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Label a trace's summarization span into a rubric's corpus (its source and summary become an item)."""
    check_rubric_name(rubric)
    text = None
    if definition is not None:
        name, text = _definition(definition)
        if name != rubric:
            fail(f"{definition}: name: the file defines {name!r}, not {rubric!r}")
    with open_client(load_settings(db, home), note="labelling through it") as client:
        try:
            item = client.label_trace(trace, rubric, verdict, span_id=span, note=note, by=_labeller(by),
                                      failure_mode=failure_mode, definition=text)
        except (KeyError, ValueError) as exc:
            fail(str(exc.args[0] if exc.args else exc))
    if json_:
        print_json(item)
    else:
        out.print(f"{item.item_id}: {item.rubric} {item.status}"
                  + (f" as {item.human_verdict}, bucket {item.bucket}" if item.status == "labelled" else "")
                  + f" (trace {item.trace_id}, span {item.span_id})", markup=False, highlight=False)


@corpus_app.command("agreement")
def corpus_agreement(rubric: str | None = RubricFilter,
                     db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Cohen's kappa between each pair of labellers, over the items both labelled, and the items they disagree
    on (resolve them with `corpus resolve`)."""
    check_rubric_name(rubric)
    with open_client(load_settings(db, home)) as client, rubric_read():
        report = client.labeller_agreement(rubric)
    if json_:
        print_json(report)
        return
    out.print(table("Agreement between labellers", ["labellers", "items both labelled", "agreed", "kappa"],
                     [(f"{escape(p.a)} · {escape(p.b)}", p.items, p.agreed, _fmt(p.kappa)) for p in report.pairs],
                     caption="" if report.pairs else "no item was labelled by two people yet"))
    if report.disagreements:
        out.print(table(f"{report.unresolved} unresolved disagreement(s)", ["item\nrubric", "labels", "resolved"],
                         [(f"{d.item_id}\n{d.rubric}", escape(", ".join(f"{k}: {v}" for k, v in d.labels.items())),
                           f"{d.resolved} by {escape(d.resolved_by)}" if d.resolved else "-")
                          for d in report.disagreements]))


@corpus_app.command("resolve")
def corpus_resolve(item_id: str = typer.Argument(..., help="Item id (from `corpus agreement`)."),
                   verdict: str = typer.Argument(..., help="The item's final verdict, or 'rejected'."),
                   by: str | None = typer.Option(None, "--by", help="Who resolves (default: your OS user name)."),
                   db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Settle what an item's labellers disagree on: the verdict calibration uses for it."""
    with open_client(load_settings(db, home), note="resolving through it") as client:
        try:
            item = client.resolve_label(item_id, verdict, by=_labeller(by))
        except (KeyError, ValueError) as exc:
            fail(str(exc.args[0] if exc.args else exc))
    if json_:
        print_json(item)
    else:
        out.print(f"{item.item_id}: {item.status} as {item.human_verdict or verdict}", highlight=False)


@corpus_app.command("export")
def corpus_export(rubric: str | None = RubricFilter, status: str | None = StatusFilter,
                  output: Path | None = typer.Option(None, "--output", "-o",
                                                     help="File to write, in a folder that exists (default: stdout)."),
                  db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Write corpus items as JSONL."""
    check_rubric_name(rubric)
    _check_status(status)
    if output is not None:
        check_writable(output)
    with open_client(load_settings(db, home)) as client, rubric_read():
        items = client.corpus_items(rubric=rubric, status=status)  # every page
    text = "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in items)  # as `corpus import` reads
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)
        err.print(f"wrote {text.count(chr(10))} items to {output}", markup=False, highlight=False)


@corpus_app.command("import")
def corpus_import(file: Path = typer.Argument(..., help="JSONL of corpus items."),
                  allow_partial: bool = flag(False, "--allow-partial",
                                             help="Exit 0 even when bad lines were skipped (by default a file with "
                                                  "bad lines exits 1)."),
                  definition: Path | None = DefinitionOption,
                  db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Add or update corpus items; bad lines are reported by number and skipped, the good ones stored; exit 1
    when any line was skipped, unless --allow-partial."""
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    readable_file(file)
    new = (_definition(definition)[0],) if definition is not None else ()
    try:
        lines = file.read_bytes()
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    with open_client(load_settings(db, home), note="importing through it") as client:
        try:
            answer = client.import_corpus(lines, new)
        except ClientError as exc:
            if exc.status == 400:
                fail(f"cannot read {file}: {exc.reason}")
            raise
    bad = answer.skipped
    for skipped in bad:
        err.print(f"[yellow]{escape(str(file))}:{skipped.line}:[/yellow] skipped: {escape(skipped.reason)}",
                  highlight=False)
    if json_:
        print_json({"added": answer.added, "updated": answer.updated,
                     "skipped": [{"line": b.line, "reason": b.reason} for b in bad]})
    else:
        out.print(f"added {answer.added}, updated {answer.updated} corpus items"
                  + (f"; skipped {len(bad)} bad line(s)" if bad else ""))
    if bad and not allow_partial:
        stored = answer.added + answer.updated
        fail(f"skipped {len(bad)} of {len(bad) + stored} lines of {file} ({stored} stored); fix those "
             f"lines and import again, or pass --allow-partial to accept a partial file", 1)
