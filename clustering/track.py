"""Keep issues stable across runs: match this run's clusters to known issues by centroid similarity.

    tracker = IssueTracker(threshold=0.85, resolve_after=3)
    outcome = tracker.track(known_issues, centroids)      # centroids: (clusters, dim), unit rows
    outcome.assignments[0].issue_id, outcome.assignments[0].status   # "SW-12", "ongoing"
    outcome.unmatched                                                # known issues absent this run

Matching is one-to-one: the Hungarian assignment (``scipy.optimize.linear_sum_assignment``) maximises the
total cosine similarity between cluster centroids and issue centroids, and a pair counts only at or above
``threshold``. A cluster left over opens a new issue with the next number. Statuses:

- ``new``: first seen this run; ``ongoing``: seen before and again now;
- ``regressed``: seen again after it was resolved (stays so while it keeps appearing);
- ``resolved``: absent for ``resolve_after`` consecutive runs.

Everything here is pure: known issues come in as records and the outcome goes out as records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

NEW, ONGOING, REGRESSED, RESOLVED = "new", "ongoing", "regressed", "resolved"
STATUSES: tuple[str, ...] = (NEW, ONGOING, REGRESSED, RESOLVED)


@dataclass(frozen=True)
class KnownIssue:
    """What the tracker needs of an issue from earlier runs."""

    number: int
    centroid: np.ndarray
    status: str = NEW
    missed_runs: int = 0  # consecutive runs without a matching cluster
    prefix: str = "SW"
    name: Any = None  # its ClusterName: a matched cluster keeps it instead of being named again

    @property
    def issue_id(self) -> str:
        return f"{self.prefix}-{self.number}"


@dataclass(frozen=True)
class Assignment:
    """The issue one cluster of this run belongs to."""

    cluster: int  # index into the centroids given to ``track``
    number: int
    issue_id: str
    status: str
    similarity: float  # to the matched issue's centroid; 0.0 for a new issue
    previous_status: str  # "" for a new issue


@dataclass(frozen=True)
class TrackOutcome:
    assignments: list[Assignment]  # one per cluster, in cluster order
    unmatched: list[KnownIssue]  # known issues with no cluster this run, status and missed_runs updated


class IssueTracker:
    """Hungarian matching of cluster centroids to issue centroids, and the status rules."""

    def __init__(self, threshold: float = 0.85, resolve_after: int = 3, prefix: str = "SW") -> None:
        if not -1.0 <= threshold <= 1.0:
            raise ValueError(f"threshold is a cosine similarity in [-1, 1], got {threshold}")
        if resolve_after < 1:
            raise ValueError(f"resolve_after must be at least 1 run, got {resolve_after}")
        self.threshold = threshold
        self.resolve_after = resolve_after
        self.prefix = prefix

    def track(self, known: Sequence[KnownIssue], centroids: np.ndarray) -> TrackOutcome:
        centroids = np.asarray(centroids, dtype=np.float64)
        centroids = _unit(centroids.reshape(len(centroids), -1)) if len(centroids) else np.zeros((0, 0))
        pairs: dict[int, tuple[KnownIssue, float]] = {}
        if len(known) and len(centroids):
            from scipy.optimize import linear_sum_assignment

            issues = _unit(np.stack([np.asarray(k.centroid, dtype=np.float64) for k in known]))
            if issues.shape[1] != centroids.shape[1]:
                raise ValueError(f"issue centroids have {issues.shape[1]} dimensions but clusters have "
                                 f"{centroids.shape[1]}: were they made with another embedding model?")
            sim = centroids @ issues.T
            rows, cols = linear_sum_assignment(-sim)
            for r, c in zip(rows, cols):
                if sim[r, c] >= self.threshold:
                    pairs[int(r)] = (known[int(c)], float(sim[r, c]))

        next_number = max((k.number for k in known), default=0) + 1
        assignments: list[Assignment] = []
        for i in range(len(centroids)):
            if i in pairs:
                issue, similarity = pairs[i]
                status = REGRESSED if issue.status in (RESOLVED, REGRESSED) else ONGOING
                assignments.append(Assignment(i, issue.number, issue.issue_id, status, similarity, issue.status))
            else:
                assignments.append(Assignment(i, next_number, f"{self.prefix}-{next_number}", NEW, 0.0, ""))
                next_number += 1

        matched = {a.number for a in assignments if a.previous_status}
        unmatched = []
        for issue in known:
            if issue.number in matched:
                continue
            missed = issue.missed_runs + 1
            status = RESOLVED if missed >= self.resolve_after else issue.status
            unmatched.append(replace(issue, missed_runs=missed, status=status))
        return TrackOutcome(assignments, unmatched)

    def __repr__(self) -> str:
        return f"IssueTracker(threshold={self.threshold}, resolve_after={self.resolve_after}, prefix={self.prefix!r})"


def _unit(X: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms == 0, 1.0, norms)
