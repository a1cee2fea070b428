"""The tracer goes into production apps: it must import with OpenTelemetry alone."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("numpy", "torch", "clickhouse_connect", "chdb", "litellm", "sentence_transformers", "umap", "hdbscan")


def test_importing_the_tracer_pulls_in_no_heavy_dependency():
    code = (
        "import sys, sumwatch.tracer as t\n"
        "from sumwatch.tracer import configure, summarization, summarization_span\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing sumwatch.tracer imported: {out.stdout.strip()}"


def test_core_dependencies_are_opentelemetry_only():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert all(dep.startswith("opentelemetry-") for dep in project["dependencies"]), project["dependencies"]
    server = " ".join(project["optional-dependencies"]["server"])
    for needed in ("clickhouse-connect", "chdb", "litellm", "apscheduler", "sentence-transformers",
                   "umap-learn", "hdbscan"):
        assert needed in server


@pytest.mark.slow
def test_wheel_installs_tracer_alone_and_maps_folders(tmp_path):
    """Build the wheel, install it with no dependencies, and import the tracer from site-packages."""
    wheel_dir = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheel_dir), str(ROOT)], check=True, capture_output=True)
    wheel = next(wheel_dir.glob("sumwatch-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    for module in ("sumwatch/tracer/__init__.py", "sumwatch/monitor/cli.py", "sumwatch/clustering/__init__.py",
                   "sumwatch/monitor/store/schema.py", "sumwatch/monitor/demo/__init__.py"):
        assert module in names, module
    assert not any(n.startswith(("tracer/", "monitor/", "clustering/")) for n in names)
