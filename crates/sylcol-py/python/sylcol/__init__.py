"""sylcol: Project Sylpheed's collision data for Python.

Reads the game's IPFB archives and decodes the MCOL map hulls, the
CollisionSet part library, the REGN objects and the IDXD / IXUD string
tables losslessly, with numpy arrays lent without
copying; answers collision queries in vectorised batches on every core;
builds valid game files from meshes. The same library as the ``sylcol``
command line: ``info()`` returns the object ``info --json`` lists and
``verify()`` its own report (an ``Archive``'s: the whole runs). Typed loaders
(``load_mcol``, ``load_library``, ``load_regn``, ``load_table``,
``load_archive``) return one kind of object; every array of indices is
uint32 (query results' triangle numbers int64, -1 for none).

    >>> import sylcol
    >>> pak = sylcol.open_archive("samples/MiscBin.pak")
    >>> m = sylcol.load_mcol("samples/MiscBin.pak+$DC4B0896")
    >>> m.vertices.shape, m.triangles.dtype
    ((502, 3), dtype('uint32'))
    >>> hits = m.collider().ray([[0, 0, 0]], [[1, 0, 0]])

See docs/python.md in the repository for a tour.
"""

import collections.abc as _abc

from ._errors import (
    BuildError,
    DecodeError,
    MemoryLimitError,
    NotFoundError,
    QueryError,
    SylcolError,
    UnsupportedError,
)
from ._loaders import load_archive, load_library, load_mcol, load_regn, load_table
from ._results import Closest, Hits, Section
from ._sylcol import (
    Archive,
    CollisionSet,
    Collider,
    Entry,
    Mcol,
    Mesh,
    Regn,
    StringTable,
    __version__,
    build_collisionset,
    build_mcol,
    cell_at,
    entry_hash,
    hull_faults,
    load,
    map_cells,
    map_failures,
    open_archive,
    replace_entries,
    weld,
)

# The extension's classes behave as these ABCs; registering them makes
# isinstance(lib, Mapping) and friends say so.
_abc.Mapping.register(CollisionSet)
_abc.Sequence.register(Archive)

__all__ = [
    "Archive",
    "BuildError",
    "Closest",
    "CollisionSet",
    "Collider",
    "DecodeError",
    "Entry",
    "Hits",
    "Mcol",
    "MemoryLimitError",
    "Mesh",
    "NotFoundError",
    "QueryError",
    "Regn",
    "Section",
    "StringTable",
    "SylcolError",
    "UnsupportedError",
    "__version__",
    "build_collisionset",
    "build_mcol",
    "cell_at",
    "entry_hash",
    "hull_faults",
    "load",
    "load_archive",
    "load_library",
    "load_mcol",
    "load_regn",
    "load_table",
    "map_cells",
    "map_failures",
    "open_archive",
    "replace_entries",
    "weld",
]
