"""Density clustering of reduced vectors with HDBSCAN, with soft memberships and assignment of new points.

    clusterer = HdbscanClusterer()
    fit = clusterer.fit(low)               # fit.labels (-1 = noise), fit.probabilities (n, k), fit.model
    labels, probs = clusterer.assign(more) # approximate_predict for points not seen in fit

``min_cluster_size`` follows the data when not given: ``base = max(3, round(n * 0.02))`` (at least three
points, otherwise about 2% of them), and the candidates ``base``, ``2 * base`` and ``4 * base`` (capped at
half the points) are each fitted; the one with the best HDBSCAN relative validity (DBCV approximation) is
kept, with ties going to the earlier candidate so runs are repeatable. Above ``max_fit_points`` the model is
fitted on a seeded random sample and the remaining points are assigned with approximate prediction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class ClusterFit:
    """The outcome of a fit: a label per point (-1 noise), soft memberships (n, clusters), the model."""

    labels: np.ndarray
    probabilities: np.ndarray
    model: Any


class HdbscanClusterer:
    """HDBSCAN with prediction data, an adaptive ``min_cluster_size`` and fit-on-sample for large inputs."""

    def __init__(self, min_cluster_size: int | None = None, min_samples: int | None = None,
                 max_fit_points: int = 20_000, random_state: int = 42,
                 cluster_selection_method: str = "eom") -> None:
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.max_fit_points = max_fit_points
        self.random_state = random_state
        self.cluster_selection_method = cluster_selection_method
        self._model: Any = None

    @property
    def model(self) -> Any:
        return self._model

    def candidate_sizes(self, n: int) -> list[int]:
        """The ``min_cluster_size`` values tried for ``n`` points."""
        if self.min_cluster_size is not None:
            return [self.min_cluster_size]
        base = max(3, round(n * 0.02))
        cap = max(3, n // 2)
        sizes: list[int] = []
        for size in (base, 2 * base, 4 * base):
            size = min(size, cap)
            if size not in sizes:
                sizes.append(size)
        return sizes

    def fit(self, X: np.ndarray) -> ClusterFit:
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        if n < 3:  # HDBSCAN needs a few points to form any density estimate
            self._model = None
            return ClusterFit(np.full(n, -1, dtype=int), np.zeros((n, 0)), None)
        if n > self.max_fit_points:
            rng = np.random.default_rng(self.random_state)
            sample = np.sort(rng.choice(n, size=self.max_fit_points, replace=False))
        else:
            sample = np.arange(n)
        model = self._best_model(X[sample])
        self._model = model
        labels = np.full(n, -1, dtype=int)
        labels[sample] = model.labels_
        k = int(model.labels_.max()) + 1
        probs = np.zeros((n, k))
        if k:
            probs[sample] = self._soft(model, X[sample], fitted=True)
            rest = np.setdiff1d(np.arange(n), sample)
            if rest.size:
                rest_labels, rest_probs = self.assign(X[rest])
                labels[rest] = rest_labels
                probs[rest] = rest_probs
        return ClusterFit(labels, probs, model)

    def assign(self, X_new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Labels and soft memberships for points the model did not see (call after ``fit``)."""
        import hdbscan

        X_new = np.asarray(X_new, dtype=np.float64)
        model = self._model
        if model is None or model.labels_.max() < 0:
            return np.full(len(X_new), -1, dtype=int), np.zeros((len(X_new), 0))
        labels, _ = hdbscan.approximate_predict(model, X_new)
        return np.asarray(labels, dtype=int), self._soft(model, X_new, fitted=False)

    def _best_model(self, X: np.ndarray) -> Any:
        import hdbscan

        best, best_score = None, -np.inf
        for size in self.candidate_sizes(len(X)):
            model = hdbscan.HDBSCAN(
                min_cluster_size=size,
                min_samples=self.min_samples,
                cluster_selection_method=self.cluster_selection_method,
                prediction_data=True,
                gen_min_span_tree=True,  # needed for relative_validity_
            ).fit(X)
            score = _validity(model)
            if best is None or score > best_score:
                best, best_score = model, score
        return best

    @staticmethod
    def _soft(model: Any, X: np.ndarray, fitted: bool) -> np.ndarray:
        import hdbscan

        k = int(model.labels_.max()) + 1
        if k == 1:  # hdbscan's soft vectors degenerate for a single cluster; membership is the strength
            if fitted:
                return np.asarray(model.probabilities_, dtype=float).reshape(-1, 1)
            _, strength = hdbscan.approximate_predict(model, X)
            return np.asarray(strength, dtype=float).reshape(-1, 1)
        if fitted:
            vectors = hdbscan.all_points_membership_vectors(model)
        else:
            vectors = hdbscan.membership_vector(model, X)
        return np.asarray(vectors, dtype=float).reshape(len(X), k)

    def __repr__(self) -> str:
        return (f"HdbscanClusterer(min_cluster_size={self.min_cluster_size}, min_samples={self.min_samples}, "
                f"max_fit_points={self.max_fit_points}, random_state={self.random_state})")


def _validity(model: Any) -> float:
    # A fit with no clusters or a single one has no meaningful DBCV score; rank it below any real split.
    k = int(model.labels_.max()) + 1
    if k == 0:
        return -2.0
    if k == 1:
        return -1.0
    try:
        score = float(model.relative_validity_)
    except (ValueError, ZeroDivisionError, FloatingPointError, IndexError):  # degenerate trees
        return -1.0
    return score if np.isfinite(score) else -1.0
