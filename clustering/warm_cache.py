"""Fill numba's cache for clustering before the first run: a tiny seeded fit compiles what a run uses.

    compiled = warm_jit_cache(jit_cache_dir(home))      # 0 when the cache was already warm
    python -m sumwatch.clustering.warm_cache DIR         # the same, as an image's build step

Apart from :mod:`.jit_cache`, which :mod:`.reduce` imports to load umap with caching on; this module imports
the reducer and the clusterer.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from .cluster import HdbscanClusterer
from .jit_cache import compile_counter, umap_module, use_jit_cache
from .reduce import UmapReducer


def warm_jit_cache(directory: Path) -> int:
    """Compile into ``directory`` what a clustering run uses (UMAP cosine fit and transform, the 2D euclidean
    map, HDBSCAN) with a tiny seeded fit; returns how many functions were compiled (0 when already warm)."""
    use_jit_cache(directory)
    compiled = compile_counter()
    rng = np.random.default_rng(0)
    # a few groups in 384 dimensions, like sentence vectors, and enough points for UMAP's spectral start
    centres = rng.standard_normal((4, 384))
    points = (centres[rng.integers(0, 4, 400)] + 0.3 * rng.standard_normal((400, 384))).astype(np.float32)
    # max_fit_points below the row count, so the transform path compiles too
    reducer = UmapReducer(max_fit_points=300)
    low = reducer.fit_transform(points)
    HdbscanClusterer().fit(low)
    UmapReducer(n_components=2, min_dist=0.1, metric="euclidean").fit_transform(low)
    # below 4,096 points UMAP finds neighbours exactly; a real run (thousands of failures) uses pynndescent's
    # search, so compile that too, with the reducer's settings; its index builds parts of its trees only once
    # a leaf is split a few times, which takes a few thousand points
    many = (centres[rng.integers(0, 4, 3000)] + 0.3 * rng.standard_normal((3000, 384))).astype(np.float32)
    forced = umap_module().UMAP(n_components=reducer.n_components, n_neighbors=reducer.n_neighbors,
                                min_dist=reducer.min_dist, metric=reducer.metric, random_state=reducer.random_state,
                                n_jobs=1, force_approximation_algorithm=True)
    forced.fit(many[:2500])
    forced.transform(many[2500:])
    return len(compiled)


def main() -> None:
    """``python -m sumwatch.clustering.warm_cache DIR``: warm the cache in DIR (a build step runs it)."""
    if len(sys.argv) != 2:
        print("usage: python -m sumwatch.clustering.warm_cache CACHE_DIR", file=sys.stderr)
        raise SystemExit(2)
    compiled = warm_jit_cache(Path(sys.argv[1]))
    print(f"numba cache in {Path(sys.argv[1]).resolve()}: {compiled} functions compiled")


if __name__ == "__main__":
    main()
