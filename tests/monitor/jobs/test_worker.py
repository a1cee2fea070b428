"""The worker: the sampler and the clustering job on a schedule, in-process and as `sumwatch worker` / `up`."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from fakes.tracing import memory_provider
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.jobs.worker import CLUSTERING_JOB, SAMPLER_JOB, Worker, crontab_trigger
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.tracer import summarization

pytestmark = pytest.mark.integration

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))
NEVER = "0 0 1 1 *"  # a cron that does not fire during a test


def score_rows(store):
    return store.query_rows("SELECT count() FROM sumwatch_scores FINAL")[0][0]


def wait_for(condition, what):
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def rules_only(settings):
    return build_cascade(settings.with_(embeddings=False), mode="off")


class FlakyCascade:
    """The real cascade, except that its first score_batch raises."""

    def __init__(self, inner):
        self._inner, self.calls = inner, 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def score_batch(self, cases, *args, **kwargs):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("judge backend fell over")
        return self._inner.score_batch(cases, *args, **kwargs)


class SlowCascade(FlakyCascade):
    def score_batch(self, cases, *args, **kwargs):
        time.sleep(0.1)
        return self._inner.score_batch(cases, *args, **kwargs)


def test_worker_scores_every_pending_span_once_and_registers_both_jobs(store, settings):
    run_demo(store, n=40)
    worker = Worker(Runtime.build(settings.with_(sampler_interval_s=0.1, cluster_cron=NEVER), store),
                    cascade=rules_only(settings))
    jobs = {job.id: job for job in worker.scheduler.get_jobs()}
    assert set(jobs) == {SAMPLER_JOB, CLUSTERING_JOB}
    assert all(j.max_instances == 1 and j.coalesce is True and j.misfire_grace_time > 0 for j in jobs.values())
    worker.start()
    try:
        wait_for(lambda: score_rows(store) >= 160, "40 spans scored")
        wait_for(lambda: worker.stats[SAMPLER_JOB].runs >= 3, "more sampler runs")  # later passes add nothing
    finally:
        worker.stop()
    assert not worker.running
    assert score_rows(store) == store.query_rows("SELECT count() FROM sumwatch_scores")[0][0] == 40 * 4
    sampler = worker.stats[SAMPLER_JOB]
    assert sampler.runs >= 3 and sampler.failures == 0 and sampler.last_error is None
    assert sampler.last_summary.startswith("sampler: scored 0 spans")
    assert worker.stats[CLUSTERING_JOB].runs == 0


def test_a_failing_run_is_logged_and_the_next_interval_succeeds(store, settings, caplog):
    run_demo(store, n=12)
    cascade = FlakyCascade(rules_only(settings))
    worker = Worker(Runtime.build(settings.with_(sampler_interval_s=0.2, cluster_cron=NEVER), store), cascade=cascade)
    with caplog.at_level("INFO", logger="sumwatch.monitor.jobs.worker"):
        worker.start()
        try:
            wait_for(lambda: worker.stats[SAMPLER_JOB].runs >= 2, "the run after the failure")
        finally:
            worker.stop()
    stats = worker.stats[SAMPLER_JOB]
    assert stats.failures == 1 and stats.runs >= 2
    assert stats.last_error == "RuntimeError: judge backend fell over"
    failed = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(failed) == 1 and failed[0].exc_info is not None and "sampler: failed" in failed[0].getMessage()
    assert any("sampler: scored 12 spans" in r.getMessage() for r in caplog.records)
    assert score_rows(store) == 48


def test_stop_ends_a_long_pass_at_a_batch_boundary_and_the_next_start_finishes_it(store, settings):
    run_demo(store, n=40)
    s = settings.with_(sampler_interval_s=60, cluster_cron=NEVER, sample_batch=4)
    worker = Worker(Runtime.build(s, store), cascade=SlowCascade(rules_only(settings)))
    worker.start()
    wait_for(lambda: score_rows(store) > 0, "the first batch")
    started = time.monotonic()
    worker.stop()
    assert time.monotonic() - started < 2  # not the whole pass (10 batches of 0.1 s and more)
    partial = score_rows(store)
    assert 0 < partial < 160 and partial % 16 == 0  # whole batches of 4 spans x 4 rubrics
    assert "stopped after" in worker.stats[SAMPLER_JOB].last_summary
    restarted = Worker(Runtime.build(s, store), cascade=rules_only(settings)).start()
    try:
        wait_for(lambda: restarted.stats[SAMPLER_JOB].runs == 1, "the first pass after the restart")
    finally:
        restarted.stop()
    assert restarted.stats[SAMPLER_JOB].failures == 0
    assert score_rows(store) == store.query_rows("SELECT count() FROM sumwatch_scores")[0][0] == 160


@pytest.mark.parametrize("change, message", [
    ({"cluster_cron": "every half hour"}, "SUMWATCH_CLUSTER_CRON (--cron) 'every half hour' is not a 5-field crontab"),
    ({"cluster_cron": "61 * * * *"}, "SUMWATCH_CLUSTER_CRON (--cron) '61 * * * *' is not a 5-field crontab"),
    ({"sampler_interval_s": 0.0}, "SUMWATCH_SAMPLER_INTERVAL_S (--interval) must be a positive number"),
])
def test_bad_schedule_is_a_clear_error_before_anything_starts(store, settings, change, message):
    run_demo(store, n=4)
    threads = {t.name for t in threading.enumerate()}
    with pytest.raises(ValueError) as caught:
        Worker(Runtime.build(settings.with_(**change), store), cascade=rules_only(settings))
    assert message in str(caught.value)
    assert {t.name for t in threading.enumerate()} <= threads and score_rows(store) == 0


def test_worker_command_reports_a_bad_cron_with_exit_2(cli_env, store):
    result = CliRunner().invoke(app, ["worker", "--cron", "*/30 * * *"], env=cli_env, catch_exceptions=False)
    assert result.exit_code == 2
    assert "SUMWATCH_CLUSTER_CRON (--cron) '*/30 * * *' is not a 5-field crontab" in result.stderr


def test_crontab_weekdays_count_from_sunday():
    saturday = datetime(2026, 11, 21, 12, tzinfo=timezone.utc)
    for expr, day in [("0 3 * * 1", "Monday"), ("0 3 * * 0", "Sunday"), ("0 3 * * 7", "Sunday"),
                      ("0 3 * * 1-5", "Monday"), ("0 3 * * 5-7", "Sunday"), ("0 3 * * sat", "Saturday")]:
        fire = crontab_trigger(expr).get_next_fire_time(None, saturday)
        assert fire.strftime("%A") == day, expr


# -- as processes ------------------------------------------------------------------------------------------
_QUERY = """
import json, sys
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
with Store.open(Settings.from_env()) as store:
    print(json.dumps([store.query_rows(sql) for sql in json.loads(sys.argv[1])], default=str))
