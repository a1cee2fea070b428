"""`sumwatch cluster` (one clustering run) and `sumwatch issues` (what the last run found)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from ..contract.issues import IssueRow, parse_issue_id, trend_label
from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    action_progress,
    engine_errors,
    fail,
    flag,
    load_settings,
    open_client,
    out,
    own_settings_for,
    print_json,
    table,
)

if TYPE_CHECKING:
    from ..contract.issues import ClusterRunReport


def cluster(window: str | None = typer.Option(None, "--window", help="How far back to look, like 24h or 7d "
                                                 "(default SUMWATCH_CLUSTER_WINDOW, 24h)."),
            warm: bool = flag(False, "--warm-cache", help="Only compile clustering's numba code into the cache "
                              "under the data directory (NUMBA_CACHE_DIR when set), so later runs start warm."),
            db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """One clustering run: failing spans of the window become named, tracked issues; representatives are
    promoted to the calibration corpora."""
    settings = load_settings(db, home, cluster_window=window)
    if warm:
        with engine_errors():
            from ..engine.checks import warm_clustering_cache  # noqa: PLC0415 - start-up: numba, umap, hdbscan

            folder, compiled = warm_clustering_cache(settings)
        if json_:
            print_json({"cache_dir": str(folder), "compiled": compiled})
        else:
            out.print(f"numba cache in {folder}: {compiled} functions compiled (few when already warm)")
        return
    with open_client(settings, note="clustering through it") as client:
        carried = own_settings_for(client, settings, "cluster")
        with action_progress("clustering") as on_progress:
            report = client.cluster(window or carried.get("window"), on_progress=on_progress)
    if json_:
        print_json(report)
        return
    print_run(report)


def print_run(report: ClusterRunReport) -> None:
    share = f"{report.clustered / report.failures:.0%}" if report.failures else "-"
    out.print(f"clustering run {report.run_id}: {report.failures} failing spans since "
              f"{report.window_start:%Y-%m-%d %H:%M} UTC; {report.clustered} ({share}) in {len(report.issues)} issues "
              f"({report.new_issues} new), {report.noise} unclustered; {report.embedded} newly embedded; "
              f"{report.promoted} examples promoted for labelling; named by {report.namer}; {report.seconds:.1f}s")
    if report.resolved:
        out.print(f"resolved: {', '.join(report.resolved)}")
    if report.issues:
        out.print(issue_table("issues in this run", report.issues))


def issue_table(title: str, rows: Sequence[IssueRow], caption: str = "") -> Table:

    # five columns, the short ones stacked, so the title keeps most of an 80-column terminal
    return table(title, ["issue", "rubric", "traces", "trend", "title / fix"],
                 [(f"{s.issue_id}\n{_status_line(s)}\n{s.severity}", f"{s.rubric}\n[dim]{escape(s.failure_mode)}[/dim]",
                   f"{s.traces}\n{f'{s.share:.0%}' if s.members else '-'}",
                   trend_label(r.trend or [s.members]).replace(" ", "\n", 1),
                   f"{escape(s.title)}\n[dim]fix: {escape(s.fix)}[/dim]")
                  for r in rows for s in (r,)], caption=caption, text_width=28)


def _status_line(row: IssueRow) -> str:
    """The status with what triage says: ``resolved``, ``ongoing @ana``, ``muted``, ``ignored``."""
    t = row.triage
    return " ".join(p for p in (row.status, t.hidden.split(" ")[0] if t.hidden else "",
                                f"@{escape(t.assignee)}" if t.assignee else "") if p)


issues_app = typer.Typer(invoke_without_command=True, help="Issues found by clustering failing traces.")


@issues_app.callback()
def issues(ctx: typer.Context,
           open_only: bool = flag(False, "--open", help="Leave out resolved issues."),
           show_all: bool = flag(False, "--all", help="Also ignored, muted and merged issues."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List issues as the last clustering run left them, with their triage (`issues show ID` for one)."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    with open_client(load_settings(db, home)) as client:
        listing = client.issues(include_resolved=not open_only, include_hidden=show_all)
    if json_:
        print_json(listing)
        return
    run = listing.run
    if run is None:
        out.print("no clustering run yet: run `sumwatch cluster` (or `sumwatch demo`)")
        return
    caption = (f"run {run.run_id} at {run.finished_at.isoformat()[:19]}Z: {run.failures} failing spans, "
               f"{run.clustered} in issues, {run.noise} unclustered; trend = members in the last runs")
    out.print(issue_table(f"{len(listing.issues)} issues", listing.issues, caption))
    out.print("next: `sumwatch issues show ID`, `sumwatch corpus list --status needs_label`")


@issues_app.command("show")
def issues_show(ctx: typer.Context, issue_id: str = typer.Argument(..., help="Issue id, like SW-3."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """One issue: description, cause, fix, representative failures with their evidence, trace ids."""
    from ..contract.issues import parse_issue_id  # noqa: PLC0415 - start-up: a command imports what it runs

    parent_db, parent_home = ctx.obj or (None, None)
    try:
        parse_issue_id(issue_id)
    except ValueError as exc:
        fail(str(exc))
    with open_client(load_settings(db or parent_db, home or parent_home)) as client:
        detail = client.issue(issue_id)
    if detail is None:
        fail(f"no issue {issue_id} (see `sumwatch issues`)", 1)
    if json_:
        print_json(detail)
        return
    s = detail
    if detail.asked_as:
        out.print(f"{detail.asked_as} was merged into {s.issue_id}", highlight=False)
    out.print(f"[bold]{s.issue_id}[/bold] {s.title}", highlight=False)
    out.print(f"status {s.status} · severity {s.severity} · {s.rubric} / {s.failure_mode} · "
              f"{s.traces} traces ({s.share:.0%} of failures) in the last run · trend "
              f"{trend_label(detail.trend)} · first seen {s.first_seen.isoformat()[:16]}", highlight=False)
    for label, text in (("description", s.description), ("probable root cause", s.root_cause), ("fix", s.fix)):
        out.print(f"[bold]{label}:[/bold] {text}", highlight=False)
    examples = ([("representative" if e.core else "boundary case", e) for e in detail.representatives]
                + [("boundary", e) for e in detail.boundary])
    if examples:
        out.print(table(f"examples from run {detail.seen_in_run}", ["role\nmembership", "rubric\nverdict",
                                                                    "trace id / evidence"],
                        [(f"{role}\n{e.membership:.2f}", f"{e.rubric}\n{e.verdict}",
                          f"{e.trace_id}\n[dim]{escape(e.evidence[:240])}[/dim]") for role, e in examples],
                        text_width=34))
    if detail.trace_ids:
        out.print(f"trace ids ({len(detail.trace_ids)}): " + " ".join(detail.trace_ids[:50])
                  + (" ..." if len(detail.trace_ids) > 50 else ""), highlight=False)
    if detail.exports:
        out.print(table("Tickets", ["target", "state", "URL / error"],
                        [(t.target, t.tracker_state or t.phase or "-",
                          escape(t.url or t.external_id or "-") + (f"\n[red]{escape(t.error)}[/red]" if t.error
                                                                   else ""))
                         for t in detail.exports], text_width=40))
    else:
        out.print(f"tickets: none yet (sumwatch export {s.issue_id} --to github)", highlight=False)
    if detail.triage.assignee or detail.triage.hidden or detail.triage.merged:
        t = detail.triage
        out.print("triage: " + " · ".join(p for p in (
            f"assigned to {t.assignee}" if t.assignee else "", t.hidden,
            f"until {t.muted_until.isoformat()[:16]}" if t.muted_until else "",
            f"merged in: {', '.join(t.merged)}" if t.merged else "") if p), highlight=False)
    if detail.timeline:
        out.print(table("History", ["when (UTC)", "what", "who", "details"],
                        [(e.at.isoformat()[:19].replace("T", " "), e.action, escape(e.by or "-"),
                          escape(e.text[:240])) for e in detail.timeline], text_width=40))


def _triage(ctx: typer.Context, issue_id: str, action: str, by: str | None, value: str | None = None) -> None:
    """One triage action through the API; a refusal exits 2 with the server's line."""
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        parse_issue_id(issue_id)
    except ValueError as exc:
        fail(str(exc))
    db, home = ctx.obj or (None, None)
    with open_client(load_settings(db, home), note="triaging through it") as client:
        try:
            answer = client.triage(issue_id, action, by=by or _os_user(), value=value)
        except ClientError as exc:
            if exc.status in (400, 404) and exc.reason:
                fail(exc.reason, 2 if exc.status == 400 else 1)
            raise
    what = {"merge": f"merged into SW-{answer.value}", "unmerge": f"unmerged from SW-{answer.value}",
            "assign": f"assigned to {answer.value or 'nobody'}",
            "mute": f"muted until {answer.value[:16]} UTC" if answer.value else "muted until it regresses",
            }.get(answer.action, _DONE.get(answer.action, answer.action))
    out.print(f"{answer.issue_id} {what} by {answer.by}; status {answer.status}"
              + (f" ({answer.hidden}: hidden from `sumwatch issues`)" if answer.hidden else ""), highlight=False)


