"""Guards on what a new user meets: README's set-up commands, CI, deploy files."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_demo_and_test_commands_and_ci_runs_the_same_test_command():
    demo, tests = readme_commands()[:2]
    assert demo.startswith("python3 -m venv .venv") and demo.endswith("sumwatch demo")
    assert "torch==2.13.0" in demo and "torch==2.13.0" in tests
    assert tests.endswith("python -m pytest")
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()


def test_deploy_files_parse_and_target_the_shared_table():
    collector = yaml.safe_load((ROOT / "deploy" / "otel-collector.yaml").read_text())
    ch = collector["exporters"]["clickhouse"]
    assert ch["traces_table_name"] == "otel_traces" and ch["database"] == "otel"
    compose = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
    assert {"clickhouse", "sumwatch", "collector"} <= set(compose["services"])
