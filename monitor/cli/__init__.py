"""The ``sumwatch`` command line.

    sumwatch demo --n 200          # the whole loop on the embedded database
    sumwatch up --port 4318        # OTLP/HTTP receiver
    sumwatch traces --limit 20 --json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..settings import Settings
from ..store.connection import Store, StoreError

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Watch LLM summarization: trace, store, score, cluster.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
traces_app = typer.Typer(invoke_without_command=True, help="Summarization spans.")
app.add_typer(db_app, name="db")
app.add_typer(traces_app, name="traces")
corpus_app = typer.Typer(no_args_is_help=True, help="Calibration corpora: review, label, import, export.")
app.add_typer(corpus_app, name="corpus")

# Piped output keeps whole lines (ids must never fold); a terminal gets its own width.
out = Console(width=None if sys.stdout.isatty() else 220)
err = Console(stderr=True, soft_wrap=True)

DbOption = typer.Option(None, "--db", help="ClickHouse URL (http://user:pass@host:8123 or chdb:///dir); "
                                           "default: embedded chDB under SUMWATCH_HOME.")
HomeOption = typer.Option(None, "--home", help="Data directory (default ./.sumwatch, env SUMWATCH_HOME).")
JsonOption = typer.Option(False, "--json", help="Print one JSON document on stdout, for scripts.")


def _settings(db: str | None, home: Path | None, **more: Any) -> Settings:
    try:
        return Settings.from_env(clickhouse_url=db, home=home, **more)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


@contextmanager
def _store(settings: Settings, *, migrate: bool = True, api: str | None = None,
           busy_to_caller: bool = False) -> Iterator[Store]:
    """Open the store (and bring the schema up to date), turning store errors into a plain message.
    ``busy_to_caller`` lets a StoreBusyError naming a serving process through, for readers to use it."""
    from ..store.connection import StoreBusyError
    from ..store.migrations import migrate as run_migrations

    try:
        store = Store.open(settings, api=api)
    except StoreError as exc:
        if busy_to_caller and isinstance(exc, StoreBusyError) and exc.api:
            raise
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from None
    try:
        if migrate:
            run_migrations(store)
        yield store
    except StoreError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from None
    finally:
        store.close()


@contextmanager
def _reader(settings: Settings) -> Iterator[Any]:
    """Something with list_traces/get_trace: the store, or the running `sumwatch up` that holds it."""
    from ..store.connection import StoreBusyError
    from ..views.readers import RemoteReader, StoreReader

    try:
        with _store(settings, busy_to_caller=True) as store:
            yield StoreReader(store)
    except StoreBusyError as exc:  # raised by the open, before anything was yielded
        err.print(f"(the database is held by the sumwatch server at {exc.api}; reading through it)")
        yield RemoteReader(exc.api, settings.ingest_token)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=None, default=str) + "\n")


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str = "") -> Table:
    """A table whose last column wraps and whose other columns (ids, numbers) never do."""
    table = Table(title=title, caption=caption or None, show_lines=False, header_style="bold")
    for i, col in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(col, overflow="fold" if last else "ellipsis", no_wrap=not last)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    return table


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=False, disable=not err.is_terminal)


# -- db ---------------------------------------------------------------------------------------
@db_app.command("migrate")
def db_migrate(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Create or upgrade the schema (idempotent)."""
    from ..store.migrations import MIGRATIONS, migrate

    settings = _settings(db, home)
    with _store(settings, migrate=False) as store:
        applied = migrate(store)
    latest = max(m.version for m in MIGRATIONS)
    if json_:
        _print_json({"applied": applied, "version": latest, "database": settings.database})
    elif applied:
        out.print(f"applied migration(s) {', '.join(map(str, applied))}; schema at version {latest} "
                  f"in {settings.database} on {settings.safe_url}")
    else:
        out.print(f"schema already at version {latest} in {settings.database} on {settings.safe_url}")


