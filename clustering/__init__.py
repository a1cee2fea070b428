"""Failure texts in, named and tracked clusters out: embed -> reduce -> cluster -> represent -> name -> track.

    from sumwatch.clustering import FailureClusterer, KnownIssue, LLMNamer, PointMeta

    clusterer = FailureClusterer()                       # defaults for every stage
    result = clusterer.fit(texts=texts, meta=[PointMeta("factuality", "number_mismatch"), ...],
                           known=[KnownIssue(12, centroid, "ongoing"), ...])
    for c in result.clusters:
        c.label, c.members, c.representatives, c.name.title, c.issue.issue_id

    # swap one stage, keep the others: names from an LLM instead of c-TF-IDF keywords
    clusterer = FailureClusterer(namer=LLMNamer(model))    # model: any JsonModel (monitor brings litellm's)

Every stage is swappable: any object with the methods of its protocol (``EmbedderStage``,
``ReducerStage``, ``ClustererStage``, ``RepresenterStage``, ``NamerStage``, ``TrackerStage``) will do,
no base class needed. No database, no network unless a stage brings one.
"""

from .cluster import ClusterFit, HdbscanClusterer
from .json_model import JsonAnswer, JsonModel
from .llm_namer import LLMNamer
from .name import ClusterName, KeywordNamer, NameRequest, glossary_key
from .pipeline import Cluster, ClusterResult, FailureClusterer, PointMeta
from .reduce import UmapReducer
from .represent import Representer
from .sentence_model.embedder import Embedder
from .stages import (
    ClustererStage,
    EmbedderStage,
    NamerStage,
    ReducerStage,
    RepresenterStage,
    SplittingTrackerStage,
    TrackerStage,
)
from .track import Assignment, IssueTracker, KnownIssue, TrackOutcome

__all__ = [
    # the pipeline and its records
    "FailureClusterer", "PointMeta", "Cluster", "ClusterResult", "ClusterFit", "ClusterName", "NameRequest",
    "glossary_key", "KnownIssue", "Assignment", "TrackOutcome",
    # one protocol per stage
    "EmbedderStage", "ReducerStage", "ClustererStage", "RepresenterStage", "NamerStage", "TrackerStage",
    "SplittingTrackerStage",
    # the default stages, and the LLM namer with the model protocol it needs
    "Embedder", "UmapReducer", "HdbscanClusterer", "Representer", "KeywordNamer", "IssueTracker",
    "LLMNamer", "JsonModel", "JsonAnswer",
]
