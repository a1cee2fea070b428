"""Keep issues stable across runs: match this run's clusters to known issues by centroid similarity.

    tracker = IssueTracker(threshold=0.85, resolve_after=3)
    outcome = tracker.track(known_issues, centroids)      # centroids: (clusters, dim), unit rows
    outcome.assignments[0].issue_id, outcome.assignments[0].status   # "SW-12", "ongoing"
    outcome.unmatched                                                # known issues absent this run

Matching is one-to-one: the Hungarian assignment (``scipy.optimize.linear_sum_assignment``) maximises the
total cosine similarity between cluster centroids and issue centroids, and a pair counts only at or above
``threshold``. A cluster left over joins the issue it is closest to when that similarity reaches the
threshold too (several clusters of one run can so share an issue: the caller merges them), and otherwise
opens a new issue with the next number. Statuses:

- ``new``: first seen this run; ``ongoing``: seen before and again now;
- ``regressed``: seen again after it was resolved (stays so while it keeps appearing);
- ``resolved``: absent for ``resolve_after`` consecutive runs.

An issue that others were merged into has their centroids too (``KnownIssue.also``): its similarity to a
cluster is the highest over its whole centroid set.

Everything here is pure: known issues come in as records and the outcome goes out as records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from sumwatch.tracer.vocabulary import IssueStatus

from .arrays import Floats, Indices
from .name import ClusterName

NEW, ONGOING, REGRESSED, RESOLVED = IssueStatus.values()
STATUSES: tuple[str, ...] = IssueStatus.values()


@dataclass(frozen=True)
class KnownIssue:
    """What the tracker needs of an issue from earlier runs."""

    number: int
    centroid: Floats  # unit vector in the embedding space
    status: str = NEW
    missed_runs: int = 0  # consecutive runs without a matching cluster
    prefix: str = "SW"
    name: ClusterName | None = None  # a matched cluster keeps it instead of being named again
    also: tuple[Floats, ...] = ()  # centroids of issues merged into this one: a cluster near any of them matches

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

    def __init__(self, threshold: float = 0.85, resolve_after: int = 3, prefix: str = "SW",
                 min_split: int = 3) -> None:
        if not -1.0 <= threshold <= 1.0:
            raise ValueError(f"threshold is a cosine similarity in [-1, 1], got {threshold}")
        if resolve_after < 1:
            raise ValueError(f"resolve_after must be at least 1 run, got {resolve_after}")
        self.threshold = threshold
        self.resolve_after = resolve_after
        self.prefix = prefix
        self.min_split = min_split

    def track(self, known: Sequence[KnownIssue], centroids: Floats) -> TrackOutcome:
        centroids = np.asarray(centroids, dtype=np.float64)
        centroids = _unit(centroids.reshape(len(centroids), -1)) if len(centroids) else np.zeros((0, 0))
        pairs: dict[int, tuple[KnownIssue, float]] = {}
        if len(known) and len(centroids):
            from scipy.optimize import linear_sum_assignment  # noqa: PLC0415 - heavy: loaded on first use

            issues = _unit(np.stack([np.asarray(k.centroid, dtype=np.float64) for k in known]))
            if issues.shape[1] != centroids.shape[1]:
                raise ValueError(f"issue centroids have {issues.shape[1]} dimensions but clusters have "
                                 f"{centroids.shape[1]}: were they made with another embedding model?")
            sim = centroids @ issues.T
            for c, k in enumerate(known):
                extra = [np.asarray(a, dtype=np.float64) for a in k.also if len(a) == centroids.shape[1]]
                if extra:
                    sim[:, c] = np.maximum(sim[:, c], (centroids @ _unit(np.stack(extra)).T).max(axis=1))
            rows, cols = linear_sum_assignment(-sim)
            for r, c in zip(rows, cols):
                if sim[r, c] >= self.threshold:
                    pairs[int(r)] = (known[int(c)], float(sim[r, c]))

        next_number = max((k.number for k in known), default=0) + 1
        assignments: list[Assignment] = []
        for i in range(len(centroids)):
            if i not in pairs and len(known) and len(centroids):
                # left over by the one-to-one assignment but close to an issue another cluster took: a
                # finer split of that issue, so it joins it rather than opening a new one
                best = int(np.argmax(sim[i]))
                if sim[i, best] >= self.threshold:
                    pairs[i] = (known[best], float(sim[i, best]))
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

    def split(self, known: Sequence[KnownIssue], members: Floats) -> list[Indices]:
        """Split one cluster along known issues: positions (into ``members``, unit rows) of each part.

        Clusters come out coarser in some runs than in others (two known issues in one cluster). Each member
        is given to its nearest known issue; the members of one issue form a part when there are at least
        ``min_split`` of them and their centroid is as similar to the issue's as a match needs
        (``threshold``). Members in no part stay together, or join the largest part when too few to stand
        alone. One part means no split; the largest part comes first."""
        everything = [np.arange(len(members))]
        if len(known) < 2 or len(members) < 2 * self.min_split:
            return everything
        issues = _unit(np.stack([np.asarray(k.centroid, dtype=np.float64) for k in known]))
        members = np.asarray(members, dtype=np.float64)
        if issues.shape[1] != members.shape[1]:
            return everything
        nearest = np.argmax(members @ issues.T, axis=1)
        parts = []
        for i in np.unique(nearest):
            part = np.flatnonzero(nearest == i)
            if len(part) >= self.min_split:
                mean = _unit(members[part].mean(axis=0, keepdims=True))[0]
                if float(mean @ issues[i]) >= self.threshold:
                    parts.append(part)
        if not parts:
            return everything
        parts.sort(key=lambda p: (-len(p), int(p[0])))
        rest = np.setdiff1d(np.arange(len(members)), np.concatenate(parts))
        if len(rest) >= self.min_split:
            parts.append(rest)
        elif len(rest):
            parts[0] = np.sort(np.concatenate([parts[0], rest]))
        if len(parts) < 2:
            return everything
        parts.sort(key=lambda p: (-len(p), int(p[0])))
        return parts

    def __repr__(self) -> str:
        return f"IssueTracker(threshold={self.threshold}, resolve_after={self.resolve_after}, prefix={self.prefix!r})"


def _unit(X: Floats) -> NDArray[np.float64]:
    X = np.asarray(X, dtype=np.float64)  # no copy when it is float64 already
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms == 0, 1.0, norms)
