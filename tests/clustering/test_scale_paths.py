"""The large-input paths: UMAP fitted on a sample with the rest transformed, and hdbscan's prediction for
points outside the HDBSCAN fit sample done on arrays (``predict_unseen``), checked against hdbscan itself."""

import hdbscan
import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from sumwatch.clustering.cluster import HdbscanClusterer, predict_unseen
from sumwatch.clustering.pipeline import FailureClusterer
from sumwatch.clustering.reduce import UmapReducer


def _modes(n: int, k: int = 4, dim: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around ``k`` random directions sharing a template direction, like embedded failures."""
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((k, dim))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    template = rng.standard_normal(dim)
    template /= np.linalg.norm(template)
    truth = rng.permutation(np.arange(n) % k)
    X = directions[truth] + 0.8 * template + rng.normal(0.0, 0.08, (n, dim))
    return (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32), truth


@pytest.fixture(scope="module")
def vectors() -> tuple[np.ndarray, np.ndarray]:
    return _modes(200)


def test_sample_fit_returns_every_row_in_order(vectors):
    X, _ = vectors
    reducer = UmapReducer(max_fit_points=50)
    low = reducer.fit_transform(X)
    assert low.shape == (200, 5) and low.dtype == np.float32 and np.isfinite(low).all()
    sample = reducer.fit_sample_
    assert len(sample) == 50 and np.array_equal(sample, np.unique(sample))
    np.testing.assert_array_equal(sample, reducer.sample_rows(200))
    # the sample's rows are a plain fit of those rows; the others are the fitted model's transform of them
    np.testing.assert_array_equal(low[sample], UmapReducer(max_fit_points=50).fit_transform(X[sample]))
    rest = np.setdiff1d(np.arange(200), sample)
    np.testing.assert_array_equal(low[rest], reducer.transform(X[rest]))


def test_sample_fit_is_repeatable_and_the_seed_picks_the_sample(vectors):
    X, _ = vectors
    first = UmapReducer(max_fit_points=50).fit_transform(X)
    np.testing.assert_array_equal(first, UmapReducer(max_fit_points=50).fit_transform(X))
    other = UmapReducer(max_fit_points=50, random_state=7)
    other.fit_transform(X)
    assert not np.array_equal(other.fit_sample_, UmapReducer(max_fit_points=50).sample_rows(200))


def test_up_to_max_fit_points_every_row_is_fitted(vectors):
    X, _ = vectors
    reducer = UmapReducer(max_fit_points=200)
    low = reducer.fit_transform(X)
    assert reducer.fit_sample_ is None and low.shape == (200, 5)
    with pytest.raises(ValueError, match="max_fit_points"):
        UmapReducer(max_fit_points=6)


def test_points_placed_by_transform_still_cluster_by_mode():
    X, truth = _modes(400)
    reducer = UmapReducer(max_fit_points=150)
    result = FailureClusterer(reducer=reducer).fit(vectors=X)
    assert len(reducer.fit_sample_) == 150
    assert len(result.clusters) == 4
    assert adjusted_rand_score(truth, result.labels) >= 0.95
    assert result.probabilities.shape == (400, 4)


def _hierarchy(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fit points with a selected cluster that has child clusters (two close blobs that HDBSCAN keeps as one),
    and new points: far ones, ones between the blobs, and copies of fitted points (zero distances)."""
    rng = np.random.default_rng(seed)
    fit = np.vstack([rng.normal([0, 0], 1.0, (150, 2)), rng.normal([4, 0], 1.0, (150, 2)),
                     rng.normal([20, 20], 1.0, (200, 2)), rng.normal([20, 0], 0.5, (60, 2))])
    new = np.vstack([rng.uniform(-5, 25, (600, 2)), rng.normal([2, 0], 2.0, (300, 2)), fit[:40]])
    return fit, new


@pytest.mark.parametrize("min_samples", [None, 5])
def test_predict_unseen_agrees_with_hdbscan(min_samples):
    fit, new = _hierarchy()
    model = hdbscan.HDBSCAN(min_cluster_size=20, min_samples=min_samples, prediction_data=True).fit(fit)
    tree = model.prediction_data_.cluster_tree
    selected = model.condensed_tree_._select_clusters()
    assert any((tree["parent"] == c).any() for c in selected)  # labels need the walk up the tree
    labels, memberships = predict_unseen(model, new, batch=128)
    np.testing.assert_array_equal(labels, hdbscan.approximate_predict(model, new)[0])
    np.testing.assert_allclose(memberships, hdbscan.membership_vector(model, new), rtol=1e-9, atol=1e-12)
    assert (labels == -1).any() and len(set(labels.tolist()) - {-1}) == model.labels_.max() + 1


def test_predict_unseen_agrees_with_hdbscan_on_reduced_embeddings():
    X, _ = _modes(600, k=5, dim=32, seed=3)
    low = UmapReducer().fit_transform(X).astype(np.float64)
    model = hdbscan.HDBSCAN(min_cluster_size=15, min_samples=3, prediction_data=True).fit(low[:300])
    labels, memberships = predict_unseen(model, low[300:], batch=100)
    np.testing.assert_array_equal(labels, hdbscan.approximate_predict(model, low[300:])[0])
    np.testing.assert_allclose(memberships, hdbscan.membership_vector(model, low[300:]), rtol=1e-9, atol=1e-12)


def test_clusterer_assigns_points_outside_its_sample_like_hdbscan():
    fit, new = _hierarchy(seed=1)
    X = np.vstack([fit, new])
    clusterer = HdbscanClusterer(min_cluster_size=20, max_fit_points=len(fit))
    result = clusterer.fit(X)
    sample = np.sort(np.random.default_rng(42).choice(len(X), size=len(fit), replace=False))
    rest = np.setdiff1d(np.arange(len(X)), sample)
    model = clusterer.model
    np.testing.assert_array_equal(result.labels[rest], hdbscan.approximate_predict(model, X[rest])[0])
    np.testing.assert_allclose(result.probabilities[rest], hdbscan.membership_vector(model, X[rest]),
                               rtol=1e-9, atol=1e-12)
