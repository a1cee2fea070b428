"""`sumwatch demo --serve` ends with the dashboard running on the demo's data and prints its URL."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from hang_guard import HANG_GUARD_S

pytestmark = pytest.mark.integration

SUMWATCH = Path(sys.executable).with_name("sumwatch")


def test_demo_serve_prints_the_dashboard_url_and_serves_the_demo_data(tmp_path):
    env = {**os.environ, "SUMWATCH_HOME": str(tmp_path), "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.Popen([str(SUMWATCH), "demo", "--n", "12", "--no-score", "--serve", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    try:
        url = None
        deadline = time.monotonic() + HANG_GUARD_S
        while url is None and time.monotonic() < deadline and proc.stdout is not None:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            lines.append(line)
            found = re.search(r"dashboard on (http://127\.0\.0\.1:\d+/)", line)
            url = found.group(1) if found else None
        assert url, "no dashboard URL printed:\n" + "".join(lines)
        assert any("12 summarization calls traced" in line for line in lines)
        page = httpx.get(url, timeout=30)
        assert page.status_code == 200
        assert re.search(r'id="kpi-spans">12<', page.text)  # the demo's spans, on the overview
        assert httpx.get(url + "issues", timeout=30).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            rest, _ = proc.communicate(timeout=HANG_GUARD_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, _ = proc.communicate()
    assert proc.returncode == 0, "".join(lines) + (rest or "")
