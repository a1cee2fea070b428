"""Failure texts in, named and tracked clusters out: embed -> reduce -> cluster -> represent -> name -> track.

    from sumwatch.clustering import FailureClusterer, KnownIssue, PointMeta

    clusterer = FailureClusterer()                       # defaults for every stage
    result = clusterer.fit(texts=texts, meta=[PointMeta("factuality", "number_mismatch"), ...],
                           known=[KnownIssue(12, centroid, "ongoing"), ...])
    for c in result.clusters:
        c.label, c.members, c.representatives, c.name.title, c.issue.issue_id

Every stage is swappable: any object with the methods of its protocol (``EmbedderStage``,
``ReducerStage``, ``ClustererStage``, ``RepresenterStage``, ``NamerStage``, ``TrackerStage``) will do,
for example ``FailureClusterer(namer=LLMNamer("openai/gpt-4o-mini"))``. No database, no network unless
a stage brings one.
"""

from .cluster import ClusterFit, HdbscanClusterer
from .embedder import Embedder
from .llm_namer import LLMNamer
from .name import ClusterName, KeywordNamer, NameRequest
from .pipeline import Cluster, ClusterResult, FailureClusterer, PointMeta
from .reduce import UmapReducer
from .represent import Representer
from .stages import ClustererStage, EmbedderStage, NamerStage, ReducerStage, RepresenterStage, TrackerStage
from .track import Assignment, IssueTracker, KnownIssue, TrackOutcome

__all__ = [
    "Assignment", "Cluster", "ClusterFit", "ClusterName", "ClusterResult", "ClustererStage", "Embedder",
    "EmbedderStage", "FailureClusterer", "HdbscanClusterer", "IssueTracker", "KeywordNamer", "KnownIssue",
    "LLMNamer", "NameRequest", "NamerStage", "PointMeta", "ReducerStage", "Representer", "RepresenterStage",
    "TrackOutcome", "TrackerStage", "UmapReducer",
]
