"""What the vectorised queries and REGN sections return: named tuples."""

from typing import NamedTuple, Optional

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


class Section(NamedTuple):
    """One of a REGN's six sections, as its header places it.

    ``index`` (0..5), ``pointer`` (the stored word at 0x70 + 4 index),
    ``count`` (the u16 at 0x60 + 2 index), ``offset`` (chunk offset of the
    first byte, pointer + 0x10; None when POF0 does not relocate the
    pointer), ``span`` (bytes to the next higher section or the data end)
    and ``stride`` (span / count when that divides, else None).
    """

    index: int
    pointer: int
    count: int
    offset: Optional[int]
    span: Optional[int]
    stride: Optional[int]
