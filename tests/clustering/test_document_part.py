"""How the document's part of a failure's vector is estimated: by the document's shape by default, or one way."""

import numpy as np
import pytest
from few_documents import clusters_per_kind, purity

from sumwatch.clustering.pipeline import FailureClusterer, PointMeta


def _documents(seed: int, documents: int, kinds_each: int, repeats: int, dim: int = 48
               ) -> tuple[np.ndarray, list[PointMeta]]:
    """Each document fails ``kinds_each`` of four kinds (drawn), each ``repeats`` times; a failure's vector is
    its document's part (larger) + its kind's part + a little of its own."""
    rng = np.random.default_rng(seed)
    kinds = rng.standard_normal((4, dim))
    vectors, meta = [], []
    for d in range(documents):
        part = 1.6 * rng.standard_normal(dim)
        for k in rng.choice(4, size=kinds_each, replace=False):
            for _ in range(repeats):
                vectors.append(part + kinds[k] + 0.15 * rng.standard_normal(dim))
                meta.append(PointMeta("rubric", f"kind{k}", f"doc{d}"))
    return np.asarray(vectors, dtype=np.float32), meta


class _Keep:
    """A reducer that keeps the vectors it is given, so ``reduced`` is what the document's part left."""

    def fit_transform(self, X):
        return np.asarray(X)


def test_kind_means_bring_a_kinds_failures_from_many_documents_together():
    vectors, meta = _documents(5, documents=40, kinds_each=2, repeats=2)
    kinds = [m.failure_mode for m in meta]
    result = FailureClusterer(document_part="kind_means").fit(vectors=vectors, meta=meta)
    assert len(result.noise) <= 0.1 * len(kinds)
    assert clusters_per_kind(result.labels, kinds) == 1.0
    assert len({k for label, k in zip(result.labels, kinds) if label >= 0}) == 4
    assert len(result.clusters) == 4


def test_by_default_documents_that_repeat_a_kind_lose_their_other_kinds_mean():
    vectors, meta = _documents(7, documents=3, kinds_each=4, repeats=5)
    kinds = [m.failure_mode for m in meta]
    default = FailureClusterer().fit(vectors=vectors, meta=meta)
    other = FailureClusterer(document_part="other_kinds").fit(vectors=vectors, meta=meta)
    means = FailureClusterer(document_part="kind_means").fit(vectors=vectors, meta=meta)
    text = FailureClusterer(topic_weight=0).fit(vectors=vectors, meta=meta)
    assert np.array_equal(default.reduced, other.reduced)
    assert not np.array_equal(default.reduced, means.reduced)
    # and a kind's failures from the three documents come together, where text alone splits them by document
    assert purity(default.labels, kinds) == 1.0 and clusters_per_kind(default.labels, kinds) == 1.0
    assert clusters_per_kind(text.labels, kinds) == 3.0


def test_by_default_documents_failing_each_kind_once_lose_half_of_each_estimate():
    vectors, meta = _documents(5, documents=80, kinds_each=2, repeats=1)
    reduced = {part: FailureClusterer(reducer=_Keep(), document_part=part).fit(vectors=vectors, meta=meta).reduced
               for part in ("by_shape", "other_kinds", "kind_means")}
    assert not np.array_equal(reduced["by_shape"], reduced["other_kinds"])
    assert not np.array_equal(reduced["by_shape"], reduced["kind_means"])
    # unit - (o + k) / 2 = ((unit - o) + (unit - k)) / 2: each vector is a blend of the two estimates' vectors,
    # a good part of each
    for mine, other, means in zip(reduced["by_shape"], reduced["other_kinds"], reduced["kind_means"]):
        both = np.stack([other, means], axis=1)
        shares, *_ = np.linalg.lstsq(both, mine, rcond=None)
        assert np.allclose(both @ shares, mine, atol=1e-5) and shares.min() > 0.25


def test_an_unknown_document_part_is_refused():
    with pytest.raises(ValueError, match="nearest"):
        FailureClusterer(document_part="nearest")
