"""`sumwatch alerts`: the threshold alert rules (SUMWATCH_ALERT_RULES) with their rates, and a check by hand.

    sumwatch alerts                       # each rule: current rate, judged spans, state, what was last sent
    sumwatch alerts check                 # send breaches not sent yet and recoveries, as the worker does
    sumwatch alerts check --dry-run       # print what would be sent; send and store nothing
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
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
    from ..contract.exports import RuleStatus

alerts_app = typer.Typer(invoke_without_command=True, help="Threshold alerts on rubric pass rates.")
_NO_RULES = ("no alert rule is set: set SUMWATCH_ALERT_RULES, like "
             "'groundedness<90%/1h/min50@slack; factuality<95%/6h/service=api@webhook'")


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def _print(statuses: list[RuleStatus], title: str) -> None:
    out.print(table(title, ["rule", "rate", "judged", "state", "sent", "action"],
                    [(escape(s.rule), _rate(s.rate), f"{s.judged} (min {s.min_judged})", s.state, s.sent or "-",
                      escape(f"{s.action}: {s.error}" if s.error else s.action or "-")) for s in statuses]))


@alerts_app.callback()
def alerts(ctx: typer.Context, db: str | None = DbOption, home: Path | None = HomeOption,
           json_: bool = JsonOption) -> None:
    """List the alert rules with each one's pass rate over its window, judged spans and state (firing, ok, not
    enough data); nothing is sent (`sumwatch alerts check` sends)."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    with open_client(load_settings(db, home)) as client:
        statuses = client.alerts()
    if json_:
        print_json([s.to_json() for s in statuses])
    elif not statuses:
        out.print(_NO_RULES, highlight=False)
    else:
        _print(statuses, f"{len(statuses)} alert rules")


@alerts_app.command("check")
def check(ctx: typer.Context,
          dry_run: bool = flag(False, "--dry-run", help="Print what would be sent; send and store nothing."),
          db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Check every rule now: a breach not sent yet is sent, a recovered one gets its "resolved" message."""
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    parent_db, parent_home = ctx.obj or (None, None)
    settings = load_settings(db or parent_db, home or parent_home)
    with open_client(settings, note="checking through it, with its alert rules") as client:
        own_settings_for(client, settings, "export")
        try:
            statuses = client.check_alerts(dry_run=dry_run)
        except ClientError as exc:
            if exc.status == 400 and exc.reason:
                fail(exc.reason)
            raise
    if json_:
        print_json([s.to_json() for s in statuses])
        return
    if not statuses:
        out.print(_NO_RULES, highlight=False)
        return
    _print(statuses, "alert rules checked" + (" (dry run: nothing sent)" if dry_run else ""))
    if dry_run:
        for s in statuses:
            if s.request is not None:
                out.print(f"[bold]{escape(s.rule)}[/bold]: {s.action}; the request:", highlight=False)
                print_json(s.request)
    if any(s.action == "failed" for s in statuses):
        raise typer.Exit(1)
