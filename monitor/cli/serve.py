"""`sumwatch up` (receiver, read API and jobs in one process) and `sumwatch worker` (the jobs alone)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ._shared import DbOption, HomeOption, err, fail, flag, load_settings, open_store, out

if TYPE_CHECKING:
    from ..jobs.worker import JobStats, Worker
    from ..runtime import Runtime
    from ..settings import Settings
    from ..store.connection import Store


def up(host: str | None = typer.Option(None, "--host", help="Bind address (default 127.0.0.1)."),
       port: int | None = typer.Option(None, "--port", help="OTLP/HTTP port (default 4318)."),
       with_worker: bool = flag(True, "--worker/--no-worker",
                                help="Also run the sampler and clustering jobs in this process "
                                     "(the embedded database allows one process)."),
       db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Serve OTLP/HTTP at /v1/traces and write spans into ClickHouse; run the scheduled jobs too."""
    from ..ingest.receiver import ReceiverServer  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..views.app import create_app  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home, host=host, port=port)
    # before the store is locked and the banner says "receiving"; --port 0 takes a free port, announced as such
    settings = settings.with_(port=check_port(settings.receiver.host, settings.receiver.port))
    local_host = "127.0.0.1" if settings.receiver.host in ("0.0.0.0", "::", "") else settings.receiver.host
    endpoint = f"http://{f'[{local_host}]' if ':' in local_host else local_host}:{settings.receiver.port}"
    job_logging()
    with open_store(settings, api=endpoint) as store:
        runtime = build_runtime(settings, store)  # one for the server and the jobs: one model, one set of locks
        jobs = build_worker(runtime) if with_worker else None
        server = ReceiverServer(settings, app=create_app(runtime))
        auth = "bearer token required" if settings.receiver.ingest_token else "no auth (set SUMWATCH_INGEST_TOKEN)"
        api_auth = "API token required" if settings.receiver.api_token else "API open (set SUMWATCH_API_TOKEN)"

        def announce() -> None:  # once the socket listens: every address printed answers when it is read
            err.print(f"sumwatch receiving OTLP/HTTP on {endpoint}/v1/traces ({auth}); "
                      f"storing in {settings.store.database} on {settings.safe_url}. Ctrl-C to stop.")
            err.print(f"acknowledging spans once in the write-ahead log under {settings.receiver_log_path} "
                      "(SUMWATCH_RECEIVER_LOG=on)" if settings.receiver.receiver_log else
                      "acknowledging spans once stored (SUMWATCH_RECEIVER_LOG=off)")
            err.print(f"also GenAI log records on {endpoint}/v1/logs and the Langfuse SDK's export on "
                      f"{endpoint}/api/public/otel/v1/traces")
            err.print(f"API on {endpoint}/api (OpenAPI at {endpoint}/api/openapi.json; {api_auth})")
            err.print(f"dashboard on {endpoint}/")
            if jobs is not None:
                err.print(f"jobs: {jobs.describe()} (--no-worker to run them elsewhere)")

        if jobs is not None:
            jobs.start()
        try:
            server.serve_forever(on_started=announce)  # handles SIGTERM/SIGINT itself and drains the writer
        finally:
            if jobs is not None:  # after the receiver: spans received last are stored before the jobs end
                jobs.stop(wait=True)
        err.print(f"stopped; {server.writer.rows_written} spans written in {server.writer.inserts} inserts"
                  + (f"; jobs: {job_summary(jobs.stats)}" if jobs is not None else ""))


def build_runtime(settings: Settings, store: Store) -> Runtime:
    """The runtime of the settings this command loaded, on its store; settings it cannot use exit 2."""
    from ..runtime import Runtime  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        return Runtime.build(settings, store)
    except ValueError as exc:
        fail(str(exc))


def check_port(host: str, port: int) -> int:
    """The port the receiver will listen on (a free one for port 0); exit with one line when it could not
    listen on host:port (in use, no permission, no such address). Bound the way uvicorn binds, then released
    for it."""
    import errno  # noqa: PLC0415 - start-up: a command imports what it runs
    import socket  # noqa: PLC0415 - start-up: a command imports what it runs

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            return int(sock.getsockname()[1])
    except socket.gaierror as exc:
        fail(f"cannot listen on {host}: {exc.strerror} (set --host or SUMWATCH_HOST to an address of this machine)")
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} on {host} is in use (another sumwatch up, or another program): stop it, or pick "
                 f"another port with --port or SUMWATCH_PORT", 1)
        if exc.errno == errno.EADDRNOTAVAIL:
            fail(f"cannot listen on {host}: no such address on this machine (set --host or SUMWATCH_HOST to one "
                 f"of its addresses)")
        if exc.errno == errno.EACCES:
            fail(f"no permission to listen on port {port} on {host} (ports below 1024 need privileges): pick "
                 f"another with --port or SUMWATCH_PORT", 1)
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 1)


def job_logging() -> None:
    """Job log lines on stderr: sumwatch's at INFO, other libraries' (APScheduler, httpx, ...) at WARNING."""
    import logging  # noqa: PLC0415 - start-up: a command imports what it runs

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("sumwatch").setLevel(logging.INFO)
    # a run longer than the interval makes APScheduler warn at every tick; the worker counts those skips
    logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)


def build_worker(runtime: Runtime) -> Worker:
    from ..jobs.worker import Worker  # noqa: PLC0415 - start-up: a command imports what it runs

    try:
        return Worker(runtime)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


def job_summary(stats: Mapping[str, JobStats]) -> str:
    return ", ".join(f"{name} {s.runs} run(s), {s.failures} failed" + (f", {s.skipped} skipped" if s.skipped else "")
                     for name, s in stats.items())


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
    job_logging()
    with open_store(settings) as store:
        jobs = build_worker(build_runtime(settings, store))
        if once:
            stats = jobs.run_once()
        else:
            err.print(f"sumwatch worker on {settings.store.database} at {settings.safe_url}: {jobs.describe()}. "
                      f"Ctrl-C to stop.")
            jobs.run_until_signal()
            stats = jobs.stats
    out.print(("ran once: " if once else "worker stopped cleanly: ") + job_summary(stats))
    if once and any(s.failures for s in stats.values()):
        raise typer.Exit(1)
