"""Clusters follow the failure kind, not the document, when a few long documents fail many ways."""

import os

os.environ["HF_HUB_OFFLINE"] = "1"

from collections import Counter

import pytest
from few_documents import few_document_failures, purity

from sumwatch.clustering import FailureClusterer
from sumwatch.clustering.embedder import Embedder


@pytest.fixture(scope="module")
def workload():
    texts, meta = few_document_failures(documents=3, per_kind=6)
    return texts, meta, Embedder().encode(texts)


def test_clusters_do_not_mix_failure_kinds_of_the_same_documents(workload):
    texts, meta, vectors = workload
    result = FailureClusterer().fit(texts=texts, vectors=vectors, meta=meta)
    kinds = [m.failure_mode for m in meta]
    assert purity(result.labels, kinds) >= 0.95
    assert len(result.noise) <= 0.1 * len(texts)
    for c in result.clusters:
        lead = c.representatives[0]
        top = Counter(kinds[i] for i in c.members).most_common(1)[0][0]
        assert kinds[lead] == top  # the lead example shows the failure kind
        assert len({texts[i] for i in c.representatives}) == len(c.representatives)
