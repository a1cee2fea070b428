"""The arrays the stages pass between them; rows are points.

    vectors: Vectors = embedder.encode(texts)     # float32, (points, dim), unit rows
    fit.labels: Labels                            # a cluster per point, -1 for noise
    fit.probabilities: Memberships                # float64, (points, clusters)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Vectors = NDArray[np.float32]  # embeddings, centroids and reduced coordinates
Floats = NDArray[np.floating[Any]]  # any float rows: what a stage accepts (float32 or float64)
Labels = NDArray[np.intp]  # one cluster number per point, -1 for noise
Indices = NDArray[np.intp]  # positions of points
Memberships = NDArray[np.float64]  # soft memberships, (points, clusters), or one per member of a cluster
