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

Each public name loads its module on first use (PEP 562): importing the package loads nothing more, and importing
one of its modules (``sentence_model.backend``, ``vocabulary``) loads that module and what it imports, so the
settings name the model's backend without loading numpy or umap, which come with the stages that use them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# public name -> the module (under this package) that defines it
_HOMES = {
    "ClusterFit": "cluster", "HdbscanClusterer": "cluster",
    "JsonAnswer": "json_model", "JsonModel": "json_model",
    "LLMNamer": "llm_namer",
    "ClusterName": "name", "KeywordNamer": "name", "NameRequest": "name", "glossary_key": "name",
    "Cluster": "pipeline", "ClusterResult": "pipeline", "FailureClusterer": "pipeline", "PointMeta": "pipeline",
    "UmapReducer": "reduce",
    "Representer": "represent",
    "Embedder": "sentence_model.embedder",
    "ClustererStage": "stages", "EmbedderStage": "stages", "NamerStage": "stages", "ReducerStage": "stages",
    "RepresenterStage": "stages", "SplittingTrackerStage": "stages", "TrackerStage": "stages",
    "Assignment": "track", "IssueTracker": "track", "KnownIssue": "track", "TrackOutcome": "track",
}

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


def __getattr__(name: str) -> Any:
    """A public name, from its module, imported now (and kept, so the next lookup is a plain attribute)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
