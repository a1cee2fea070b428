"""Reduce embeddings to a few dimensions before density clustering.

    reducer = UmapReducer(n_components=5)
    low = reducer.fit_transform(vectors)      # (n, 5), rows in the order given
    more = reducer.transform(new_vectors)     # same space

HDBSCAN works poorly in 384 dimensions (distances concentrate), so UMAP with a cosine metric and a fixed
seed brings the vectors down first. With very few points (fewer than ``n_components + 2``) UMAP's spectral
initialisation cannot run, so the vectors are returned unchanged; the clusterer handles that case anyway.

Large inputs: above ``max_fit_points`` (20,000 by default) UMAP is fitted on a seeded random sample of that
many rows and the other rows are placed with UMAP's own ``transform``: each is put among its nearest
neighbours in the sample and refined against the sample's layout, which stays fixed. Rows come back in
the order given (``fit_sample_`` says which were fitted), and the same seed draws the same sample, so runs
repeat. A transform costs less per point than a fit; ``tests/bench/cluster_scale.py
--umap-max-fit-points 100000`` measures the full fit against the default sample. The clusters are found in
the sample's layout, so a failure mode needs enough points in the sample to show up, which the clusterer's
own ``min_cluster_size`` (a share of its own fit sample) asks anyway. ``HdbscanClusterer`` draws its
fit sample the same way: with both left at their defaults (20,000 points, seed 42) the two samples are
the same rows. Set ``max_fit_points`` to at least the number of rows to fit on all of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import Floats, Indices, Vectors


class UmapReducer:
    """UMAP with settings suited to clustering (``min_dist=0``, cosine) and a fixed seed for repeatable runs;
    fitted on a seeded sample of ``max_fit_points`` rows when given more."""

    def __init__(self, n_components: int = 5, n_neighbors: int = 15, min_dist: float = 0.0,
                 metric: str = "cosine", random_state: int = 42, max_fit_points: int = 20_000) -> None:
        if max_fit_points < n_components + 2:
            raise ValueError(f"max_fit_points must be at least n_components + 2 = {n_components + 2} "
                             f"(UMAP cannot be fitted on fewer), got {max_fit_points}")
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.metric = metric
        self.random_state = random_state
        self.max_fit_points = max_fit_points
        self._model: Any = None
        self.fit_sample_: Indices | None = None  # rows UMAP was fitted on; None when it saw them all

    def fit_transform(self, X: Floats) -> Vectors:
        X = np.asarray(X, dtype=np.float32)
        n = X.shape[0]
        if n <= self.max_fit_points:
            self.fit_sample_ = None
            return self._fit(X)
        sample = self.sample_rows(n)
        rest = np.ones(n, dtype=bool)
        rest[sample] = False
        low = np.empty((n, self.n_components), dtype=np.float32)
        low[sample] = self._fit(X[sample])
        low[rest] = self.transform(X[rest])
        self.fit_sample_ = sample
        return low

    def sample_rows(self, n: int) -> Indices:
        """The sorted rows of ``n`` that a fit uses: all of them up to ``max_fit_points``, else a seeded draw."""
        if n <= self.max_fit_points:
            return np.arange(n)
        rng = np.random.default_rng(self.random_state)
        return np.sort(rng.choice(n, size=self.max_fit_points, replace=False))

    def _fit(self, X: Vectors) -> Vectors:
        n = X.shape[0]
        if n < self.n_components + 2:
            self._model = None
            return X
        from .jit_cache import umap_module  # noqa: PLC0415 - umap is heavy: loaded on first use

        self._model = umap_module().UMAP(
            n_components=self.n_components,
            n_neighbors=max(2, min(self.n_neighbors, n - 1)),  # UMAP requires n_neighbors < n
            min_dist=self.min_dist,
            metric=self.metric,
            random_state=self.random_state,
            n_jobs=1,  # a fixed seed makes UMAP single-threaded anyway; saying so avoids its warning
            init="spectral" if n > self.n_components + 2 else "random",
        )
        return np.asarray(self._model.fit_transform(X), dtype=np.float32)

    def transform(self, X: Floats) -> Vectors:
        X = np.asarray(X, dtype=np.float32)
        if self._model is None:
            return X
        if len(X) == 0:
            return np.zeros((0, self.n_components), dtype=np.float32)
        return np.asarray(self._model.transform(X), dtype=np.float32)

    def __repr__(self) -> str:
        return (f"UmapReducer(n_components={self.n_components}, n_neighbors={self.n_neighbors}, "
                f"min_dist={self.min_dist}, metric={self.metric!r}, random_state={self.random_state}, "
                f"max_fit_points={self.max_fit_points})")
