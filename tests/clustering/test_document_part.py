"""How the document's part of a failure's vector is estimated: by the document's shape by default, or one way."""

import numpy as np
import pytest

from sumwatch.clustering.pipeline import FailureClusterer, PointMeta


def _documents_failing_two_ways(documents: int = 40, dim: int = 48) -> tuple[np.ndarray, list[PointMeta]]:
    # each vector: its document's part (larger) + its kind's part + a little of its own
    rng = np.random.default_rng(5)
    kinds = rng.standard_normal((4, dim))
    vectors, meta = [], []
    for d in range(documents):
        part = 1.6 * rng.standard_normal(dim)
        for k in rng.choice(4, size=2, replace=False):
            for _ in range(2):
                vectors.append(part + kinds[k] + 0.15 * rng.standard_normal(dim))
                meta.append(PointMeta("rubric", f"kind{k}", f"doc{d}"))
    return np.asarray(vectors, dtype=np.float32), meta


def test_kind_means_bring_a_kinds_failures_from_many_documents_together():
    vectors, meta = _documents_failing_two_ways()
    kinds = [m.failure_mode for m in meta]
    result = FailureClusterer(document_part="kind_means").fit(vectors=vectors, meta=meta)
    spread: dict[str, set[int]] = {}
    for label, kind in zip(result.labels.tolist(), kinds):
        if label >= 0:
            spread.setdefault(kind, set()).add(label)
    assert len(result.noise) <= 0.1 * len(kinds)
    assert all(len(labels) == 1 for labels in spread.values()) and len(spread) == 4
    assert len(result.clusters) == 4


def _documents_repeating_kinds(documents: int = 3, dim: int = 48) -> tuple[np.ndarray, list[PointMeta]]:
    rng = np.random.default_rng(7)
    kinds = rng.standard_normal((4, dim))
    vectors, meta = [], []
    for d in range(documents):
        part = 1.6 * rng.standard_normal(dim)
        for k in range(4):
            for _ in range(5):
                vectors.append(part + kinds[k] + 0.15 * rng.standard_normal(dim))
                meta.append(PointMeta("rubric", f"kind{k}", f"doc{d}"))
    return np.asarray(vectors, dtype=np.float32), meta


def test_by_default_documents_that_repeat_a_kind_lose_their_other_kinds_mean():
    vectors, meta = _documents_repeating_kinds()
    default = FailureClusterer().fit(vectors=vectors, meta=meta)
    other = FailureClusterer(document_part="other_kinds").fit(vectors=vectors, meta=meta)
    means = FailureClusterer(document_part="kind_means").fit(vectors=vectors, meta=meta)
    assert np.array_equal(default.reduced, other.reduced)
    assert not np.array_equal(default.reduced, means.reduced)


def test_by_default_documents_failing_each_kind_once_lose_half_of_each_estimate():
    vectors, meta = _documents_failing_two_ways()
    once = [PointMeta(m.rubric, m.failure_mode, f"{m.document}-{i % 2}") for i, m in enumerate(meta)]
    reduced = {part: FailureClusterer(document_part=part).fit(vectors=vectors, meta=once).reduced
               for part in ("by_shape", "other_kinds", "kind_means")}
    assert not np.array_equal(reduced["by_shape"], reduced["other_kinds"])
    assert not np.array_equal(reduced["by_shape"], reduced["kind_means"])


def test_an_unknown_document_part_is_refused():
    with pytest.raises(ValueError, match="nearest"):
        FailureClusterer(document_part="nearest")
