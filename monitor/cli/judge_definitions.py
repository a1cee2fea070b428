"""`sumwatch judge`: the judge definitions and their loop: list, show, diff, history, test, promote.

    sumwatch judge show factuality > factuality.toml      # edit the words, give it a new version tag
    sumwatch judge test factuality --file factuality.toml  # kappa beside the active version; exit 1: gate failed
    sumwatch judge promote factuality --file factuality.toml [--force "why"]
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    action_progress,
    engine_errors,
    err,
    fail,
    load_settings,
    open_client,
    out,
    own_settings_for,
    print_json,
    readable_file,
    table,
)

if TYPE_CHECKING:
    from ..contract.calibration import CandidateReport

judge_app = typer.Typer(no_args_is_help=True, help="Judge definitions: list, show, diff, history; test an edit on "
                                                   "the rubric's corpus and promote it through the kappa gate.")

RubricArgument = typer.Argument(..., help="Rubric: a built-in one (groundedness, completeness, factuality, "
                                          "conciseness) or a custom one.")
FileOption = typer.Option(..., "--file", "-f", help="The candidate definition (a TOML file).")
ModeOption = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always (default: the configured one).")


def _check_rubric(rubric: str) -> None:
    from ..contract.values import RUBRIC_NAME  # noqa: PLC0415 - start-up: a command imports what it runs

    if not RUBRIC_NAME.fullmatch(rubric):
        fail(f"{rubric!r} is not a rubric name (lower-case letters, digits and _, starting with a letter)")


@contextmanager
def _found() -> Iterator[None]:
    """A version or rubric the server does not have: its one line, exit 1 (as `issues show` does)."""
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        yield
    except ClientError as exc:
        if exc.status == 404 and exc.reason:
            fail(exc.reason, 1)
        raise


def _candidate(rubric: str, file: Path) -> str:
    """The file's text, its definition checked here first: a broken one is one line and exit 2."""
    _check_rubric(rubric)
    readable_file(file)
    with engine_errors():
        from ..engine.checks import candidate_text  # noqa: PLC0415 - start-up: a command imports what it runs

        return candidate_text(rubric, file)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@judge_app.command("list")
