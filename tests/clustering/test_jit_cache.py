"""numba's cache for UMAP and pynndescent: a second process with the same cache folder loads what the first
compiled, and clusters exactly as a process that compiled everything itself."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

# one clustering fit in a fresh process; prints what numba compiled and what came out
_RUN = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    from sumwatch.clustering.jit_cache import compile_counter, use_jit_cache
    from sumwatch.clustering.cluster import HdbscanClusterer
    from sumwatch.clustering.reduce import UmapReducer

    switch = use_jit_cache(Path(sys.argv[1]))
    compiled = compile_counter()
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((3, 384))
    X = (centres[rng.integers(0, 3, 300)] + 0.4 * rng.standard_normal((300, 384))).astype(np.float32)
    low = UmapReducer(max_fit_points=200).fit_transform(X)
    fit = HdbscanClusterer().fit(low)
    print(json.dumps({"compiled": compiled, "labels": fit.labels.tolist(), "low": low.tolist(),
                      "skipped": switch.skipped}))
""")


def _run(cache: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", _RUN, str(cache)], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_second_process_loads_compiled_code_and_clusters_the_same(tmp_path):
    cache = tmp_path / "numba"
    cold = _run(cache)
    warm = _run(cache)

    cold_libs = [name for name in cold["compiled"] if name.startswith(("umap.", "pynndescent."))]
    warm_libs = [name for name in warm["compiled"] if name.startswith(("umap.", "pynndescent."))]
    # the cold process compiles the neighbour search and the layout; the warm one loads them
    assert any(name.startswith("pynndescent.") for name in cold_libs)
    assert "umap.layouts._optimize_layout_euclidean_single_epoch" in cold_libs
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))
    # what is left are umap.utils' two functions compiled at import from a signature, before caching is on
    assert set(warm_libs) <= {"umap.utils.tau_rand_int", "umap.utils.tau_rand"}
    assert len(warm["compiled"]) * 10 < len(cold["compiled"])
    assert cold["skipped"] == warm["skipped"] == 0
    # loaded code computes what compiled code computed: same layout, same clusters for the same seed
    assert warm["low"] == cold["low"]
    assert warm["labels"] == cold["labels"] and max(cold["labels"]) >= 1


@pytest.mark.slow
def test_cli_warms_the_cache_under_the_data_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    sumwatch = Path(sys.executable).parent / "sumwatch"
    proc = subprocess.run([str(sumwatch), "cluster", "--warm-cache", "--json", "--home", str(tmp_path / "home")],
                          capture_output=True, text=True, env=env, check=True)
    report = json.loads(proc.stdout)
    assert Path(report["cache_dir"]) == (tmp_path / "home" / "numba").resolve()
    assert report["compiled"] > 20  # an empty folder: the neighbour search and the layout were compiled into it
    assert any(p.name.startswith("pynndescent") for p in Path(report["cache_dir"]).iterdir())
    assert any(p.name.startswith("umap") for p in Path(report["cache_dir"]).iterdir())


# pynndescent's neighbour search (what UMAP runs above a few thousand points) in a fresh process, through the
# library's own NNDescent; with "compare", also through the library's original nn_descent, not cached
_NN_DESCENT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    import pynndescent.pynndescent_ as nnd
    from sumwatch.clustering.jit_cache import compile_counter, use_jit_cache

    original = nnd.nn_descent
    use_jit_cache(Path(sys.argv[1]))
    compiled = compile_counter()
    rng = np.random.default_rng(5)
    X = rng.standard_normal((400, 32)).astype(np.float32)

    def graph():
        index = nnd.NNDescent(X, metric="cosine", n_neighbors=10, random_state=1, n_jobs=1, compressed=True)
        return index.neighbor_graph[0].tolist()

    out = {"remade": nnd.nn_descent is not original, "graph": graph(), "compiled": list(compiled)}
    if sys.argv[2] == "compare":
        nnd.nn_descent = original
        out["library_graph"] = graph()
    print(json.dumps(out))
""")


def _run_nn_descent(cache: Path, compare: bool) -> dict:
    proc = subprocess.run([sys.executable, "-c", _NN_DESCENT, str(cache), "compare" if compare else "-"],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_warm_process_loads_the_neighbour_search_and_finds_the_same_neighbours(tmp_path):
    cache = tmp_path / "numba"
    cold = _run_nn_descent(cache, compare=True)
    warm = _run_nn_descent(cache, compare=False)

    assert cold["remade"] and warm["remade"]
    assert {"pynndescent.pynndescent_.nn_descent_linked_threads",
            "pynndescent.pynndescent_.nn_descent_internal_linked_threads",
            "pynndescent.pynndescent_.process_candidates"} <= set(cold["compiled"])
    # nothing under nn_descent compiles again: not the pair that asks for the thread count, not the functions
    # that take the distance as an argument, not numba's own helpers beneath them
    assert warm["compiled"] == [], warm["compiled"]
    # the re-made search computes what the library's own does, compiled or loaded
    assert cold["graph"] == cold["library_graph"] == warm["graph"]
