"""`sumwatch export` while `sumwatch up` holds the embedded database: it goes through the server's export route,
behind its API token."""

import os
import subprocess

import httpx
import pytest
from hang_guard import HANG_GUARD_S
from served import SUMWATCH, up_process

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_export_goes_through_the_server_that_holds_the_database(tmp_path):
    env = {**os.environ, "SUMWATCH_HOME": str(tmp_path / "home"), "SUMWATCH_API_TOKEN": "up-token-12345",
           "SUMWATCH_MARKDOWN_DIR": str(tmp_path)}
    with up_process(env, "--no-worker") as endpoint:
        assert httpx.post(f"{endpoint}/api/issues/SW-1/export", json={"to": "markdown"}).status_code == 401

        def export(*args, **more):
            return subprocess.run([SUMWATCH, "export", *args], env={**env, **more}, capture_output=True, text=True,
                                  timeout=HANG_GUARD_S)
        missing = export("SW-1", "--to", "markdown")
        assert missing.returncode == 1 and "no issue SW-1 in the last clustering run" in missing.stderr
        assert "held by the sumwatch server" in missing.stderr and "Traceback" not in missing.stderr
        filtered = export("--status", "new", "--to", "markdown", "--dry-run")  # the batch form goes through too
        assert filtered.returncode == 0 and "no issue matched" in filtered.stdout, filtered.stderr
        assert "held by the sumwatch server" in filtered.stderr
        wrong = export("SW-1", "--to", "markdown", SUMWATCH_API_TOKEN="not-the-token")
        assert wrong.returncode == 3 and "refused the export (401 unauthorized)" in wrong.stderr
