"""`sumwatch send-scores` while `sumwatch up` holds the embedded database: it goes through the server's route, with
the server's score target settings, behind its API token."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fakes.score_targets import FakeScoreTargets
from hang_guard import HANG_GUARD_S

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))


@pytest.mark.slow
def test_send_scores_goes_through_the_server_that_holds_the_database(tmp_path):
    with FakeScoreTargets() as targets:
        env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home"), "SUMWATCH_API_TOKEN": "up-token-12345",
               **targets.env()}
        proc = subprocess.Popen([SUMWATCH, "up", "--port", "0", "--no-worker"], env=env, stderr=subprocess.PIPE,
                                text=True)
        try:
            endpoint = proc.stderr.readline().split(" on ", 1)[1].split("/v1/traces", 1)[0]
            deadline = time.monotonic() + HANG_GUARD_S
            while True:
                try:
                    if httpx.get(f"{endpoint}/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, "sumwatch up did not start"
                time.sleep(0.2)
            assert httpx.post(f"{endpoint}/api/scores/send", json={"to": ["phoenix"]}).status_code == 401

            def send(*args, **more):
                return subprocess.run([SUMWATCH, "send-scores", *args], env={**env, **more}, capture_output=True,
                                      text=True, timeout=HANG_GUARD_S)
            done = send("--to", "phoenix", "--json")
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout) == [{"target": "phoenix", "sent": 0, "failed": 0, "would_send": 0,
                                                "errors": []}]
            assert "held by the sumwatch server" in done.stderr
            elsewhere = send("--to", "phoenix", SUMWATCH_PHOENIX_ENDPOINT="http://127.0.0.1:9")
            assert elsewhere.returncode == 2 and "SUMWATCH_PHOENIX_ENDPOINT is http://127.0.0.1:9 here" in \
                elsewhere.stderr and "Traceback" not in elsewhere.stderr
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=HANG_GUARD_S)
