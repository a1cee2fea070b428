"""`sumwatch send-scores`: verdicts back out where teams look (any OTLP endpoint, Langfuse, Phoenix).

    sumwatch send-scores                          # every configured target, verdicts of SUMWATCH_SCORES_WINDOW
    sumwatch send-scores --to langfuse --since 7d
    sumwatch send-scores --to otlp --dry-run      # prints the requests, sends nothing
    sumwatch send-scores --retry-given-up         # once more for the verdicts given up
"""

from __future__ import annotations

from pathlib import Path

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


def send_scores(to: list[str] = typer.Option(None, "--to", help="Target: otlp, langfuse or phoenix; repeat for "
                                                                 "several (default: every configured one)."),
                since: str | None = typer.Option(None, "--since", help="Verdicts scored within this duration, like "
                                                                       "24h or 7d (default SUMWATCH_SCORES_WINDOW)."),
                failing: bool | None = flag(None, "--failing/--all-verdicts",
                                            help="Only failing verdicts, or all (default SUMWATCH_SCORES_VERDICTS)."),
                dry_run: bool = flag(False, "--dry-run", help="Print what would be sent; send nothing."),
                retry_given_up: bool = flag(False, "--retry-given-up",
                                            help="Also send once more the verdicts given up (refused for "
                                                 "themselves, or failing too often)."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Send verdicts not sent yet: each one once per target, counted sent when the target acknowledges it; a failed
    send is tried again next time, up to a few times (a verdict refused for itself, or failing too often, is given
    up), and one whose span the target does not hold yet waits and is tried again on later sends."""
    from ..contract.exports import SCORE_TARGET_NAMES  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..settings.values import parse_duration  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.client import ClientError  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home)
    for name in to or []:
        if name not in SCORE_TARGET_NAMES:
            fail(choice_error("--to", name, SCORE_TARGET_NAMES))
    if since is not None:
        try:
            parse_duration(since)
        except ValueError as exc:
            fail(f"--since: {exc}")
    with open_client(settings, note="sending through it, with its score target settings") as client:
        own_settings_for(client, settings, "export")
        try:
            results = client.send_scores(to or None, since=since, failing_only=failing, dry_run=dry_run,
                                         retry_given_up=retry_given_up)
        except ClientError as exc:
            if exc.status in (400, 409) and exc.reason:  # 409: a target the server has no settings for
                fail(exc.reason)
            raise
    if json_:
        print_json([r.to_json() for r in results])
    elif dry_run:
        for r in results:
            first = "; the first request:" if r.requests else ""
            out.print(f"[bold]{r.target}[/bold] for {escape(_services(r.services))}: would send {r.would_send} "
                      f"verdicts{first}", highlight=False)
            if r.requests:
                print_json(r.requests[0])
    else:
        out.print(table("scores sent", ["target", "services", "sent", "failed", "waiting", "given up", "first error"],
                        [(r.target, escape(_services(r.services)), str(r.sent), str(r.failed), str(r.waiting),
                          str(r.given_up), escape(r.errors[0] if r.errors else "-")) for r in results]))
        waiting = sum(r.waiting for r in results)
        if waiting:
            out.print(f"{waiting} verdicts wait for their span to reach the target: each send tries them again "
                      f"(the worker after a back-off, for up to 7 days)", highlight=False)
        given_up = sum(r.given_up for r in results)
        if given_up:
            out.print(f"{given_up} verdicts given up (refused for themselves, or failing too often): "
                      f"--retry-given-up sends them once more", highlight=False)
    if any(r.failed for r in results):
        raise typer.Exit(1)


def _services(services: list[str] | None) -> str:
    """Whose verdicts a target got, as SUMWATCH_SCORES_SERVICES chose them where the pass ran."""
    return "every service" if services is None else ", ".join(services) + " (SUMWATCH_SCORES_SERVICES)"
