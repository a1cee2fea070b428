"""The stages of the clustering pipeline, as protocols: any object with these methods can replace a default.

    class MyNamer:                                  # no base class needed
        def keywords(self, clusters: list[list[str]]) -> list[list[str]]: ...
        def name_all(self, requests: list[NameRequest]) -> list[ClusterName]: ...

    FailureClusterer(namer=MyNamer())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .arrays import Array
from .cluster import ClusterFit
from .name import ClusterName, NameRequest
from .track import KnownIssue, TrackOutcome


@runtime_checkable
class EmbedderStage(Protocol):
    """Texts -> unit vectors (one row per text)."""

    def encode(self, texts: list[str]) -> Array: ...


@runtime_checkable
class ReducerStage(Protocol):
    """High-dimensional vectors -> a few dimensions that keep neighbourhoods."""

    def fit_transform(self, X: Array) -> Array: ...


@runtime_checkable
class ClustererStage(Protocol):
    """Reduced points -> labels (-1 noise), soft memberships (points x clusters) and the fitted model."""

    def fit(self, X: Array) -> ClusterFit: ...


@runtime_checkable
class RepresenterStage(Protocol):
    """A cluster's members -> (representatives, boundary cases), as indices into ``vectors``."""

    def select(self, vectors: Array, members: list[int] | Array,
               membership: Array) -> tuple[list[int], list[int]]: ...


@runtime_checkable
class NamerStage(Protocol):
    """Clusters -> keywords, and a name, description, root cause, fix and severity for each one asked."""

    def keywords(self, clusters: list[list[str]]) -> list[list[str]]: ...

    def name_all(self, requests: list[NameRequest]) -> list[ClusterName]: ...


@runtime_checkable
class TrackerStage(Protocol):
    """Cluster centroids -> the known issue each continues (or a new issue number), and what went missing."""

    def track(self, known: Sequence[KnownIssue], centroids: Array) -> TrackOutcome: ...
