"""`sumwatch send-scores` while `sumwatch up` holds the embedded database: it goes through the server's route, with
the server's score target settings, behind its API token."""

import json
import os
import subprocess

import httpx
import pytest
from fakes.score_targets import FakeScoreTargets
from hang_guard import HANG_GUARD_S
from served import SUMWATCH, up_process

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_send_scores_goes_through_the_server_that_holds_the_database(tmp_path):
    with FakeScoreTargets() as targets:
        env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home"), "SUMWATCH_API_TOKEN": "up-token-12345",
               **targets.env()}
        with up_process(env, "--no-worker") as endpoint:
            assert httpx.post(f"{endpoint}/api/scores/send", json={"to": ["phoenix"]}).status_code == 401

            def send(*args, **more):
                return subprocess.run([SUMWATCH, "send-scores", *args], env={**env, **more}, capture_output=True,
                                      text=True, timeout=HANG_GUARD_S)
            done = send("--to", "phoenix", "--json")
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout) == [{"target": "phoenix", "sent": 0, "failed": 0, "gave_up": 0,
                                                "given_up": 0, "waiting": 0, "would_send": 0, "errors": [],
                                                "services": None}]
            assert "held by the sumwatch server" in done.stderr
            elsewhere = send("--to", "phoenix", SUMWATCH_PHOENIX_ENDPOINT="http://127.0.0.1:9")
            assert elsewhere.returncode == 2 and "SUMWATCH_PHOENIX_ENDPOINT is http://127.0.0.1:9 here" in \
                elsewhere.stderr and "Traceback" not in elsewhere.stderr
