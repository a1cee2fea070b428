"""`sumwatch up` (receiver, API, dashboard and jobs in one process) and `sumwatch worker` (the jobs alone).

    serve(settings, with_worker=True, say=print)     # until SIGTERM or Ctrl-C; the closing line
    line, failed = run_worker(settings, once=True, say=print)

``say`` takes each line the process prints while it runs (the banner once the socket listens, the worker's
start); what cannot start (a port in use, settings the jobs cannot use, a busy database) is an
:class:`EngineError`.
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..ingest.receiver import ReceiverServer
from ..jobs.worker import JobStats, Worker
from ..settings import Settings
from ..views.app import create_app
from . import EngineError
from .local import build_runtime, open_store

if TYPE_CHECKING:
    from ..runtime import Runtime

Say = Callable[[str], None]


def serve(settings: Settings, *, with_worker: bool, say: Say) -> str:
    """Receive, store and serve on ``settings`` until a signal stops it; the jobs too with ``with_worker`` (the
    embedded database allows one process). Returns the closing line: spans written, and the jobs' runs."""
    # before the store is locked and the banner says "receiving"; --port 0 takes a free port, announced as such
    settings = settings.with_(port=check_port(settings.receiver.host, settings.receiver.port))
    local_host = "127.0.0.1" if settings.receiver.host in ("0.0.0.0", "::", "") else settings.receiver.host
    endpoint = f"http://{f'[{local_host}]' if ':' in local_host else local_host}:{settings.receiver.port}"
    job_logging()
    with open_store(settings, api=endpoint) as store:
        runtime = build_runtime(settings, store)  # one for the server and the jobs: one model, one set of locks
        jobs = build_worker(runtime) if with_worker else None
        server = ReceiverServer(settings, app=create_app(runtime))

        def announce() -> None:  # once the socket listens: every address printed answers when it is read
            for line in banner(settings, endpoint, jobs):
                say(line)

        if jobs is not None:
            jobs.start()
        try:
            server.serve_forever(on_started=announce)  # handles SIGTERM/SIGINT itself and drains the writer
        finally:
            if jobs is not None:  # after the receiver: spans received last are stored before the jobs end
                jobs.stop(wait=True)
    return (f"stopped; {server.writer.rows_written} spans written in {server.writer.inserts} inserts"
            + (f"; jobs: {job_summary(jobs.stats)}" if jobs is not None else ""))


def banner(settings: Settings, endpoint: str, jobs: Worker | None) -> list[str]:
    """What `sumwatch up` says once it listens: where it receives, stores, serves, and which jobs run."""
    auth = "bearer token required" if settings.receiver.ingest_token else "no auth (set SUMWATCH_INGEST_TOKEN)"
    api_auth = "API token required" if settings.receiver.api_token else "API open (set SUMWATCH_API_TOKEN)"
    lines = [f"sumwatch receiving OTLP/HTTP on {endpoint}/v1/traces ({auth}); "
             f"storing in {settings.store.database} on {settings.safe_url}. Ctrl-C to stop.",
             f"acknowledging spans once in the write-ahead log under {settings.receiver_log_path} "
             "(SUMWATCH_RECEIVER_LOG=on)" if settings.receiver.receiver_log else
             "acknowledging spans once stored (SUMWATCH_RECEIVER_LOG=off)",
             f"also GenAI log records on {endpoint}/v1/logs and the Langfuse SDK's export on "
             f"{endpoint}/api/public/otel/v1/traces",
             f"API on {endpoint}/api (OpenAPI at {endpoint}/api/openapi.json; {api_auth})",
             f"dashboard on {endpoint}/"]
    if jobs is not None:
        lines.append(f"jobs: {jobs.describe()} (--no-worker to run them elsewhere)")
    return lines


def run_worker(settings: Settings, *, once: bool, say: Say) -> tuple[str, bool]:
    """The sampler (interval) and the clustering job (cron) until a signal, or one pass of each with ``once``.
    Returns the closing line and whether a run of ``once`` failed."""
    job_logging()
    with open_store(settings) as store:
        jobs = build_worker(build_runtime(settings, store))
        if once:
            stats = jobs.run_once()
        else:
            say(f"sumwatch worker on {settings.store.database} at {settings.safe_url}: {jobs.describe()}. "
                f"Ctrl-C to stop.")
            jobs.run_until_signal()
            stats = jobs.stats
    failed = once and any(s.failures for s in stats.values())
    return ("ran once: " if once else "worker stopped cleanly: ") + job_summary(stats), failed


def check_port(host: str, port: int) -> int:
    """The port the receiver will listen on (a free one for port 0); an :class:`EngineError` when it could not
    listen on host:port (in use, no permission, no such address). Bound the way uvicorn binds, then released
    for it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            return int(sock.getsockname()[1])
    except socket.gaierror as exc:
        raise EngineError(f"cannot listen on {host}: {exc.strerror} (set --host or SUMWATCH_HOST to an address of "
                          f"this machine)") from None
    except OSError as exc:
        raise EngineError(*_listen_problem(exc, host, port)) from None


def _listen_problem(exc: OSError, host: str, port: int) -> tuple[str, int]:
    if exc.errno == errno.EADDRINUSE:
        return (f"port {port} on {host} is in use (another sumwatch up, or another program): stop it, or pick "
                f"another port with --port or SUMWATCH_PORT", 1)
    if exc.errno == errno.EADDRNOTAVAIL:
        return (f"cannot listen on {host}: no such address on this machine (set --host or SUMWATCH_HOST to one of "
                f"its addresses)", 2)
    if exc.errno == errno.EACCES:
        return (f"no permission to listen on port {port} on {host} (ports below 1024 need privileges): pick "
                f"another with --port or SUMWATCH_PORT", 1)
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}", 1


def job_logging() -> None:
    """Job log lines on stderr: sumwatch's at INFO, other libraries' (APScheduler, httpx, ...) at WARNING."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("sumwatch").setLevel(logging.INFO)
    # a run longer than the interval makes APScheduler warn at every tick; the worker counts those skips
    logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)


def build_worker(runtime: Runtime) -> Worker:
    try:
        return Worker(runtime)
    except ValueError as exc:
        raise EngineError(str(exc)) from None


def job_summary(stats: Mapping[str, JobStats]) -> str:
    return ", ".join(f"{name} {s.runs} run(s), {s.failures} failed" + (f", {s.skipped} skipped" if s.skipped else "")
                     for name, s in stats.items())
