"""Guards on what a new user meets: README's set-up commands, CI, deploy files."""

import re
import subprocess
from pathlib import Path

import pytest
import yaml
from hang_guard import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_demo_and_test_commands_and_ci_runs_the_same_test_command():
    demo, tests = readme_commands()[:2]
    assert demo.startswith("python3 -m venv .venv") and demo.endswith("sumwatch demo")
    assert tests == "bash .ci/setup && .venv/bin/python -m pytest"
    setup = (ROOT / ".ci" / "setup").read_text()
    assert "torch==2.13.0" in demo and "torch==2.13.0" in setup  # the same CPU build either way
    assert "apt-get install -y -qq chromium" in setup and "[ ! -x /usr/bin/chromium ]" in setup
    run = (ROOT / ".ci" / "run").read_text()
    assert tests in run.splitlines()
    # one install: nothing else in CI sets up or installs
    commands = [line for line in run.splitlines() if line and not line.startswith("#")]
    assert sum(".ci/setup" in line for line in commands) == 1
    assert "pip install" not in run and "apt-get" not in run


@pytest.mark.integration
def test_ci_run_stops_at_the_first_failing_step(tmp_path):
    """`bash .ci/run` fails when set-up fails, though set-up sits on the left of && (set -e skips those)."""
    ci = tmp_path / ".ci"
    ci.mkdir()
    (ci / "run").write_text((ROOT / ".ci" / "run").read_text())
    (ci / "setup").write_text("exit 3\n")
    done = subprocess.run(["bash", str(ci / "run")], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode != 0 and "ruff" not in done.stderr  # stopped before the lint step


def test_deploy_files_parse_and_target_the_shared_table():
    collector = yaml.safe_load((ROOT / "deploy" / "otel-collector.yaml").read_text())
    ch = collector["exporters"]["clickhouse"]
    assert ch["traces_table_name"] == "otel_traces" and ch["database"] == "otel"
    compose = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
    assert {"clickhouse", "sumwatch", "collector"} <= set(compose["services"])
