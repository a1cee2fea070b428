"""The stage protocols as a user's type checker sees them: stages written without a base class fit them,
stages of the wrong shape do not (typed_stages.py, checked by mypy under the package's installed name)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


@pytest.fixture(scope="module")
def mypy_output(request, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("typed")
    src = tmp_path / "src" / "sumwatch"
    src.mkdir(parents=True)
    for room in ("tracer", "clustering"):  # clustering names the tracer's vocabulary (Choice, Severity, ...)
        (src / room).symlink_to(ROOT / room)
    shutil.copy(HERE / "typed_stages.py", tmp_path / "typed_stages.py")
    # the heavy libraries behind the stages play no part in these checks; skipping them keeps a cold run short
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\nexplicit_package_bases = True\nignore_missing_imports = True\n"
        "warn_unused_ignores = True\n"
        "[mypy-litellm.*,scipy.*,sklearn.*,sentence_transformers.*,torch.*,hdbscan.*,umap.*]\n"
        "follow_imports = skip\n")
    cache = request.config.cache.mkdir("mypy-clustering") if getattr(request.config, "cache", None) else (
        tmp_path / "cache")
    env = {**os.environ, "MYPYPATH": str(tmp_path / "src")}
    out = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(cache),
                          "typed_stages.py"], capture_output=True, text=True, env=env, cwd=tmp_path)
    return out.stdout + out.stderr


def test_stages_without_a_base_class_type_check_and_wrong_ones_do_not(mypy_output):
    problems = [line for line in mypy_output.splitlines() if line.startswith("typed_stages.py")]
    assert problems == [], mypy_output
    assert "Success: no issues found in 1 source file" in mypy_output, mypy_output
