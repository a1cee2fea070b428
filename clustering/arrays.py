"""The array type every stage passes around: a numpy array of any shape and dtype (rows are points)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[Any]
Floats = NDArray[np.floating[Any]]
