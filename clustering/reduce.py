"""Reduce embeddings to a few dimensions before density clustering.

    reducer = UmapReducer(n_components=5)
    low = reducer.fit_transform(vectors)      # (n, 5)
    more = reducer.transform(new_vectors)     # same space

HDBSCAN works poorly in 384 dimensions (distances concentrate), so UMAP with a cosine metric and a fixed
seed brings the vectors down first. With very few points (fewer than ``n_components + 2``) UMAP's spectral
initialisation cannot run, so the vectors are returned unchanged; the clusterer handles that case anyway.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class UmapReducer:
    """UMAP with settings suited to clustering (``min_dist=0``, cosine) and a fixed seed for repeatable runs."""

    def __init__(self, n_components: int = 5, n_neighbors: int = 15, min_dist: float = 0.0,
                 metric: str = "cosine", random_state: int = 42) -> None:
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.metric = metric
        self.random_state = random_state
        self._model: Any = None

    def fit_transform(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        n = X.shape[0]
        if n < self.n_components + 2:
            self._model = None
            return X
        import umap

        self._model = umap.UMAP(
            n_components=self.n_components,
            n_neighbors=max(2, min(self.n_neighbors, n - 1)),  # UMAP requires n_neighbors < n
            min_dist=self.min_dist,
            metric=self.metric,
            random_state=self.random_state,
            n_jobs=1,  # a fixed seed makes UMAP single-threaded anyway; saying so avoids its warning
            init="spectral" if n > self.n_components + 2 else "random",
        )
        return np.asarray(self._model.fit_transform(X), dtype=np.float32)

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        if self._model is None:
            return X
        return np.asarray(self._model.transform(X), dtype=np.float32)

    def __repr__(self) -> str:
        return (f"UmapReducer(n_components={self.n_components}, n_neighbors={self.n_neighbors}, "
                f"min_dist={self.min_dist}, metric={self.metric!r}, random_state={self.random_state})")
