"""`sumwatch up` (receiver, read API and jobs in one process) and `sumwatch worker` (the jobs alone)."""

from __future__ import annotations

from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, engine_errors, err, flag, load_settings, out


def up(host: str | None = typer.Option(None, "--host", help="Bind address (default 127.0.0.1)."),
       port: int | None = typer.Option(None, "--port", help="OTLP/HTTP port (default 4318)."),
       with_worker: bool = flag(True, "--worker/--no-worker",
                                help="Also run the sampler and clustering jobs in this process "
                                     "(the embedded database allows one process)."),
       db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Serve OTLP/HTTP at /v1/traces and write spans into ClickHouse; run the scheduled jobs too."""
    settings = load_settings(db, home, host=host, port=port)
    with engine_errors():
        from ..engine.serve import serve  # noqa: PLC0415 - start-up: a command imports what it runs

        closing = serve(settings, with_worker=with_worker, say=say)
    err.print(closing, markup=False)


def say(line: str) -> None:
    err.print(line, markup=False)


def worker(interval: float | None = typer.Option(None, "--interval",
                                                    help="Seconds between sampler passes "
                                                         "(default 60, env SUMWATCH_SAMPLER_INTERVAL_S)."),
           cron: str | None = typer.Option(None, "--cron",
                                           help="Clustering schedule: a 5-field crontab in UTC "
                                                "(default '*/30 * * * *', env SUMWATCH_CLUSTER_CRON)."),
           once: bool = flag(False, "--once", help="Run one sampler pass and one clustering run now, then exit "
                                                   "(exit 1 when one failed)."),
           db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Run the sampler (interval) and the clustering job (cron) until SIGTERM or Ctrl-C."""
    settings = load_settings(db, home, sampler_interval_s=interval, cluster_cron=cron)
    with engine_errors():
        from ..engine.serve import run_worker  # noqa: PLC0415 - start-up: a command imports what it runs

        closing, failed = run_worker(settings, once=once, say=say)
    out.print(closing)
    if failed:
        raise typer.Exit(1)
