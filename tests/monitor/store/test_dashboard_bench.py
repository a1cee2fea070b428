"""The dashboard bench at a small size: it fills the store, times the stats readers and the server's
routes, and ends with one JSON line whose figures add up (about 5 s idle; it prints how long it took)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

pytestmark = pytest.mark.integration

BENCH = Path(__file__).resolve().parents[2] / "bench" / "dashboard.py"


@pytest.mark.slow
def test_a_small_run_of_the_dashboard_bench_reports_every_route_and_reader(tmp_path):
    # timed, not raced: how long it took goes into the test's output (pytest -rP), never into a pass/fail
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(BENCH), "--spans", "8000", "--failing", "1600", "--issues", "30",
                           "--points", "1000", "--repeats", "3", "--no-browser", "--dir", str(tmp_path / "db")],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    print(f"dashboard bench, small run: {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    # the spans and a trace of 50; the scores and 2,000 unsure results on spans left unscored
    assert (figures["spans"], figures["failing_scores"], figures["issues"], figures["map_points"]) == (
        8000 + 50, 1600, 30, 1000)
    assert figures["scores"] == 8000 // 2 * 4 + 2000
    assert {"volume_series", "pass_rate_series", "compare(prompt_version)", "load_projection"} <= set(
        figures["readers"])
    assert "/api/issues" in figures["routes"] and "/api/traces" in figures["routes"]
    timed = [r for r in figures["routes"].values() if "p95_ms" in r]
    assert figures["routes_timed"] == len(timed) >= 2
    assert all(0 < r["p50_ms"] <= r["p95_ms"] for r in timed)
    assert figures["worst_p95_ms"] == max(r["p95_ms"] for r in timed)
    explorer = {"/traces", "/unsure", "/api/unsure", "/traces (search + service + model)",
                "/traces/{trace_id} (50 spans)"}
    assert all("p95_ms" in figures["routes"][r] for r in explorer), {r: figures["routes"].get(r) for r in explorer}
    arm = figures["recognised_arm"]
    assert arm["list_traces(50): read / left out"] > 0 and "list_traces(50), arm read" in arm
    assert figures["server_rss_mb"] > 50 and figures["map_render"]["reason"] == "--no-browser"
