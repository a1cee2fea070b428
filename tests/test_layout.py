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


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (module -> modules it imports): its strongly connected components of more
    than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, todo = work[-1]
            for nxt in todo:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = stack[stack.index(node):]
                    del stack[stack.index(node):]
                    if len(part) > 1:
                        found.append(sorted(part))
    return found


def _module_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules among ``modules`` that the file imports, at any depth. ``from pkg import name`` imports the
    module ``pkg.name`` where there is one, else a name from ``pkg``'s own code."""
    package = _module(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join((package[: len(package) - node.level + 1] if node.level else [])
                            + ([node.module] if node.module else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return found & modules


def test_no_import_cycles_not_even_through_a_package_module():
    # lint-imports checks cycles between the modules of one room; this also catches a module and the package
    # that holds it importing each other (a call-time `from . import name` in settings/concern.py did once)
    paths = {_module(p): p for folder in ("tracer", "clustering", "monitor") for p in _sources(folder)}
    graph = {module: _module_imports(path, set(paths)) - {module} for module, path in paths.items()}
    assert not _cycles(graph), f"import cycles: {_cycles(graph)}"


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


# The integration tier (tests/conftest.py): what a test module calls to start a server, a subprocess, a browser or
# the sentence model. Names imported from these modules count as well, and so do the functions of the tests'
# own helper modules (served.py, fakes/, ...) that call one.
_STARTERS = {"subprocess", "Popen", "up_process", "uvicorn", "LoopbackServer", "ReceiverServer", "FakeOpenAI",
             "FakeTrackers", "FakeScoreTargets", "sync_playwright", "chromium", "Embedder", "build_embedder",
             "SentenceTransformer", "sentence_transformers", "OnnxSentenceModel", "export_onnx"}
_STARTER_MODULES = ("subprocess", "multiprocessing", "uvicorn", "playwright", "sentence_transformers", "onnxruntime")
TESTS = ROOT / "tests"


def _loads_the_model(call: ast.Call) -> bool:
    """Calls that load the sentence model unless told otherwise: build_cascade without embeddings=False (here or in
    the settings it is given), the embeddings judge and the clustering job without an embedder of their own."""
    name = getattr(call.func, "id", getattr(call.func, "attr", None))
    keywords = {k.arg: k.value for k in ast.walk(call) if isinstance(k, ast.keyword)}
    if name == "build_cascade":
        return getattr(keywords.get("embeddings"), "value", None) is not False
    if name == "EmbeddingJudge":
        return not call.args and "embedder" not in keywords
    return name == "run_clustering" and "embedder" not in keywords


def _names(node: ast.AST) -> set[str]:
    """The names a definition uses: variables, attributes, parameters (fixtures), and "Embedder" where it calls
    something that loads the sentence model."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found.add(n.id)
        elif isinstance(n, ast.Attribute):
            found.add(n.attr)
        elif isinstance(n, ast.arg):
            found.add(n.arg)
        elif isinstance(n, ast.Call) and _loads_the_model(n):
            found.add("Embedder")
    return found


def _helper(name: str, near: Path) -> Path | None:
    for folder in (near.parent, TESTS):  # pytest puts a test file's folder and tests/ on sys.path
        path = folder / (name.replace(".", "/") + ".py")
        if path.is_file() and not path.name.startswith("test_"):
            return path
    return None


def _starting(path: Path, memo: dict[Path, set[str]] | None = None) -> tuple[dict[str, ast.AST], set[str]]:
    """The module's top-level definitions, and the names among them (and among its imports) that start
    something, directly or through one another."""
    memo = {} if memo is None else memo
    tree = ast.parse(path.read_text(), str(path))
    starters = set(_STARTERS)
    for node in ast.walk(tree):  # imports inside functions count too
        if isinstance(node, ast.ImportFrom) and node.module:
            helper = _helper(node.module, path)
            if helper is not None and helper not in memo:
                memo[helper] = set()  # a cycle ends here
                memo[helper] = _starting(helper, memo)[1]
            for alias in node.names:
                if (node.module.startswith(_STARTER_MODULES) or alias.name in starters
                        or (helper is not None and alias.name in memo[helper])):
                    starters.add(alias.asname or alias.name)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    uses = {name: _names(n) for name, n in defs.items()}
    grew = True
    while grew:
        grew = False
        for name in defs.keys() - starters:
            if uses[name] & starters:
                starters.add(name)
                grew = True
    return defs, starters & (defs.keys() | _STARTERS)


def _fixture(node: ast.AST) -> bool:
    return any("fixture" in ast.unparse(d) for d in getattr(node, "decorator_list", []))


def _marked(node: ast.AST) -> bool:
    return any("mark.integration" in ast.unparse(d) for d in getattr(node, "decorator_list", []))


def _integration_fixtures() -> dict[str, str]:
    """tests/conftest.py's INTEGRATION_FIXTURES, read from its source: ``import conftest`` gets whichever conftest
    pytest imported last under that name."""
    tree = ast.parse((TESTS / "conftest.py").read_text())
    return next(ast.literal_eval(n.value) for n in tree.body
                if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "INTEGRATION_FIXTURES")


def _fixtures_that_mark(path: Path, defs: dict[str, ast.AST]) -> set[str]:
    """The fixture names that put a test of this module in the tier (conftest's INTEGRATION_FIXTURES defined in
    this module or a conftest above it, unless this module defines its own of that name), and the module's
    fixtures that use one."""
    here = path.relative_to(TESTS)
    names = set()
    for key in _integration_fixtures():
        file, name = key.split("::")
        if file == here.as_posix() or (Path(file).name == "conftest.py" and here.is_relative_to(Path(file).parent)
                                       and name not in defs):
            names.add(name)
    grew = True
    while grew:
        grew = False
        for name in defs.keys() - names:
            node = defs[name]
            if _fixture(node) and {a.arg for a in node.args.args} & names:
                names.add(name)
                grew = True
    return names


def test_tests_that_start_a_server_a_process_a_browser_or_the_model_are_in_the_integration_tier():
    unmarked, unlisted = [], []
    for path in sorted(TESTS.rglob("*.py")):
        if "bench" in path.relative_to(TESTS).parts or not path.name.startswith(("test_", "conftest")):
            continue
        defs, starters = _starting(path)
        here = path.relative_to(TESTS).as_posix()
        by_fixture = _fixtures_that_mark(path, defs)
        if path.name == "conftest.py":
            unlisted += [f"{here}::{n}" for n in sorted(starters & defs.keys() - by_fixture) if _fixture(defs[n])]
            continue
        tree = ast.parse(path.read_text())
        if any(isinstance(n, ast.Assign) and "pytestmark" in ast.unparse(n.targets[0])
               and "integration" in ast.unparse(n.value) for n in tree.body):
            continue
        for name in sorted(starters & defs.keys()):
            node = defs[name]
            tests = ([node] if name.startswith("test_") else
                     [m for m in node.body if getattr(m, "name", "").startswith("test_")]
                     if name.startswith("Test") and not _marked(node) else [])
            for test in tests:
                params = {a.arg for a in test.args.args}
                if not _marked(test) and not params & by_fixture:
                    unmarked.append(f"{here}::{test.name}")
    assert not unlisted, ("conftest fixtures that start a server, a process, a browser or the model, missing from "
                          f"INTEGRATION_FIXTURES in tests/conftest.py: {unlisted}")
    assert not unmarked, ("tests that start a server, a process, a browser or the model, not marked integration "
                          "(pytestmark = pytest.mark.integration, @pytest.mark.integration, or a fixture in "
                          "INTEGRATION_FIXTURES):\n" + "\n".join(unmarked))
