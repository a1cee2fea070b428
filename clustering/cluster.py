"""Density clustering of reduced vectors with HDBSCAN, with soft memberships and assignment of new points.

    clusterer = HdbscanClusterer()
    fit = clusterer.fit(low)               # fit.labels (-1 = noise), fit.probabilities (n, k), fit.model
    labels, probs = clusterer.assign(more) # approximate_predict for points not seen in fit

``min_cluster_size`` follows the data when not given: ``base = max(3, round(n * 0.025))`` (at least three
points, otherwise about 2.5% of them), and the candidates ``base``, ``base + step`` and ``base + 2 * step``
(``step = max(1, base // 4)``, capped at half the points) are each fitted; the one with the best HDBSCAN
relative validity (DBCV approximation) is kept, with ties going to the earlier candidate so runs are
repeatable. The candidates stay close to the base on purpose: relative validity rewards merging nearby
clusters, so a candidate several times larger than the smallest real issue wins by swallowing it.
``min_samples`` defaults to ``max(1, min_cluster_size // 5)``: a small neighbourhood keeps the density
estimate local, so small issues next to big ones are not smoothed away. Above ``max_fit_points`` the model is
fitted on a seeded random sample and the remaining points are assigned with approximate prediction:
labels as ``hdbscan.approximate_predict`` gives them and soft memberships as ``hdbscan.membership_vector``
does, both computed by :func:`predict_unseen` on arrays (hdbscan's own functions loop over the points in
Python, one at a time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .arrays import Floats, Labels, Memberships


@dataclass
class ClusterFit:
    """The outcome of a fit: a label per point (-1 noise), soft memberships (n, clusters), the model."""

    labels: Labels
    probabilities: Memberships
    model: Any  # the fitted hdbscan.HDBSCAN, or None when there were too few points


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
        base = max(3, round(n * 0.025))
        step = max(1, base // 4)
        cap = max(3, n // 2)
        sizes: list[int] = []
        for size in (base, base + step, base + 2 * step):
            size = min(size, cap)
            if size not in sizes:
                sizes.append(size)
        return sizes

    def fit(self, X: Floats) -> ClusterFit:
        points = np.asarray(X, dtype=np.float64)
        n = points.shape[0]
        if n < 3:  # HDBSCAN needs a few points to form any density estimate
            self._model = None
            return ClusterFit(np.full(n, -1, dtype=np.intp), np.zeros((n, 0)), None)
        if n > self.max_fit_points:
            rng = np.random.default_rng(self.random_state)
            sample = np.sort(rng.choice(n, size=self.max_fit_points, replace=False))
        else:
            sample = np.arange(n)
        model = self._best_model(points[sample])
        self._model = model
        labels = np.full(n, -1, dtype=np.intp)
        labels[sample] = model.labels_
        k = int(model.labels_.max()) + 1
        probs = np.zeros((n, k))
        if k:
            probs[sample] = self._soft(model, points[sample], fitted=True)
            rest = np.setdiff1d(np.arange(n), sample)
            if rest.size:
                rest_labels, rest_probs = self.assign(points[rest])
                labels[rest] = rest_labels
                probs[rest] = rest_probs
        return ClusterFit(labels, probs, model)

    def assign(self, X_new: Floats) -> tuple[Labels, Memberships]:
        """Labels and soft memberships for points the model did not see (call after ``fit``)."""
        import hdbscan  # noqa: PLC0415 - heavy: loaded on first use

        points = np.asarray(X_new, dtype=np.float64)
        model = self._model
        if model is None or model.labels_.max() < 0:
            return np.full(len(points), -1, dtype=np.intp), np.zeros((len(points), 0))
        if model.labels_.max() == 0:  # one cluster: membership is approximate_predict's strength (see _soft)
            labels, _ = hdbscan.approximate_predict(model, points)
            return np.asarray(labels, dtype=np.intp), self._soft(model, points, fitted=False)
        return predict_unseen(model, points)

    def _best_model(self, X: NDArray[np.float64]) -> Any:
        import hdbscan  # noqa: PLC0415 - heavy: loaded on first use

        best, best_score = None, -np.inf
        for size in self.candidate_sizes(len(X)):
            model = hdbscan.HDBSCAN(
                min_cluster_size=size,
                min_samples=self.min_samples if self.min_samples is not None else max(1, size // 5),
                cluster_selection_method=self.cluster_selection_method,
                prediction_data=True,
                gen_min_span_tree=True,  # needed for relative_validity_
                # hdbscan's default spreads core distances over 4 worker processes; at max_fit_points or
                # fewer, starting and feeding them costs more than it saves (three 20,000-point fits:
                # 12 s with the pool, 6 s without, on 2 cores), and the result is the same either way
                core_dist_n_jobs=1,
            ).fit(X)
            score = _validity(model)
            if best is None or score > best_score:
                best, best_score = model, score
        return best

    @staticmethod
    def _soft(model: Any, X: NDArray[np.float64], fitted: bool) -> Memberships:
        import hdbscan  # noqa: PLC0415 - heavy: loaded on first use

        k = int(model.labels_.max()) + 1
        if k == 1:  # hdbscan's soft vectors degenerate for a single cluster; membership is the strength
            if fitted:
                return np.asarray(model.probabilities_, dtype=np.float64).reshape(-1, 1)
            _, strength = hdbscan.approximate_predict(model, X)
            return np.asarray(strength, dtype=np.float64).reshape(-1, 1)
        vectors = hdbscan.all_points_membership_vectors(model) if fitted else hdbscan.membership_vector(model, X)
        return np.asarray(vectors, dtype=np.float64).reshape(len(X), k)

    def __repr__(self) -> str:
        return (f"HdbscanClusterer(min_cluster_size={self.min_cluster_size}, min_samples={self.min_samples}, "
                f"max_fit_points={self.max_fit_points}, random_state={self.random_state})")


def predict_unseen(model: Any, X: Floats, batch: int = 2048) -> tuple[Labels, Memberships]:
    """``hdbscan.approximate_predict(model, X)[0]`` and ``hdbscan.membership_vector(model, X)``, computed on
    arrays a batch of points at a time, with one neighbour search serving both.

    hdbscan does both one point at a time in Python and searches the neighbours twice; this does the same
    arithmetic on whole batches and agrees with it: the labels exactly, the memberships to rounding
    (tests/clustering/test_scale_paths.py). Memory stays at about ``batch * 2 * min_samples``
    numbers.
    A model with no clusters, or a metric other than euclidean, goes to hdbscan's own functions.
    """
    import hdbscan  # noqa: PLC0415 - heavy: loaded on first use
    from sklearn.neighbors import KDTree  # noqa: PLC0415 - heavy: loaded on first use

    X = np.asarray(X, dtype=np.float64)
    data = model.prediction_data_
    raw = model.condensed_tree_._raw_tree
    clusters = np.array(sorted(model.condensed_tree_._select_clusters())).astype(np.intp)
    if (type(data.dist_metric).__name__ != "EuclideanDistance" or len(X) == 0 or len(clusters) == 0
            or len(data.cluster_tree) == 0):
        labels = hdbscan.approximate_predict(model, X)[0] if len(X) else np.zeros(0, dtype=np.intp)
        vectors = hdbscan.membership_vector(model, X) if len(X) else np.zeros((0, len(clusters)))
        return np.asarray(labels, dtype=np.intp), np.asarray(vectors, dtype=np.float64).reshape(len(X), len(clusters))
    min_samples = model.min_samples or model.min_cluster_size
    exemplar_trees = [KDTree(np.asarray(e, dtype=np.float64)) for e in data.exemplars]
    cluster_max = np.array([data.leaf_max_lambdas[c] for c in clusters], dtype=np.float64)

    # hdbscan finds a point's row in the condensed tree as the first row with the point as child (row 0 if none)
    children = raw["child"]
    size = int(max(children.max(), raw["parent"].max())) + 1
    first_row = np.zeros(size, dtype=np.intp)
    found, first_from_end = np.unique(children[::-1], return_index=True)
    first_row[found] = len(children) - 1 - first_from_end
    # approximate_predict's walk up the cluster tree: each cluster's parent and the lambda it splits off at
    tree = data.cluster_tree
    up_parent = np.full(size, -1, dtype=np.intp)
    up_lambda = np.full(size, np.nan)
    up_parent[tree["child"]] = tree["parent"]
    up_lambda[tree["child"]] = tree["lambda_val"]
    root = int(tree["parent"].min())
    label_of = np.full(size, -1, dtype=np.intp)
    for cluster, label in data.cluster_map.items():
        label_of[int(cluster)] = int(label)
    # A point's merge heights depend on it only through its lambda and its tree row's parent cluster, so
    # each parent gets one row: the lambda at which it merges with each selected cluster, NaN where
    # hdbscan uses the point's own lambda instead.
    parents = np.unique(raw["parent"])
    templates = _merge_templates(parents, clusters, tree)
    parent_max = np.array([data.leaf_max_lambdas.get(p, np.nan) for p in parents.tolist()], dtype=np.float64)

    labels = np.empty(len(X), dtype=np.intp)
    out = np.empty((len(X), len(clusters)), dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for start in range(0, len(X), batch):
            points = X[start:start + batch]
            rows = np.arange(len(points))
            dist, ind = data.tree.query(points, k=2 * min_samples)
            # the nearest neighbour by mutual reachability, and the lambda at which the point joins it
            reach = np.maximum(np.maximum(data.core_distances[ind], dist[:, min_samples:min_samples + 1]), dist)
            pick = reach.argmin(axis=1)
            neighbor = ind[rows, pick]
            nearest = reach[rows, pick]
            lam = np.where(nearest > 0.0, 1.0 / np.where(nearest > 0.0, nearest, 1.0), np.finfo(np.double).max)
            tree_row = first_row[neighbor]
            row_lambda = raw["lambda_val"][tree_row]
            row_parent = raw["parent"][tree_row]

            # label: from the neighbour's cluster, walk up while the point's lambda is within the parent
            cluster = row_parent.copy()
            moving = row_lambda > lam
            while True:
                moving &= (cluster > root) & (up_parent[cluster] >= 0) & (up_lambda[cluster] >= lam)
                if not moving.any():
                    break
                cluster[moving] = up_parent[cluster[moving]]
            labels[start:start + len(points)] = label_of[cluster]

            # membership, as membership_vector: the lambda is capped by the neighbour's own
            lam = np.minimum(lam, row_lambda)
            parent = np.searchsorted(parents, row_parent)
            template = templates[parent]  # (points, clusters)

            # distance part: inverse distance to each cluster's nearest exemplar, normalised
            near = np.column_stack([t.query(points, k=1)[0][:, 0] for t in exemplar_trees])
            inverse = np.where(near != 0, 1.0 / np.where(near != 0, near, 1.0),
                               np.finfo(np.double).max / len(clusters))
            dist_vec = inverse / inverse.sum(axis=1, keepdims=True)

            # outlier part: hdbscan takes the lambda as a float32 here; softmax of max / (max - height)
            heights = np.where(np.isnan(template), lam.astype(np.float32).astype(np.float64)[:, None], template)
            point_max = parent_max[parent][:, None]
            denominator = point_max - heights
            scores = point_max / np.where(denominator <= 0, 1e-8, denominator)
            outlier = np.exp(scores - np.nanmax(scores, axis=1, keepdims=True))
            outlier /= outlier.sum(axis=1, keepdims=True)

            result = dist_vec ** 0.5 * outlier ** 2.0
            result /= result.sum(axis=1, keepdims=True)

            # probability of being in some cluster: the highest merge height over that cluster's max lambda
            heights = np.where(np.isnan(template), lam[:, None], template)
            best = heights.argmax(axis=1)
            result *= (heights[rows, best] / (np.maximum(lam, cluster_max[best]) + 1e-8))[:, None]
            out[start:start + len(points)] = result
    return labels, out


def _merge_templates(parents: NDArray[Any], clusters: NDArray[np.intp],
                     cluster_tree: NDArray[Any]) -> NDArray[np.float64]:
    """(parents, clusters): hdbscan's ``merge_height`` of each parent cluster with each selected cluster,
    NaN where hdbscan takes the point's own lambda (one cluster lies on the other's path to the root)."""
    parent_of: dict[int, int] = {}
    lambda_of: dict[int, float] = {}
    for p, c, lam in zip(cluster_tree["parent"].tolist(), cluster_tree["child"].tolist(),
                         cluster_tree["lambda_val"].tolist()):
        parent_of.setdefault(c, p)  # hdbscan takes the first row with that child
        lambda_of.setdefault(c, lam)
    out = np.full((len(parents), len(clusters)), np.nan)
    for row, point_cluster in enumerate(parents.tolist()):
        for col, cluster in enumerate(clusters.tolist()):
            left, right, last = point_cluster, cluster, point_cluster
            took_left = took_right = False
            while left != right:
                if left > right:
                    took_left, last = True, left
                    left = parent_of.get(left, right)  # no parent: only the root, which is the smallest id
                else:
                    took_right, last = True, right
                    right = parent_of.get(right, left)
            if took_left and took_right:
                out[row, col] = lambda_of[last]
    return out


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
