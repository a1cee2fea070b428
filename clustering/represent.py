"""Pick the examples that stand for a cluster: typical and varied representatives, plus boundary cases.

    picker = Representer(n_representatives=5, n_boundary=2)
    reps, boundary = picker.select(vectors, members, membership)   # indices into vectors

Representatives come from the members the clusterer is most sure of (membership at or above the median),
chosen greedily by max-marginal relevance: near the centroid, unlike those already chosen. Boundary cases
are the members with the lowest membership, which show where the cluster blurs into its neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .arrays import Floats, Indices


class Representer:
    """Greedy max-marginal-relevance selection of representatives; ``diversity`` in [0, 1] trades centrality
    for variety."""

    def __init__(self, n_representatives: int = 5, n_boundary: int = 2, diversity: float = 0.3) -> None:
        self.n_representatives = n_representatives
        self.n_boundary = n_boundary
        self.diversity = diversity

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

        confident = np.flatnonzero(membership >= np.median(membership))
        relevance = 0.5 * centrality + 0.5 * membership
        chosen: list[int] = []  # positions within members
        pool = [int(i) for i in confident]
        while pool and len(chosen) < self.n_representatives:
            redundancy = (unit[pool] @ unit[chosen].T).max(axis=1) if chosen else np.zeros(len(pool))
            score = (1 - self.diversity) * relevance[pool] - self.diversity * redundancy
            best = pool[int(np.argmax(score))]  # argmax takes the first of ties: deterministic
            chosen.append(best)
            pool.remove(best)

        taken = set(chosen)
        rest = [i for i in np.argsort(membership, kind="stable") if i not in taken]
        n_boundary = min(self.n_boundary, max(0, len(members) - len(chosen)))
        boundary = [int(members[i]) for i in rest[:n_boundary]]
        return [int(members[i]) for i in chosen], boundary

    def __repr__(self) -> str:
        return (f"Representer(n_representatives={self.n_representatives}, n_boundary={self.n_boundary}, "
                f"diversity={self.diversity})")


def _unit(X: NDArray[np.float64]) -> NDArray[np.float64]:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms == 0, 1.0, norms)
