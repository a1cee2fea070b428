"""The tracer goes into production apps: it must import with OpenTelemetry alone."""

import subprocess
import sys
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

pytestmark = pytest.mark.integration

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
def test_plain_install_brings_only_opentelemetry_and_maps_the_folders(tmp_path):
    """`pip install .` (no extras) into an empty venv: the tracer works, the backend is absent."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(ROOT)], check=True, capture_output=True,
                   timeout=HANG_GUARD_S)
    listed = subprocess.run([str(py), "-m", "pip", "list", "--format=freeze"], check=True, capture_output=True,
                            text=True).stdout.lower()
    for absent in ("clickhouse-connect", "chdb", "numpy", "torch", "litellm", "sentence-transformers"):
        assert f"\n{absent}==" not in "\n" + listed, f"{absent} installed without the server extra"
    code = ("import sumwatch.tracer, sumwatch.tracer.semconv, pathlib; "
            "print(pathlib.Path(sumwatch.tracer.__file__).parent.parent)")
    out = subprocess.run([str(py), "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path)
    installed = Path(out.stdout.strip())
    assert installed.name == "sumwatch" and "site-packages" in str(installed)
    for module in ("tracer/__init__.py", "tracer/vocabulary.py", "monitor/cli/__init__.py", "clustering/__init__.py",
                   "clustering/sentence_model/embedder.py", "monitor/store/ddl.py", "monitor/demo/__init__.py"):
        assert (installed / module).is_file(), module