"""


def query(env, *sqls):
    """Results of SQL against the subprocess's store, read by another process: this one already hosts
    the test session's chDB engine, and chDB has one per process."""
    done = subprocess.run([sys.executable, "-c", _QUERY, json.dumps(sqls)], env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def proc_env(tmp_path, **more):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMWATCH_")}
    return {**env, "SUMWATCH_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "SUMWATCH_EMBEDDINGS": "false", "SUMWATCH_JUDGE_MODE": "off", **more}


def sumwatch(env, *args):
    done = subprocess.run([SUMWATCH, *args], env=env, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    return done


class Running:
    """A sumwatch process whose stderr goes to a file the test reads while it runs."""

    def __init__(self, env, log, *args):
        self.log = log
        self.proc = subprocess.Popen([SUMWATCH, *args], env=env, stdout=subprocess.PIPE,
                                     stderr=log.open("w"), text=True)

    def text(self):
        return self.log.read_text()

    def wait_for(self, pattern, timeout=HANG_GUARD_S):
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text()):
            assert self.proc.poll() is None, f"exited {self.proc.returncode}:\n{self.text()}"
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n{self.text()}"
            time.sleep(0.05)

    def terminate(self):
        self.proc.send_signal(signal.SIGTERM)
        stdout, _ = self.proc.communicate(timeout=HANG_GUARD_S)
        return self.proc.returncode, stdout


DUPLICATES = ("SELECT TraceId, SpanId, Rubric, count() FROM sumwatch_scores FINAL "
              "GROUP BY TraceId, SpanId, Rubric HAVING count() > 1")


@pytest.mark.slow
def test_a_worker_killed_mid_pass_resumes_on_restart_without_losing_or_repeating_scores(tmp_path):
    n, batch = 120, 8
    env = proc_env(tmp_path, SUMWATCH_SAMPLER_INTERVAL_S="0.2", SUMWATCH_SAMPLE_BATCH=str(batch),
                   SUMWATCH_CLUSTER_CRON=NEVER)
    sumwatch(env, "demo", "--n", str(n), "--no-score")

    # the first worker pauses after each stored batch, so the kill lands after exactly one batch, however
    # busy the machine is
    first = Running({**env, "SUMWATCH_SAMPLER_BATCH_PAUSE_S": "600"}, tmp_path / "first.log", "worker")
    try:
        first.wait_for(r"sampler: \d+ spans scored and stored so far; pausing", timeout=HANG_GUARD_S)
    finally:
        first.proc.kill()
        first.proc.wait(timeout=HANG_GUARD_S)
    assert first.proc.returncode == -signal.SIGKILL
    [[[scored_before]]] = query(env, "SELECT count() FROM sumwatch_scores FINAL")
    assert scored_before == batch * 4, f"the kill did not land after the first batch:\n{first.text()}"

    second = Running(env, tmp_path / "second.log", "worker")
    try:
        second.wait_for(r"sampler: scored [1-9]\d* spans")  # the rest of the backlog
        second.wait_for(r"sampler: scored 0 spans")  # a later pass: nothing left
    finally:
        code, stdout = second.terminate()
    assert code == 0, second.text()
    assert "worker stopped cleanly: sampler" in stdout and "0 failed" in stdout
    rest = int(re.search(r"sampler: scored (\d+) spans", second.text()).group(1))
    assert scored_before + rest * 4 == n * 4

    spans, final, raw, duplicates, watermarks = query(
        env, "SELECT count() FROM otel_traces WHERE SpanAttributes['sumwatch.task'] = 'summarization'",
        "SELECT count() FROM sumwatch_scores FINAL", "SELECT count() FROM sumwatch_scores", DUPLICATES,
        "SELECT Name, toUnixTimestamp64Nano(Position) FROM sumwatch_watermarks FINAL WHERE Name LIKE 'sampler/%'")
    assert spans == [[n]] and final == [[n * 4]]
    assert raw == [[n * 4]]  # a span scored before the kill is skipped after it, not scored again
    assert duplicates == []
    assert len(watermarks) >= 1 and int(watermarks[0][1]) > 0


@pytest.mark.slow
def test_worker_once_scores_and_clusters_and_a_second_run_keeps_the_issue_numbers(tmp_path):
    env = proc_env(tmp_path)
    sumwatch(env, "demo", "--n", "120", "--no-score")
    first = sumwatch(env, "worker", "--once")
    assert "ran once: sampler 1 run(s), 0 failed, clustering 1 run(s), 0 failed" in first.stdout, first.stderr
    assert re.search(r"sampler: scored 120 spans", first.stderr)
    assert re.search(r"clustering: \d+ failing spans -> [1-9]\d* issues", first.stderr), first.stderr
    [[[runs]], issues_first] = query(env, "SELECT count() FROM sumwatch_cluster_runs FINAL",
                                     "SELECT DISTINCT Number FROM sumwatch_issues FINAL ORDER BY Number")
    assert runs == 1

    second = sumwatch(env, "worker", "--once")
    assert "sampler: scored 0 spans" in second.stderr
    [[[runs]], [[latest]]] = query(env, "SELECT count() FROM sumwatch_cluster_runs FINAL",
                                   "SELECT RunId FROM sumwatch_cluster_runs FINAL ORDER BY FinishedAt DESC LIMIT 1")
    assert runs == 2
    issues_second, duplicates = query(
        env, f"SELECT Number FROM sumwatch_issues FINAL WHERE RunId = '{latest}' ORDER BY Number",
        f"SELECT Number, count() FROM sumwatch_issues FINAL WHERE RunId = '{latest}' GROUP BY Number "
        f"HAVING count() > 1")
    assert issues_second == issues_first and duplicates == []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_up_runs_the_worker_on_what_it_receives_and_stops_cleanly_on_sigterm(tmp_path):
    env = proc_env(tmp_path, SUMWATCH_SAMPLER_INTERVAL_S="0.5", SUMWATCH_CLUSTER_CRON=NEVER)
    sumwatch(env, "demo", "--n", "40", "--no-score")
    port = free_port()
    up = Running(env, tmp_path / "up.log", "up", "--port", str(port))
    try:
        up.wait_for(r"sampler: scored 40 spans")  # the backlog stored before `up` started

        provider, memory = memory_provider()

        @summarization(band="tldr", tracer_provider=provider)
        def summarize(text: str) -> str:
            return "Shipments rose in May."

        for i in range(3):
            summarize(f"Shipments rose {10 + i}% in May after the port reopened, the operator said on Friday.")
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
        assert exporter.export(memory.get_finished_spans()) is SpanExportResult.SUCCESS
        up.wait_for(r"sampler: scored 3 spans")  # spans received by this process, scored by its worker
    finally:
        code, _ = up.terminate()
    assert code == 0, up.text()
    assert "jobs: sampler every 0.5s" in up.text()
    assert re.search(r"stopped; 3 spans written in \d+ inserts; jobs: sampler \d+ run\(s\), 0 failed", up.text())
    [[[scores]]] = query(env, "SELECT count() FROM sumwatch_scores FINAL")
    assert scores == (40 + 3) * 4
