"""`sumwatch export`: issues to a tracker (GitHub, Linear, Jira, Markdown) or an alert channel (Slack, webhook).

    sumwatch export SW-3 --to github
    sumwatch export --status new,regressed --min-severity high --to linear --json
    sumwatch export SW-3 --to jira --dry-run          # prints the request, sends nothing
"""

from __future__ import annotations

from dataclasses import asdict
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
    own_settings_for,
    print_json,
    table,
)


def export(issue_ids: list[str] = typer.Argument(None, help="Issue ids, like SW-3 (default: every issue the "
                                                            "filters pick)."),
           to: str = typer.Option(..., "--to", help="Target: github, linear, jira, markdown, slack or webhook."),
           status: str | None = typer.Option(None, "--status", help="Only issues with these statuses, like "
                                                                  "new,regressed (default: all but resolved)."),
           min_severity: str | None = typer.Option(None, "--min-severity", help="Only issues at least this severe "
                                                                              "(low, medium, high, critical)."),
           min_traces: int = typer.Option(0, "--min-traces", min=0, help="Only issues with at least this many "
                                                                         "traces."),
           dry_run: bool = flag(False, "--dry-run", help="Print what would be sent; send nothing."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Export issues of the last clustering run: one ticket per issue and target, updated when exported again."""
    from sumwatch.tracer.vocabulary import IssueStatus, Severity  # noqa: PLC0415 - start-up: a command imports what it runs

    from ..contract.exports import TARGET_NAMES  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.issues import parse_issue_id  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home)
    if to not in TARGET_NAMES:
        fail(choice_error("--to", to, TARGET_NAMES))
    statuses = [s.strip() for s in status.split(",") if s.strip()] if status else None
    bad = [s for s in statuses or [] if s not in IssueStatus.values()]
    if bad:
        fail(choice_error("--status", bad[0], IssueStatus.values()))
    if not issue_ids and statuses is None:
        statuses = [s for s in IssueStatus.values() if s != "resolved"]  # every open issue, unless asked otherwise
    if min_severity is not None and min_severity not in Severity.values():
        fail(choice_error("--min-severity", min_severity, Severity.values()))
    for issue_id in issue_ids or []:
        try:
            parse_issue_id(issue_id)
        except ValueError as exc:
            fail(str(exc))
    with open_client(settings, note="exporting through it, with its tracker settings") as client:
        own_settings_for(client, settings, "export")
        if not client.is_remote:  # every problem of the target's settings, not only the first
            from ..engine.checks import export_problems  # noqa: PLC0415 - start-up: only in this process

            problems = export_problems(to, settings)
            for problem in problems[:-1]:
                err.print(f"[red]error:[/red] {escape(problem)}", highlight=False)
            if problems:
                fail(problems[-1])
        try:
            results = client.export(to, issue_ids or None, statuses=statuses, min_severity=min_severity,
                                    min_traces=min_traces, dry_run=dry_run)
        except ClientError as exc:
            if exc.status in (400, 404, 409) and exc.reason:  # 409: a tracker the server has no settings for
                fail(exc.reason, 1 if exc.status == 404 or exc.reason.startswith("no issue") else 2)
            raise
    if json_:
        print_json([{k: v for k, v in asdict(r).items() if k != "request" or v is not None} for r in results])
    elif not results:
        out.print("no issue matched (see `sumwatch issues`)")
    elif dry_run:
        for r in results:
            out.print(f"[bold]{r.issue_id}[/bold] -> {r.target} ({r.action}):", highlight=False)
            print_json(r.request)
    else:
        out.print(table(f"export to {to}", ["issue", "action", "state", "ticket / error"],
                        [(r.issue_id, r.action, r.tracker_state or "-", escape(r.error or r.url or r.external_id))
                         for r in results]))
    if any(r.action == "failed" for r in results):
        raise typer.Exit(1)
