"""Checked by mypy from test_stages.py, never run: stages written without a base class satisfy the stage
protocols, a stage of the wrong shape is a type error, and the pipeline's results carry precise array types.

The check runs with ``warn_unused_ignores``, so each ``type: ignore`` below must be needed: a protocol that
accepted anything would fail the check as surely as one that refused a well-formed stage.
"""

from collections.abc import Sequence
from typing import (
    Any,
    assert_type,  # typing.assert_type is 3.11+
)

import numpy as np
from numpy.typing import NDArray

from sumwatch.clustering import (
    ClustererStage,
    ClusterFit,
    ClusterName,
    EmbedderStage,
    FailureClusterer,
    KeywordNamer,
    KnownIssue,
    NameRequest,
    NamerStage,
    ReducerStage,
    RepresenterStage,
    TrackerStage,
    TrackOutcome,
)


class HashEmbedder:
    def encode(self, sentences: list[str]) -> NDArray[np.float64]:  # any parameter name, float64 is fine
        return np.ones((len(sentences), 8))


class Identity:
    def fit_transform(self, X: NDArray[np.float32]) -> NDArray[np.float32]:
        return X


class OneCluster:
    def fit(self, points: NDArray[np.floating[Any]]) -> ClusterFit:
        n = len(points)
        return ClusterFit(np.zeros(n, dtype=np.intp), np.ones((n, 1)), None)


class FirstMembers:
    def select(self, vectors: NDArray[np.float32], members: NDArray[np.intp],
               membership: NDArray[np.float64]) -> tuple[list[int], list[int]]:
        return [int(i) for i in members[:3]], []


class Terse:
    def keywords(self, clusters: list[list[str]]) -> list[list[str]]:
        return [["k"] for _ in clusters]

    def name_all(self, requests: list[NameRequest]) -> list[ClusterName]:
        return [ClusterName(f"group of {len(r.texts)}", "d.", "c", "f", "low") for r in requests]


class AlwaysNew:
    def track(self, known: Sequence[KnownIssue], centroids: NDArray[np.float32]) -> TrackOutcome:
        return TrackOutcome([], list(known))


embedder: EmbedderStage = HashEmbedder()
reducer: ReducerStage = Identity()
clusterer: ClustererStage = OneCluster()
representer: RepresenterStage = FirstMembers()
namer: NamerStage = Terse()
tracker: TrackerStage = AlwaysNew()
pipeline = FailureClusterer(embedder=HashEmbedder(), reducer=Identity(), clusterer=OneCluster(),
                            representer=FirstMembers(), namer=Terse(), tracker=AlwaysNew())
assert_type(pipeline.namer, NamerStage)
assert_type(pipeline.embedder, EmbedderStage)


class TitlesOnly:  # name_all gives strings, not ClusterName records
    def keywords(self, clusters: list[list[str]]) -> list[list[str]]:
        return [[] for _ in clusters]

    def name_all(self, requests: list[NameRequest]) -> list[str]:
        return ["a title" for _ in requests]


class Int8Reducer:  # gives back integers, which the clusterer cannot take
    def fit_transform(self, X: NDArray[np.float32]) -> NDArray[np.int8]:
        return X.astype(np.int8)


class KeywordsOnly:  # half a namer
    def keywords(self, clusters: list[list[str]]) -> list[list[str]]:
        return [[] for _ in clusters]


FailureClusterer(namer=TitlesOnly())  # type: ignore[arg-type]
FailureClusterer(reducer=Int8Reducer())  # type: ignore[arg-type]
FailureClusterer(namer=KeywordsOnly())  # type: ignore[arg-type]
FailureClusterer(namer=KeywordNamer)  # type: ignore[arg-type]  # the class, not an instance

result = FailureClusterer().fit(vectors=np.zeros((3, 4), dtype=np.float32))
assert_type(result.labels, NDArray[np.intp])
assert_type(result.probabilities, NDArray[np.float64])
for cluster in result.clusters:
    assert_type(cluster.centroid, NDArray[np.float32])
    assert_type(cluster.name, ClusterName | None)