def judge_list(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Each rubric's active judge version: shipped or promoted, when, by whom, and whether the gate was forced."""
    with open_client(load_settings(db, home)) as client:
        rows = client.judge_definitions()
    if json_:
        print_json(rows)
        return
    out.print(table("judge definitions", ["rubric", "version", "judge version", "kind", "promoted", "forced"],
                    [(r.rubric, r.version, r.judge_version,
                      ("built-in" if r.builtin else "custom") + (", shipped" if r.shipped else ", promoted"),
                      f"{r.promoted_at:%Y-%m-%d %H:%M} {r.promoted_by}".strip() if r.promoted_at else "-",
                      escape(r.forced) or "-") for r in rows]))


@judge_app.command("show")
def judge_show(rubric: str = RubricArgument,
               version: str | None = typer.Option(None, "--version", "-v",
                                                  help="A stored version tag, or 'shipped' (default: the active one)."),
               db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A version's definition file, the corpus items it shows as examples, and the marked hard cases it does
    not use yet, with the lines to paste."""
    _check_rubric(rubric)
    with open_client(load_settings(db, home)) as client, _found():
        view = client.judge_definition(rubric, version)
    if json_:
        print_json(view)
        return
    where = ("shipped file" if view.shipped else
             f"promoted {view.promoted_at:%Y-%m-%d %H:%M}" + (f" by {view.promoted_by}" if view.promoted_by else "")
             if view.promoted_at else "stored")
    err.print(f"# {view.judge_version} ({'active' if view.active else 'not active'}, {where})"
              + (f"; forced: {view.forced}" if view.forced else ""), markup=False, highlight=False)
    sys.stdout.write(view.text if view.text.endswith("\n") else view.text + "\n")
    if view.examples_in_use or view.inline_examples:
        err.print(f"# examples in use: {len(view.examples_in_use)} corpus item(s) "
                  f"{' '.join(view.examples_in_use)}, {view.inline_examples} inline", markup=False, highlight=False)
    if view.example_offers:
        err.print(f"# {len(view.example_offers)} labelled hard case(s) marked as examples are not used by this "
                  f"version; to use one, add its lines to the file:", markup=False, highlight=False)
        for offer in view.example_offers:
            err.print(f"#   {offer.item_id} ({offer.verdict}, {offer.bucket}): {offer.summary[:100]}",
                      markup=False, highlight=False)
            err.print("\n".join(offer.paste.splitlines()), markup=False, highlight=False)


@judge_app.command("diff")
def judge_diff(rubric: str = RubricArgument,
               a: str = typer.Argument(..., help="The older version: a stored tag, or 'shipped'."),
               b: str = typer.Argument(..., help="The newer version: a stored tag, or 'shipped'."),
               db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Unified diff between two versions of a rubric's definition."""
    _check_rubric(rubric)
    with open_client(load_settings(db, home)) as client, _found():
        found = client.judge_diff(rubric, a, b)
    if json_:
        print_json(found)
    elif found.diff:
        sys.stdout.write(found.diff)
    else:
        err.print(f"{rubric}: {a} and {b} are the same file", markup=False, highlight=False)


@judge_app.command("history")
def judge_history(rubric: str = RubricArgument, db: str | None = DbOption, home: Path | None = HomeOption,
                  json_: bool = JsonOption) -> None:
    """Every promotion of a rubric, newest first, with the kappa its test measured overall and per bucket."""
    _check_rubric(rubric)
    with open_client(load_settings(db, home)) as client, _found():
        found = client.judge_history(rubric)
    if json_:
        print_json(found)
        return
    if not found.versions:
        out.print(f"{rubric}: never promoted; the shipped file is active (`sumwatch judge show {rubric}`)")
        return
    rows = []
    for v in found.versions:
        buckets = v.results.get("buckets") or {}
        rows.append((("* " if v.active else "  ") + v.version, v.judge_version,
                     f"{v.promoted_at:%Y-%m-%d %H:%M}" if v.promoted_at else "-", v.promoted_by or "-",
                     _fmt(v.results.get("kappa")),
                     " ".join(f"{k} {_fmt(x)}" for k, x in sorted(buckets.items())) or "-",
                     escape(v.forced) or "-"))
    out.print(table(f"{rubric}: {len(found.versions)} promotion(s), * active", ["version", "judge version", "promoted",
                                                                               "by", "kappa", "per bucket", "forced"],
                    rows, text_width=20))


def print_candidate(report: CandidateReport) -> None:
    """The candidate's kappas beside the active version's, the changed items, the spend and the gate."""
    cand, active = report.candidate, report.active
    if cand is not None:
        before = {b.bucket: b for b in active.buckets} if active else {}
        rows = [("overall", cand.items, _fmt(active.kappa) if active else "-", _fmt(cand.kappa))]
        rows += [(b.bucket, b.items, _fmt(before[b.bucket].kappa) if b.bucket in before else "-", _fmt(b.kappa))
                 for b in cand.buckets]
        out.print(table(f"{report.rubric}: {report.candidate_version} against "
                        f"{report.active_version or 'no active version'}",
                        ["bucket", "items", "active kappa", "candidate kappa"], rows, text_width=14,
                        caption=f"{report.items} labelled items measured"
                                + (f", {len(report.excluded)} left out as few-shot examples" if report.excluded
                                   else "")))
    if report.changed:
        out.print(table(f"{len(report.changed)} item(s) changed verdict", ["item", "bucket", "human", "active",
                                                                            "candidate"],
                        [(c.item_id, c.bucket, c.human, c.active, c.candidate) for c in report.changed],
                        text_width=14))
    elif active is not None:
        out.print("no item changed verdict")
    out.print(f"candidate run: {report.llm_calls} LLM call(s), {report.input_tokens + report.output_tokens:,} tokens "
              f"({report.input_tokens:,} in, {report.output_tokens:,} out), ${report.cost_usd:.4f}", highlight=False)
    for note in report.notes:
        err.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    for reason in report.gate.reasons:
        if report.gate.passed:
            out.print(reason, highlight=False)
        else:
            err.print(f"[red]gate:[/red] {escape(reason)}", highlight=False)
    if report.gate.passed:
        out.print("gate: passed")


@judge_app.command("test")
def judge_test(rubric: str = RubricArgument, file: Path = FileOption, mode: str | None = ModeOption,
               db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Run a candidate definition on the rubric's labelled corpus beside the active version: kappa overall and
    per bucket, the items whose verdict changed, LLM calls and cost; exits 1 when the gate fails."""
    text = _candidate(rubric, file)
    settings = load_settings(db, home)
    with open_client(settings, note="testing through it") as client:
        carried = own_settings_for(client, settings, "calibrate")
        with action_progress("testing") as on_progress:
            report = client.judge_test(rubric, text, origin=str(file), mode=mode or carried.get("mode"),
                                       on_progress=on_progress)
    if json_:
        print_json(report)
    else:
        print_candidate(report)
    if not report.gate.passed:
        raise typer.Exit(1)


@judge_app.command("promote")
def judge_promote(rubric: str = RubricArgument, file: Path = FileOption,
                  force: str | None = typer.Option(None, "--force", help="Promote even when the gate fails; the "
                                                                        "reason is recorded with the version."),
                  by: str | None = typer.Option(None, "--by", help="Who promotes, recorded with the version "
                                                                    "(default: your OS user name)."),
                  mode: str | None = ModeOption,
                  db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Test a candidate definition and make it the rubric's active version for every process on the database;
    refused (exit 1) when the gate fails, unless --force gives a reason."""
    text = _candidate(rubric, file)
    if force is not None and not force.strip():
        fail("--force needs a reason (it is recorded with the version)")
    from .issues import _os_user  # noqa: PLC0415 - start-up: a command imports what it runs

    by = by or _os_user()
    settings = load_settings(db, home)
    with open_client(settings, note="promoting through it") as client:
        carried = own_settings_for(client, settings, "calibrate")
        with action_progress("testing") as on_progress:
            report = client.judge_promote(rubric, text, origin=str(file), mode=mode or carried.get("mode"),
                                          force=force, promoted_by=by, on_progress=on_progress)
    if json_:
        print_json(report)
    else:
        print_candidate(report.test)
    if not report.promoted:
        fail(f"not promoted: {report.refused}", 1)
    if not json_:
        out.print(f"promoted {report.judge_version} by {by}: the active {rubric} judge for every process "
                  f"on this database"
                  + (" (promoted again: a rollback)" if report.again else "")
                  + (f"; gate overridden: {report.forced}" if report.forced else ""), highlight=False)
