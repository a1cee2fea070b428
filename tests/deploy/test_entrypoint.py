"""deploy/entrypoint.sh, run by /bin/sh with a stand-in `sumwatch` on PATH that records its arguments: a
StatefulSet pod's ordinal becomes its --shard, a bad shard stops the pod, SIGTERM stops the loop."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

pytestmark = pytest.mark.integration

ENTRYPOINT = Path(__file__).resolve().parents[2] / "deploy" / "entrypoint.sh"


@pytest.fixture
def fake_path(tmp_path) -> tuple[dict[str, str], Path]:
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "sumwatch"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}:/usr/bin:/bin", "HOME": str(tmp_path), "SUMWATCH_SAMPLER_INTERVAL_S": "0.2"}
    return env, calls


def _run_until_calls(env: dict[str, str], calls: Path, *args: str, n: int = 2) -> subprocess.Popen:
    proc = subprocess.Popen(["/bin/sh", str(ENTRYPOINT), *args], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline and (not calls.exists() or len(calls.read_text().splitlines()) < n):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("pod, shard", [("sumwatch-sampler-0", "0/3"), ("sumwatch-sampler-2", "2/3")])
def test_the_pod_ordinal_is_the_shard_and_passes_repeat_until_sigterm(fake_path, pod, shard):
    env, calls = fake_path
    proc = _run_until_calls({**env, "POD_NAME": pod, "SHARD_COUNT": "3"}, calls, "sampler", "--mode", "off")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=HANG_GUARD_S) == 0
    lines = calls.read_text().splitlines()
    assert len(lines) >= 2 and set(lines) == {f"sample --shard {shard} --mode off"}


@pytest.mark.parametrize("extra, message", [({"POD_NAME": "sumwatch-sampler-3", "SHARD_COUNT": "3"}, "not below"),
                                            ({"POD_NAME": "sampler", "SHARD_COUNT": "3"}, "must be numbers")])
def test_a_shard_that_does_not_fit_stops_the_pod(fake_path, extra, message):
    env, calls = fake_path
    out = subprocess.run(["/bin/sh", str(ENTRYPOINT), "sampler"], env={**env, **extra}, capture_output=True,
                         text=True, timeout=HANG_GUARD_S)
    assert out.returncode == 2 and message in out.stderr and not calls.exists()


def test_other_commands_run_as_given(fake_path):
    env, calls = fake_path
    out = subprocess.run(["/bin/sh", str(ENTRYPOINT), "sumwatch", "up", "--host", "0.0.0.0"], env=env,
                         timeout=HANG_GUARD_S)
    assert out.returncode == 0 and calls.read_text() == "up --host 0.0.0.0\n"
    assert os.access(ENTRYPOINT, os.X_OK)