_DONE = {"resolve": "resolved", "reopen": "reopened", "ignore": "ignored", "unignore": "unignored",
         "unmute": "unmuted", "comment": "commented on"}


def _os_user() -> str:
    import getpass  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "cli"


_ID = typer.Argument(..., help="Issue id, like SW-3.")
_BY = typer.Option(None, "--by", help="Who does it (default: your OS user name).")


@issues_app.command("resolve")
def issues_resolve(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Resolve an issue; if a later clustering run finds it again it is regressed."""
    _triage(ctx, issue_id, "resolve", by)


@issues_app.command("reopen")
def issues_reopen(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Reopen a resolved issue."""
    _triage(ctx, issue_id, "reopen", by)


@issues_app.command("ignore")
def issues_ignore(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Hide an issue from the list for good (`unignore` shows it again)."""
    _triage(ctx, issue_id, "ignore", by)


@issues_app.command("unignore")
def issues_unignore(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Show an ignored issue again."""
    _triage(ctx, issue_id, "unignore", by)


@issues_app.command("mute")
def issues_mute(ctx: typer.Context, issue_id: str = _ID, for_: str | None = typer.Option(
        None, "--for", help="How long, like 7d (default: until a later run finds it regressed)."),
        by: str | None = _BY) -> None:
    """Hide an issue until it regresses, or for a time."""
    _triage(ctx, issue_id, "mute", by, for_)


@issues_app.command("unmute")
def issues_unmute(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Show a muted issue again."""
    _triage(ctx, issue_id, "unmute", by)


@issues_app.command("merge")
def issues_merge(ctx: typer.Context, issue_id: str = _ID,
                 into: str = typer.Option(..., "--into", help="The issue it joins, like SW-3."),
                 by: str | None = _BY) -> None:
    """Merge an issue into another: one id from now on, and later runs match either's failures to it."""
    _triage(ctx, issue_id, "merge", by, into)


@issues_app.command("unmerge")
def issues_unmerge(ctx: typer.Context, issue_id: str = _ID, by: str | None = _BY) -> None:
    """Undo a merge: the issue is its own again, with its members; later runs match its failures to it."""
    _triage(ctx, issue_id, "unmerge", by)


@issues_app.command("assign")
def issues_assign(ctx: typer.Context, issue_id: str = _ID, name: str = typer.Argument("", help="Who (empty: nobody)."),
                  by: str | None = _BY) -> None:
    """Assign an issue to someone."""
    _triage(ctx, issue_id, "assign", by, name)


@issues_app.command("comment")
def issues_comment(ctx: typer.Context, issue_id: str = _ID, text: str = typer.Argument(..., help="The comment."),
                   by: str | None = _BY) -> None:
    """Comment on an issue."""
    _triage(ctx, issue_id, "comment", by, text)
