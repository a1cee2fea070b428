"""The shape of the source tree: rooms follow the data flow and imports run one way.

monitor/ is a row of rooms, lowest first: a room may import the rooms before it, never the ones after
(ingest does not know the sampler, the sampler does not know issues, nothing shipped imports the demo but the
CLI and the server).
"""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layers() -> list[list[str]]:
    """monitor's rooms, lowest layer first, as the import contract in pyproject.toml lists them (top first):
    the order is written once, and lint-imports checks it too, indirect imports included."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [layers] = [c["layers"] for c in contracts if c.get("containers") == ["sumwatch.monitor"]]
    return [[room.strip() for room in re.split(r"[|:]", layer)] for layer in reversed(layers)]


RANK = {room: i for i, layer in enumerate(_layers()) for room in layer}
ROOMS = tuple(RANK)
MAX_LINES = 600


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(("sumwatch",) + (parts[:-1] if parts[-1] == "__init__" else parts))


def _imports(path: Path) -> set[str]:
    """Absolute names of every module the file imports, at any depth (lazy imports count)."""
    package = _module(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["sumwatch", "monitor"] else None


def test_monitor_top_level_holds_only_the_package_and_its_rooms():
    top = sorted(p.name for p in (ROOT / "monitor").iterdir() if p.suffix == ".py")
    assert top == ["__init__.py"]  # settings is a room of its own (the lowest), like every other
    rooms = {p.name for p in (ROOT / "monitor").iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert rooms <= set(ROOMS), f"a room outside the data-flow order: {sorted(rooms - set(ROOMS))}"


def test_monitor_rooms_import_only_rooms_before_them():
    backwards = []
    for path in _sources("monitor"):
        here = _room(_module(path))
        for name in _imports(path):
            there = _room(name)
            if here and there in RANK and RANK[there] > RANK[here]:
                backwards.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not backwards, "imports that run against the data flow:\n" + "\n".join(sorted(backwards))


def test_tracer_and_clustering_know_nothing_of_monitor():
    rules = {"tracer": ("sumwatch.monitor", "sumwatch.clustering"), "clustering": ("sumwatch.monitor",)}
    for folder, banned in rules.items():
        for path in _sources(folder):
            bad = sorted(n for n in _imports(path) if n.startswith(banned))
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_no_source_file_is_longer_than_600_lines():
    long = [(str(p.relative_to(ROOT)), n) for folder in ("tracer", "clustering", "monitor") for p in _sources(folder)
            if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not long, f"split these at their seams: {long}"


def test_every_package_folder_is_listed_for_installation():
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {_module(init) for folder in ("tracer", "clustering", "monitor")
             for init in (ROOT / folder).rglob("__init__.py")}
    assert found == listed, f"pyproject packages: missing {sorted(found - listed)}, stale {sorted(listed - found)}"


def test_no_two_test_files_share_a_name():
    # the test folders are not packages, so pytest imports each test file by its basename: two files of one
    # name stop the whole run at collection
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        assert path.name not in seen, f"{path.relative_to(ROOT)} and {seen[path.name].relative_to(ROOT)}"
        seen[path.name] = path
