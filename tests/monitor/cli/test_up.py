"""`sumwatch up` as a real process: receives OTLP, stops on SIGTERM, keeps what it stored."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fakes.tracing import memory_provider
from hang_guard import HANG_GUARD_S
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from sumwatch.tracer import summarization

pytestmark = pytest.mark.integration

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_up_serves_otlp_then_stops_cleanly_on_sigterm(tmp_path):
    env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home"), "SUMWATCH_INGEST_TOKEN": "tok",
           "SUMWATCH_API_TOKEN": "api-token", "SUMWATCH_EMBEDDINGS": "false"}
    port = free_port()
    proc = subprocess.Popen([SUMWATCH, "up", "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "sumwatch up did not start"
            time.sleep(0.2)

        # a command that needs the database itself names the holder's whole command line
        busy = subprocess.run([SUMWATCH, "db", "migrate"], env=env,
                              capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert busy.returncode == 3
        assert f"is in use by process {proc.pid} (`sumwatch up --port {port}`)" in busy.stderr
        assert f"127.0.0.1:{port}" in busy.stderr

        provider, memory = memory_provider()

        @summarization(band="tldr", tracer_provider=provider)
        def summarize(text: str) -> str:
            return "short"

        for i in range(4):
            summarize(f"document number {i} with some words in it")
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces",
                                    headers={"authorization": "Bearer tok"})
        assert exporter.export(memory.get_finished_spans()) is SpanExportResult.SUCCESS

        # read commands go through the running server while it holds the database
        listed = subprocess.run([SUMWATCH, "traces", "--json"], env=env,
                                capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert listed.returncode == 0, listed.stderr
        rows = json.loads(listed.stdout)
        assert len(rows) == 4 and "reading through it" in listed.stderr
        shown = subprocess.run([SUMWATCH, "traces", "show", rows[0]["trace_id"], "--json"], env=env,
                               capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert json.loads(shown.stdout)[0]["attributes"]["output.value"] == "short"
        missing = subprocess.run([SUMWATCH, "traces", "show", "0" * 32], env=env, capture_output=True, text=True)
        assert missing.returncode == 1 and "no trace" in missing.stderr
        # an action through the server: one sampler pass, answered with its report, then its scores listed
        scored = subprocess.run([SUMWATCH, "sample", "--json"], env=env,
                                capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert scored.returncode == 0 and "scoring through it" in scored.stderr, scored.stderr
        assert json.loads(scored.stdout)["judge_version"]
        listed_scores = subprocess.run([SUMWATCH, "scores", "--json", "-n", "100"], env=env, capture_output=True,
                                       text=True, timeout=HANG_GUARD_S)
        assert len(json.loads(listed_scores.stdout)) == 16  # 4 spans x 4 rubrics, by the worker or the pass
        wrong = subprocess.run([SUMWATCH, "--token", "wrong-token", "sample"], env=env, capture_output=True,
                               text=True, timeout=HANG_GUARD_S)
        assert wrong.returncode == 3 and "Traceback" not in wrong.stderr and "401 unauthorized" in wrong.stderr
        unauthorized = httpx.get(f"http://127.0.0.1:{port}/api/traces")
        assert unauthorized.status_code == 401
        no_token = {k: v for k, v in env.items() if k != "SUMWATCH_API_TOKEN"}
        refused = subprocess.run([SUMWATCH, "traces"], env=no_token,
                                 capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert refused.returncode == 3 and "Traceback" not in refused.stderr
        assert refused.stderr.strip().splitlines()[-1] == (
            f"error: the sumwatch server at http://127.0.0.1:{port} refused the read (401 unauthorized): its API "
            f"wants a token: set SUMWATCH_API_TOKEN (or --token) to the one it was started with")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 0, stderr
    assert "4 spans written" in stderr

    listed = subprocess.run([SUMWATCH, "traces", "--json"], env=env,
                            capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 4


def test_up_on_a_busy_port_says_so_in_one_line_before_any_banner(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home")}
        result = subprocess.run([SUMWATCH, "up", "--port", str(port)], env=env, capture_output=True, text=True,
                                timeout=HANG_GUARD_S)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (f"error: port {port} on 127.0.0.1 is in use (another sumwatch up, or another "
                                     f"program): stop it, or pick another port with --port or SUMWATCH_PORT")
    assert not (tmp_path / "home").exists()  # the store was not opened, nor its lock taken


def test_up_on_port_0_announces_the_free_port_it_took(tmp_path):
    env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([SUMWATCH, "up", "--port", "0", "--no-worker"], env=env, stderr=subprocess.PIPE,
                            text=True)
    try:
        banner = proc.stderr.readline()
        endpoint = banner.split(" on ", 1)[1].split("/v1/traces", 1)[0]
        port = int(endpoint.rsplit(":", 1)[1])
        assert port > 0, banner
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            try:
                assert httpx.get(f"{endpoint}/healthz").status_code == 200
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "sumwatch up did not start"
                time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=HANG_GUARD_S)
