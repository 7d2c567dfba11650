"""What the vectorised queries return: named tuples of numpy arrays."""

from typing import NamedTuple

import numpy as np


class Hits(NamedTuple):
    """First contacts of rays, segments or moving spheres, one row each.

    ``t`` (float32, NaN on a miss): the ray parameter, the fraction of a
    segment, or the fraction of a sphere's motion; ``triangle`` (int64, -1
    on a miss); ``point`` and ``normal`` (N x 3 float32, NaN on a miss).
    """

    t: np.ndarray
    triangle: np.ndarray
    point: np.ndarray
    normal: np.ndarray

    @property
    def hit(self) -> np.ndarray:
        """A bool mask of the rows that touched the surface."""
        return self.triangle >= 0


class Closest(NamedTuple):
    """Nearest surface points: ``distance`` (float32, unsigned), ``point``
    (N x 3 float32) and ``triangle`` (int64); NaN / -1 for a mesh with no
    triangles."""

    distance: np.ndarray
    point: np.ndarray
    triangle: np.ndarray