@db_app.command("ddl")
def db_ddl(cluster: str | None = typer.Option(None, "--cluster", help="Render ON CLUSTER DDL for this cluster."),
           database: str = typer.Option("otel", "--database")) -> None:
    """Print the DDL that `db migrate` runs, for review (no database needed)."""
    from ..store.ddl import Target, migrations_table_ddl
    from ..store.migrations import MIGRATIONS

    target = Target(database, cluster)
    for sql in migrations_table_ddl(target) + [s for m in MIGRATIONS for s in m.statements(target)]:
        out.print(sql + ";\n", markup=False, highlight=False)


# -- up ---------------------------------------------------------------------------------------
@app.command()
def up(host: str | None = typer.Option(None, "--host", help="Bind address (default 127.0.0.1)."),
       port: int | None = typer.Option(None, "--port", help="OTLP/HTTP port (default 4318)."),
       with_worker: bool = typer.Option(True, "--worker/--no-worker",
                                        help="Also run the sampler and clustering jobs in this process "
                                             "(the embedded database allows one process)."),
       db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Serve OTLP/HTTP at /v1/traces and write spans into ClickHouse; run the scheduled jobs too."""
    from ..ingest.receiver import ReceiverServer
    from ..views.api import api_routes

    settings = _settings(db, home, host=host, port=port)
    local_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    endpoint = f"http://{local_host}:{settings.port}"
    _job_logging()
    with _store(settings, api=endpoint) as store:
        jobs = _worker(store, settings) if with_worker else None
        server = ReceiverServer(settings, store, extra_routes=api_routes(store, settings))
        auth = "bearer token required" if settings.ingest_token else "no auth (set SUMWATCH_INGEST_TOKEN)"
        err.print(f"sumwatch receiving OTLP/HTTP on {endpoint}/v1/traces ({auth}); "
                  f"storing in {settings.database} on {settings.safe_url}. Ctrl-C to stop.")
        if jobs is not None:
            err.print(f"jobs: {jobs.describe()} (--no-worker to run them elsewhere)")
            jobs.start()
        try:
            server.serve_forever()  # handles SIGTERM/SIGINT itself and drains the writer
        finally:
            if jobs is not None:  # after the receiver: spans received last are stored before the jobs end
                jobs.stop(wait=True)
        err.print(f"stopped; {server.writer.rows_written} spans written in {server.writer.inserts} inserts"
                  + (f"; jobs: {_job_summary(jobs.stats)}" if jobs is not None else ""))


# -- worker -------------------------------------------------------------------------------------
def _job_logging() -> None:
    """Job log lines on stderr: sumwatch's at INFO, other libraries' (APScheduler, httpx, ...) at WARNING."""
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("sumwatch").setLevel(logging.INFO)
    # a run longer than the interval makes APScheduler warn at every tick; the worker counts those skips
    logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)


def _worker(store: Store, settings: Settings) -> Any:
    from ..jobs.worker import Worker

    try:
        return Worker(store, settings)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


def _job_summary(stats: Any) -> str:
    return ", ".join(f"{name} {s.runs} run(s), {s.failures} failed" + (f", {s.skipped} skipped" if s.skipped else "")
                     for name, s in stats.items())


@app.command()
def worker(interval: float | None = typer.Option(None, "--interval",
                                                    help="Seconds between sampler passes "
                                                         "(default 60, env SUMWATCH_SAMPLER_INTERVAL_S)."),
           cron: str | None = typer.Option(None, "--cron", help="Clustering schedule: a 5-field crontab in UTC "
                                                                   "(default '*/30 * * * *', env SUMWATCH_CLUSTER_CRON)."),
           once: bool = typer.Option(False, "--once", help="Run one sampler pass and one clustering run now, then exit "
                                                           "(exit 1 when one failed)."),
           db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Run the sampler (interval) and the clustering job (cron) until SIGTERM or Ctrl-C."""
    settings = _settings(db, home, sampler_interval_s=interval, cluster_cron=cron)
    _job_logging()
    with _store(settings) as store:
        jobs = _worker(store, settings)
        if once:
            stats = jobs.run_once()
        else:
            err.print(f"sumwatch worker on {settings.database} at {settings.safe_url}: {jobs.describe()}. "
                      f"Ctrl-C to stop.")
            jobs.run_until_signal()
            stats = jobs.stats
    out.print(("ran once: " if once else "worker stopped cleanly: ") + _job_summary(stats))
    if once and any(s.failures for s in stats.values()):
        raise typer.Exit(1)


# -- ingest -------------------------------------------------------------------------------------
@app.command()
def ingest(file: Path = typer.Argument(..., help="JSONL file: one {source, summary, ...} object per line."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Backfill: each line becomes a summarization span. Bad lines are reported and skipped."""
    from ..ingest.backfill import ingest_file

    if not file.is_file():
        err.print(f"[red]error:[/red] no such file: {file}")
        raise typer.Exit(2)
    settings = _settings(db, home)
    with _store(settings) as store, _progress() as progress:
        task = progress.add_task(f"ingesting {file.name}", total=None)
        report = ingest_file(store, file, on_progress=lambda stored, bad: progress.update(task, completed=stored))
    for bad in report.bad[:50]:
        err.print(f"[yellow]{file}:{bad.line}:[/yellow] skipped: {bad.reason}", markup=True, highlight=False)
    if len(report.bad) > 50:
        err.print(f"... and {len(report.bad) - 50} more bad lines")
    if json_:
        _print_json({"file": str(file), "stored": report.stored,
                     "skipped": [{"line": b.line, "reason": b.reason} for b in report.bad]})
    else:
        out.print(f"stored {report.stored} summarization spans from {file}"
                  + (f"; skipped {len(report.bad)} bad line(s)" if report.bad else ""))


# -- traces -------------------------------------------------------------------------------------
@traces_app.callback()
def traces(ctx: typer.Context, limit: int = typer.Option(20, "--limit", "-n", min=1, help="How many, newest first."),
           service: str | None = typer.Option(None, "--service", help="Only this service."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List recent summarization spans (`traces show ID` for one)."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    with _reader(_settings(db, home)) as reader:
        rows = reader.list_traces(limit=limit, service=service)
    if json_:
        _print_json([r.to_json() for r in rows])
        return
    if not rows:
        out.print("no summarization spans yet: run `sumwatch demo`, `sumwatch ingest FILE`, or point an "
                  "exporter at `sumwatch up`")
        return
    out.print(_table(f"latest {len(rows)} summarization spans",
                     ["time (UTC)", "trace id", "service", "domain", "band", "words in→out", "status", "ms",
                      "summary"],
                     [(r.timestamp[:19].replace("T", " "), r.trace_id, r.service, r.domain, r.band,
                       f"{r.source_words}→{r.summary_words}", r.status, r.duration_ms,
                       r.summary_preview[:70] + ("…" if len(r.summary_preview) > 70 else "")) for r in rows]))


@traces_app.command("show")
def traces_show(ctx: typer.Context, trace_id: str = typer.Argument(..., help="32-hex trace id."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Show one trace's spans with all attributes."""
    from ..views.readers import RemoteError

    parent_db, parent_home = ctx.obj or (None, None)
    try:
        with _reader(_settings(db or parent_db, home or parent_home)) as reader:
            spans = reader.get_trace(trace_id)
    except (ValueError, RemoteError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    if not spans:
        err.print(f"[red]error:[/red] no trace {trace_id} in the store")
        raise typer.Exit(1)
    if json_:
        _print_json([s.to_json() for s in spans])
        return
    for s in spans:
        out.print(f"[bold]{s.name}[/bold]  trace {s.trace_id}  span {s.span_id}  {s.kind}  {s.status}"
                  f"{(': ' + s.status_message) if s.status_message else ''}  {s.duration_ms} ms  "
                  f"service {s.service}  at {s.timestamp}")
        out.print(_table("attributes", ["key", "value"], sorted(s.attributes.items())))
        for event in s.events:
            out.print(f"event {event['name']} at {event['timestamp']}: {event['attributes']}")


# -- scoring ------------------------------------------------------------------------------------
def _shard(value: str | None) -> tuple[int, int]:
    if not value:
        return (0, 1)
    index, sep, count = value.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        err.print(f"[red]error:[/red] --shard must be i/N with 0 <= i < N (e.g. 0/4), got {value!r}")
        raise typer.Exit(2)
    return int(index), int(count)


def _cascade(settings: Settings, mode: str | None = None):
    from ..scoring.judges import build_cascade

    try:
        return build_cascade(settings, mode=mode)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


@app.command()
def sample(all_spans: bool = typer.Option(False, "--all", help="Ignore the watermark: consider every stored span "
                                                                "(backfills, new judge versions). Nothing is scored twice."),
           rate: float | None = typer.Option(None, "--rate", min=0.0, max=1.0, help="Share of traces to score."),
           shard: str | None = typer.Option(None, "--shard", help="i/N: this sampler's share of the work."),
           limit: int | None = typer.Option(None, "--limit", min=1, help="Stop after this many spans."),
           mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
           events: bool | None = typer.Option(None, "--events/--no-events",
                                                 help="Also write gen_ai.evaluation.result events into otel_traces."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Score unscored summarization spans on the four rubrics (one pass)."""
    from ..scoring.sampler import Sampler

    settings = _settings(db, home)
    cascade = _cascade(settings, mode)
    with _store(settings) as store, _progress() as progress:
        try:
            sampler = Sampler.from_settings(store, cascade, settings, rate=rate, shard=_shard(shard),
                                            eval_events=events)
        except ValueError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
        task = progress.add_task("scoring", total=None)
        report = sampler.run_pass(all_spans=all_spans, limit=limit,
                                  on_progress=lambda seen, scored: progress.update(task, completed=scored))
    if json_:
        _print_json(report.to_json())
        return
    out.print(f"scored {report.scored_spans} spans ({report.score_rows} rubric scores) with {report.judge_version} "
              f"in {report.seconds:.1f}s; {report.failing} with a failing rubric, {report.errors} judge errors"
              + (f", {report.skipped_no_text} without text" if report.skipped_no_text else "")
              + (f"; {report.llm_requests} LLM judgements, ${report.spent_usd:.4f}" if report.llm_requests else ""))


@app.command()
def scores(trace: str | None = typer.Option(None, "--trace", help="Only this trace."),
           rubric: str | None = typer.Option(None, "--rubric"),
           failing: bool = typer.Option(False, "--failing", help="Only failing scores."),
           limit: int = typer.Option(50, "--limit", "-n", min=1),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List rubric scores, newest first."""
    from ..rubrics.verdicts import RUBRICS
    from ..store.scores import list_scores

    if rubric is not None and rubric not in RUBRICS:
        err.print(f"[red]error:[/red] unknown rubric {rubric!r} (one of {', '.join(RUBRICS)})")
        raise typer.Exit(2)
    with _store(_settings(db, home)) as store:
        rows = list_scores(store, trace_id=trace, rubric=rubric, failing_only=failing, limit=limit)
    if json_:
        _print_json([r.to_json() for r in rows])
        return
    if not rows:
        out.print("no scores yet: run `sumwatch sample`")
        return
    out.print(_table(f"{len(rows)} scores", ["trace id", "rubric", "verdict", "score", "failure mode", "tier",
                                             "evidence"],
                     [(r.trace_id, r.rubric, r.verdict, f"{r.score:.2f}", r.failure_mode, r.tier,
                       (r.error or r.evidence)[:100]) for r in rows]))


# -- clustering and issues ----------------------------------------------------------------------
_STAGES = {"read": "reading failing scores", "embed": "embedding failure texts", "cluster": "clustering"}


@app.command()
def cluster(window: str | None = typer.Option(None, "--window", help="How far back to look, like 24h or 7d "
                                                 "(default SUMWATCH_CLUSTER_WINDOW, 24h)."),
            db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """One clustering run: failing spans of the window become named, tracked issues; representatives are
    promoted to the calibration corpora."""
    settings = _settings(db, home, cluster_window=window)
    with _store(settings) as store:
        report = _run_clustering(store, settings)
    if json_:
        _print_json(report.to_json())
        return
    _print_run(report)


def _run_clustering(store: Store, settings: Settings) -> Any:
    """One clustering run with progress bars; settings the job cannot use exit 2 before it starts."""
    from ..issues.job import build_clusterer, run_clustering
    from ..settings import parse_duration

    try:
        parse_duration(settings.cluster_window)
        clusterer = build_clusterer(settings)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    with _progress() as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(_STAGES.get(stage, stage), total=total or None)
            progress.update(tasks[stage], completed=done, total=total or None)

        return run_clustering(store, settings, clusterer=clusterer, on_progress=on_progress)


def _print_run(report: Any) -> None:
    from ..issues.reads import trend_label

    share = f"{report.clustered / report.failures:.0%}" if report.failures else "-"
    out.print(f"clustering run {report.run_id}: {report.failures} failing spans since "
              f"{report.window_start:%Y-%m-%d %H:%M} UTC; {report.clustered} ({share}) in {len(report.issues)} issues "
              f"({report.new_issues} new), {report.noise} unclustered; {report.embedded} newly embedded; "
              f"{report.promoted} examples promoted for labelling; named by {report.namer}; {report.seconds:.1f}s")
    if report.resolved:
        out.print(f"resolved: {', '.join(report.resolved)}")
    if report.issues:
        out.print(_issue_table("issues in this run", [i.to_json() for i in report.issues], trend_label))


def _issue_table(title: str, issues: Sequence[dict], trend_label: Any, caption: str = "") -> Table:
    return _table(title, ["id", "status", "severity", "rubric", "traces", "share", "trend", "title / fix"],
                  [(i["issue_id"], i["status"], i["severity"], i["rubric"], i["traces"],
                    f"{i['share']:.0%}" if i["members"] else "-", trend_label(i.get("trend") or [i["members"]]),
                    f"{i['title']}\n[dim]fix: {i['fix']}[/dim]") for i in issues], caption=caption)


issues_app = typer.Typer(invoke_without_command=True, help="Issues found by clustering failing traces.")
app.add_typer(issues_app, name="issues")


@issues_app.callback()
def issues(ctx: typer.Context,
           open_only: bool = typer.Option(False, "--open", help="Leave out resolved issues."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """List issues as the last clustering run left them (`issues show ID` for one)."""
    from ..issues.reads import trend_label

    if ctx.invoked_subcommand is not None:
        ctx.obj = (db, home)
        return
    with _reader(_settings(db, home)) as reader:
        doc = reader.issues(include_resolved=not open_only)
    if json_:
        _print_json(doc)
        return
    run = doc["run"]
    if run is None:
        out.print("no clustering run yet: run `sumwatch cluster` (or `sumwatch demo`)")
        return
    caption = (f"run {run['run_id']} at {run['finished_at'][:19]}Z: {run['failures']} failing spans, "
               f"{run['clustered']} in issues, {run['noise']} unclustered; trend = members in the last runs")
    out.print(_issue_table(f"{len(doc['issues'])} issues", doc["issues"], trend_label, caption))
    out.print("next: `sumwatch issues show ID`, `sumwatch corpus list --status needs_label`")


@issues_app.command("show")
def issues_show(ctx: typer.Context, issue_id: str = typer.Argument(..., help="Issue id, like SW-3."),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """One issue: description, cause, fix, representative failures with their evidence, trace ids."""
    from ..issues.reads import parse_issue_id, trend_label

    parent_db, parent_home = ctx.obj or (None, None)
    try:
        parse_issue_id(issue_id)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    with _reader(_settings(db or parent_db, home or parent_home)) as reader:
        doc = reader.issue(issue_id)
    if doc is None:
        err.print(f"[red]error:[/red] no issue {issue_id} (see `sumwatch issues`)")
        raise typer.Exit(1)
    if json_:
        _print_json(doc)
        return
    out.print(f"[bold]{doc['issue_id']}[/bold] {doc['title']}", highlight=False)
    out.print(f"status {doc['status']} · severity {doc['severity']} · {doc['rubric']} / {doc['failure_mode']} · "
              f"{doc['traces']} traces ({doc['share']:.0%} of failures) in the last run · trend "
              f"{trend_label(doc['trend'])} · first seen {doc['first_seen'][:16]}", highlight=False)
    for label, key in (("description", "description"), ("probable root cause", "root_cause"), ("fix", "fix")):
        out.print(f"[bold]{label}:[/bold] {doc[key]}", highlight=False)
    examples = [("representative", e) for e in doc["representatives"]] + [("boundary", e) for e in doc["boundary"]]
    if examples:
        out.print(_table(f"examples from run {doc['seen_in_run']}", ["role", "trace id", "membership", "verdict",
                                                                      "evidence"],
                         [(role, e["trace_id"], f"{e['membership']:.2f}", f"{e['rubric']} {e['verdict']}",
                           e["evidence"][:240]) for role, e in examples]))
    if doc["trace_ids"]:
        out.print(f"trace ids ({len(doc['trace_ids'])}): " + " ".join(doc["trace_ids"][:50])
                  + (" ..." if len(doc["trace_ids"]) > 50 else ""), highlight=False)


# -- calibration ------------------------------------------------------------------------------
RubricOption = typer.Option(..., "--rubric", help="groundedness | completeness | factuality | conciseness")


def _check_rubric(rubric: str | None) -> None:
    from ..rubrics.verdicts import RUBRICS

    if rubric is not None and rubric not in RUBRICS:
        err.print(f"[red]error:[/red] unknown rubric {rubric!r} (one of {', '.join(RUBRICS)})")
        raise typer.Exit(2)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@app.command()
def calibrate(rubric: str = RubricOption,
              judge_version: str | None = typer.Option(None, "--judge-version",
                                                          help="Label for this judge (default: the cascade's version)."),
              mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
              record: bool = typer.Option(True, "--record/--no-record", help="Store a passing run as the baseline."),
              db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Cohen's kappa of the judge against the human verdicts; exits 1 when it fell below the baseline."""
    from ..calibration.corpus import seed_starter_corpora
    from ..calibration.gate import calibrate as run_calibration

    _check_rubric(rubric)
    settings = _settings(db, home)
    cascade = _cascade(settings, mode)
    with _store(settings) as store:
        seed_starter_corpora(store, [rubric])
        try:
            report = run_calibration(store, cascade, rubric, judge_version=judge_version, record=record)
        except ValueError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    gate = report.gate
    if json_:
        _print_json(report.to_json())
    else:
        baseline = (f"baseline {_fmt(gate.baseline_kappa)} ({gate.baseline_version})" if gate and gate.baseline_version
                    else "no baseline yet")
        out.print(_table(f"{rubric}: {report.judge_version}",
                         ["bucket", "items", "kappa vs pass", "judge pass rate"],
                         [(b.bucket, b.items, _fmt(b.kappa), f"{b.judge_pass_rate:.0%}") for b in report.buckets],
                         caption=f"overall kappa {_fmt(report.kappa)}, accuracy {report.accuracy:.1%} on "
                                 f"{report.items} labelled items; {baseline}"))
        for reason in (gate.reasons if gate else []):
            (out if gate and gate.passed else err).print(("" if gate and gate.passed else "[red]gate:[/red] ") + reason)
        if report.recorded:
            out.print(f"recorded as the {rubric} baseline for {report.judge_version}")
    if gate is not None and not gate.passed:
        raise typer.Exit(1)


@corpus_app.command("list")
def corpus_list(rubric: str | None = typer.Option(None, "--rubric"),
                status: str | None = typer.Option(None, "--status", help="labelled | needs_label | rejected"),
                limit: int = typer.Option(50, "--limit", "-n", min=1),
                db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Corpus items (promoted ones wait as needs_label)."""
    from ..calibration.corpus import seed_starter_corpora
    from ..store.corpus import STATUSES, load_items

    _check_rubric(rubric)
    if status is not None and status not in STATUSES:
        err.print(f"[red]error:[/red] status must be one of {', '.join(STATUSES)}")
        raise typer.Exit(2)
    with _store(_settings(db, home)) as store:
        seed_starter_corpora(store)
        items = load_items(store, rubric=rubric, status=status)
    if json_:
        _print_json([i.to_json() for i in items[:limit]])
        return
    out.print(_table(f"{len(items)} corpus items" + (f" (showing {limit})" if len(items) > limit else ""),
                     ["id", "rubric", "status", "human", "proposed", "bucket", "origin", "summary"],
                     [(i.item_id, i.rubric, i.status, i.human_verdict, i.proposed_verdict, i.bucket, i.origin,
                       " ".join(i.text.split())[:80]) for i in items[:limit]]))


@corpus_app.command("label")
def corpus_label(item_id: str = typer.Argument(..., help="Item id (from `corpus list`)."),
                 verdict: str = typer.Argument(..., help="The human verdict, or 'rejected' to drop the item."),
                 bucket: str | None = typer.Option(None, "--bucket", help="Failure-mode bucket."),
                 note: str | None = typer.Option(None, "--note"),
                 db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Label a corpus item; labelled items count in `calibrate`."""
    from ..calibration.corpus import label_item

    with _store(_settings(db, home)) as store:
        try:
            item = label_item(store, item_id, verdict, bucket=bucket, note=note)
        except (KeyError, ValueError) as exc:
            err.print(f"[red]error:[/red] {exc.args[0] if exc.args else exc}")
            raise typer.Exit(2) from None
    if json_:
        _print_json(item.to_json())
    else:
        out.print(f"{item.item_id}: {item.status}" + (f" as {item.human_verdict}" if item.status == "labelled" else ""))


@corpus_app.command("export")
def corpus_export(rubric: str | None = typer.Option(None, "--rubric"),
                  status: str | None = typer.Option(None, "--status"),
                  output: Path | None = typer.Option(None, "--output", "-o", help="File (default: stdout)."),
                  db: str | None = DbOption, home: Path | None = HomeOption) -> None:
    """Write corpus items as JSONL."""
    from ..calibration.corpus import export_jsonl, seed_starter_corpora
    from ..store.corpus import load_items

    _check_rubric(rubric)
    with _store(_settings(db, home)) as store:
        seed_starter_corpora(store)
        text = export_jsonl(load_items(store, rubric=rubric, status=status))
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
        err.print(f"wrote {text.count(chr(10))} items to {output}")


@corpus_app.command("import")
def corpus_import(file: Path = typer.Argument(..., help="JSONL of corpus items."),
                  db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Add or update corpus items; bad lines are reported by number and skipped."""
    from ..calibration.corpus import import_jsonl

    if not file.is_file():
        err.print(f"[red]error:[/red] no such file: {file}")
        raise typer.Exit(2)
    with _store(_settings(db, home)) as store:
        report = import_jsonl(store, file)
    for line, reason in report.bad:
        err.print(f"[yellow]{file}:{line}:[/yellow] skipped: {reason}")
    if json_:
        _print_json({"added": report.added, "updated": report.updated,
                     "skipped": [{"line": n, "reason": r} for n, r in report.bad]})
    else:
        out.print(f"added {report.added}, updated {report.updated} corpus items"
                  + (f"; skipped {len(report.bad)} bad line(s)" if report.bad else ""))


# -- demo ---------------------------------------------------------------------------------------
@app.command()
def demo(n: int = typer.Option(200, "--n", min=1, help="How many summarization calls to generate."),
         seed: int = typer.Option(7, "--seed"),
         score: bool = typer.Option(True, "--score/--no-score", help="Score the run with the judge cascade."),
         cluster: bool = typer.Option(True, "--cluster/--no-cluster", help="Cluster failing spans into issues "
                                      "(after scoring)."),
         mode: str | None = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always."),
         db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """The whole loop on a realistic workload with planted failures: trace a decorated summarizer, score the
    spans, cluster the failures into named issues, promote examples for labelling."""
    from ..demo.run import run_demo, score_demo

    settings = _settings(db, home)
    cascade = _cascade(settings, mode) if score else None
    scoring = None
    with _store(settings) as store, _progress() as progress:
        task = progress.add_task("summarizing", total=n)
        result = run_demo(store, n=n, seed=seed, service=settings.service_name,
                          on_progress=lambda i, total: progress.update(task, completed=i))
        if cascade is not None:
            scoring_task = progress.add_task("scoring", total=n)
            scoring = score_demo(store, cascade, result.run_id,
                                 on_progress=lambda seen, scored: progress.update(scoring_task, completed=scored))
    clustering = None
    if scoring is not None and cluster:
        with _store(settings, migrate=False) as store:
            clustering = _run_clustering(store, settings)
    if json_:
        _print_json({**result.to_json(), "scoring": scoring.to_json() if scoring else None,
                     "clustering": clustering.to_json() if clustering else None})
        return
    out.print(f"demo run {result.run_id}: {result.generated} summarization calls traced, "
              f"{result.stored} spans stored in {settings.database} on {settings.safe_url}")
    total = max(result.stored, 1)
    out.print(_table("stored spans by domain", ["domain", "spans"], sorted(result.by_domain.items())))
    if scoring is None:
        out.print(_table("stored spans by planted failure mode (ground truth; scorers never read it)",
                         ["planted mode", "spans", "share"],
                         [(m, c, f"{c / total:.0%}") for m, c in sorted(result.by_mode.items(), key=lambda kv: -kv[1])]))
    else:
        out.print(f"scored {scoring.scored} spans with {scoring.judge_version} in {scoring.seconds:.1f}s")
        out.print(_table("pass rate per rubric", ["rubric", "pass rate"],
                         [(r, f"{v:.0%}") for r, v in scoring.pass_rates.items()]))
        clean = scoring.detection.get("none", {})
        out.print(_table("detection per planted failure mode (ground truth from the generator)",
                         ["planted mode", "spans", "flagged", "caught by"],
                         [(m, d["spans"], f"{d['flagged_share']:.0%}",
                           ", ".join(f"{r} {c}" for r, c in sorted(d["caught_by"].items(), key=lambda kv: -kv[1])))
                          for m, d in scoring.detection.items() if m != "none"],
                         caption=f"good summaries flagged (false positives): {clean.get('flagged_share', 0):.0%} "
                                 f"of {clean.get('spans', 0)}"))
    out.print(_table("examples", ["trace id", "domain", "band", "planted", "summary"],
                     [(e["trace_id"], e["domain"], e["band"], e["planted_mode"], e["summary"][:90])
                      for e in result.examples]))
    if clustering is not None:
        _print_run(clustering)
        out.print("next: `sumwatch issues`, `sumwatch issues show SW-1`, `sumwatch corpus list --status needs_label`, "
                  "`sumwatch traces show TRACE_ID`")
    else:
        out.print("next: `sumwatch traces`, `sumwatch scores --failing`, `sumwatch traces show TRACE_ID`")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
