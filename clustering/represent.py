"""Pick the examples that stand for a cluster: typical, distinct representatives, plus boundary cases.

    picker = Representer(n_representatives=5, n_boundary=2)
    reps, boundary = picker.select(vectors, members, membership)   # indices into vectors
    is_core(0.93), is_core(0.01)                                   # True, False

Representatives come from the cluster's core: members whose membership reaches ``CORE_MEMBERSHIP``. Only
when no member does are the best of the rest taken, and every view labels such a one a boundary case
(:func:`is_core`). They are chosen greedily by max-marginal relevance (near the centroid, unlike those
already chosen), and a member whose vector is a near-duplicate of one already chosen (cosine above
``duplicate_similarity``: the same summary failing the same way) is never chosen: three copies of one text
show one failure, not three. Boundary cases are the members with the lowest membership, which show where
the cluster blurs into its neighbours, also without duplicates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .arrays import Floats, Indices

# HDBSCAN's soft membership of a point in its cluster; at or above this the point's membership favours the
# cluster over all others together, so it is the cluster's core
CORE_MEMBERSHIP = 0.5
DUPLICATE_SIMILARITY = 0.95


def is_core(membership: float) -> bool:
    """Whether a member with this membership is core; a shown member that is not is labelled a boundary case."""
    return membership >= CORE_MEMBERSHIP


class Representer:
    """Greedy max-marginal-relevance selection of distinct core representatives; ``diversity`` in [0, 1] trades
    centrality for variety."""

    def __init__(self, n_representatives: int = 5, n_boundary: int = 2, diversity: float = 0.3,
                 duplicate_similarity: float = DUPLICATE_SIMILARITY) -> None:
        self.n_representatives = n_representatives
        self.n_boundary = n_boundary
        self.diversity = diversity
        self.duplicate_similarity = duplicate_similarity

    def select(self, vectors: Floats, members: Sequence[int] | Indices,
               membership: Sequence[float] | Floats) -> tuple[list[int], list[int]]:
        """``membership[i]`` belongs to ``members[i]``; returns (representatives, boundary) as point indices."""
        members = np.asarray(members, dtype=np.intp)
        membership = np.asarray(membership, dtype=np.float64)
        if members.size == 0:
            return [], []
        unit = _unit(np.asarray(vectors)[members].astype(np.float64))  # rows first: no float64 copy of every vector
        centroid = _unit(unit.mean(axis=0, keepdims=True))[0]
        centrality = unit @ centroid

        core = np.flatnonzero(membership >= CORE_MEMBERSHIP)
        if core.size == 0:  # no core at all: the most confident half, which the views mark as boundary cases
            core = np.flatnonzero(membership >= np.median(membership))
        relevance = 0.5 * centrality + 0.5 * membership
        chosen: list[int] = []  # positions within members
        pool = [int(i) for i in core]
        while pool and len(chosen) < self.n_representatives:
            redundancy = (unit[pool] @ unit[chosen].T).max(axis=1) if chosen else np.zeros(len(pool))
            score = (1 - self.diversity) * relevance[pool] - self.diversity * redundancy
            best = pool[int(np.argmax(score))]  # argmax takes the first of ties: deterministic
            chosen.append(best)
            pool = [i for i in pool if i != best and float(unit[i] @ unit[best]) <= self.duplicate_similarity]

        shown = list(chosen)
        boundary: list[int] = []
        for i in np.argsort(membership, kind="stable"):
            if len(boundary) >= self.n_boundary:
                break
            if int(i) in shown or (shown and float((unit[shown] @ unit[i]).max()) > self.duplicate_similarity):
                continue
            boundary.append(int(i))
            shown.append(int(i))
        return [int(members[i]) for i in chosen], [int(members[i]) for i in boundary]

    def __repr__(self) -> str:
        return (f"Representer(n_representatives={self.n_representatives}, n_boundary={self.n_boundary}, "
                f"diversity={self.diversity}, duplicate_similarity={self.duplicate_similarity})")


def _unit(X: NDArray[np.float64]) -> NDArray[np.float64]:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms == 0, 1.0, norms)
