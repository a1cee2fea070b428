"""The stages of the clustering pipeline, as protocols: any object with these methods can replace a default.

    class MyNamer:                                  # no base class needed
        def keywords(self, clusters: list[list[str]]) -> list[list[str]]: ...
        def name_all(self, requests: list[NameRequest]) -> list[ClusterName]: ...

    FailureClusterer(namer=MyNamer())

The pipeline calls every method with positional arguments, so a stage may name its parameters as it likes.
Each protocol takes what the pipeline hands over and may give back any float array where the pipeline
converts it anyway (an embedder or reducer returning float64 is fine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .arrays import Floats, Indices, Memberships, Vectors
from .cluster import ClusterFit
from .name import ClusterName, NameRequest
from .track import KnownIssue, TrackOutcome


@runtime_checkable
class EmbedderStage(Protocol):
    """Texts -> unit vectors (one row per text)."""

    def encode(self, texts: list[str], /) -> Floats: ...


@runtime_checkable
class ReducerStage(Protocol):
    """Embeddings (float32, one row per point) -> a few dimensions that keep neighbourhoods."""

    def fit_transform(self, vectors: Vectors, /) -> Floats: ...


@runtime_checkable
class ClustererStage(Protocol):
    """Reduced points -> labels (-1 noise), soft memberships (points x clusters) and the fitted model."""

    def fit(self, points: Floats, /) -> ClusterFit: ...


@runtime_checkable
class RepresenterStage(Protocol):
    """A cluster's members and their memberships -> (representatives, boundary cases), as indices into
    ``vectors``."""

    def select(self, vectors: Vectors, members: Indices, membership: Memberships, /
               ) -> tuple[list[int], list[int]]: ...


@runtime_checkable
class NamerStage(Protocol):
    """Clusters -> keywords, and a name, description, root cause, fix and severity for each one asked.

    ``keywords`` gets every cluster's texts; ``name_all`` gets one request per cluster still to be named
    (known issues keep their names) and returns one name per request, in order."""

    def keywords(self, clusters: list[list[str]], /) -> list[list[str]]: ...

    def name_all(self, requests: list[NameRequest], /) -> list[ClusterName]: ...


@runtime_checkable
class TrackerStage(Protocol):
    """Cluster centroids (unit rows) -> the known issue each continues (or a new issue number), and the
    known issues that went missing."""

    def track(self, known: Sequence[KnownIssue], centroids: Vectors, /) -> TrackOutcome: ...


@runtime_checkable
class SplittingTrackerStage(TrackerStage, Protocol):
    """A tracker that can also split one cluster along the known issues its members sit nearest to; the
    pipeline does so before tracking when the tracker has ``split`` (as :class:`IssueTracker` does).

    ``split`` returns positions into ``members`` (unit rows), one array per part, the part that keeps the
    cluster's label first; a single part means no split."""

    def split(self, known: Sequence[KnownIssue], members: Vectors, /) -> list[Indices]: ...
