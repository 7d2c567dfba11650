"""Type stub of the sylcol package (the Rust extension sylcol._sylcol and
its Python half)."""

from os import PathLike
from typing import Any, Iterable, Iterator, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, "PathLike[str]"]
_Points = npt.ArrayLike  # (N, 3) or (3,)
_Grid = Union[Literal["file", "derived"], int]

class SylcolError(Exception):
    """Base class of sylcol's errors: ``message``, ``path``, ``offset``, ``kind``."""
    message: str
    path: Optional[str]
    offset: Optional[int]
    kind: str
    def __init__(self, message: str, path: Optional[str] = ..., offset: Optional[int] = ..., kind: str = ...) -> None: ...

class DecodeError(SylcolError, ValueError):
    """Bytes that break their format's invariants, match no format, or an unreadable archive entry."""

class NotFoundError(SylcolError, LookupError):
    """A named archive entry or mesh that does not exist."""

class UnsupportedError(SylcolError, ValueError):
    """A valid input the operation does not apply to."""

class QueryError(SylcolError, ValueError):
    """An unusable query; ``index`` is the first bad row of the batch."""
    index: Optional[int]

class BuildError(SylcolError, ValueError):
    """A mesh that cannot be built into a game file."""

class Hits(NamedTuple):
    """First contacts: t (NaN on a miss), triangle (-1), point, normal (NaN)."""
    t: np.ndarray
    triangle: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    @property
    def hit(self) -> np.ndarray:
        """Bool mask of the rows that touched the surface."""

class Closest(NamedTuple):
    """Nearest surface points: distance, point, triangle."""
    distance: np.ndarray
    point: np.ndarray
    triangle: np.ndarray

class Entry:
    """One archive entry."""
    @property
    def hash(self) -> int:
        """MakeEntryID of the entry's name."""
    @property
    def name(self) -> Optional[str]:
        """The name, when the name list knows the hash."""
    @property
    def display(self) -> str:
        """The name, or ``$HASH.MAGIC``."""
    @property
    def path(self) -> str:
        """``ARCHIVE.pak+ENTRY``."""
    @property
    def part(self) -> int:
        """Part file number (``.p00`` is 0)."""
    @property
    def offset(self) -> int:
        """Byte offset in the part file."""
    @property
    def stored_size(self) -> int:
        """Bytes stored (compressed size for Z1)."""
    @property
    def size(self) -> Optional[int]:
        """Inflated length (None when unreadable)."""
    @property
    def compressed(self) -> Optional[bool]:
        """Whether the entry is Z1-compressed."""
    @property
    def magic(self) -> Optional[str]:
        """First four payload bytes when printable."""
    @property
    def error(self) -> Optional[str]:
        """Why the entry cannot be read, or None."""
    def read(self) -> bytes:
        """The entry's bytes, inflated and checked."""
    def decode(self) -> Union[Mcol, CollisionSet]:
        """The entry decoded."""

class Archive(Sequence[Entry]):
    """An opened IPFB archive: entries in index order, indexable by name."""
    @property
    def path(self) -> str: ...
    @property
    def problems(self) -> list[str]:
        """Index problems that leave the entries readable."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int) -> Entry: ...
    @overload
    def __getitem__(self, key: str) -> Entry: ...
    def __iter__(self) -> Iterator[Entry]: ...

class Collider:
    """A mesh ready for vectorised queries; every method releases the GIL."""
    @property
    def source(self) -> Literal["file", "derived"]: ...
    @property
    def dims(self) -> Tuple[int, int, int]: ...
    def ray(self, origins: _Points, dirs: _Points, max: float = ...) -> Hits:
        """First crossing of each ray with 0 < t <= max."""
    def segment(self, starts: _Points, ends: _Points) -> Hits:
        """First crossing of each segment; t in (0, 1]."""
    def inside(self, points: _Points) -> np.ndarray:
        """Whether each point lies inside the closed hull (bool array)."""
    def closest(self, points: _Points) -> Closest:
        """Nearest surface point of each point."""
    def sphere(self, centres: _Points, radii: npt.ArrayLike, motions: Optional[_Points] = ...) -> Hits:
        """First contact of each (moving) sphere; t is the fraction of the motion."""
    def grid_fit(self) -> dict[str, Any]:
        """What ``sylcol query FILE grid --json`` prints."""

class Mcol:
    """A decoded MCOL map hull; arrays are read-only views (no copy)."""
    @property
    def path(self) -> str: ...
    @property
    def vertices(self) -> np.ndarray:
        """N x 3 float32."""
    @property
    def triangles(self) -> np.ndarray:
        """M x 3 uint16."""
    @property
    def spheres(self) -> np.ndarray:
        """M x 4 float32: centre, radius of triangle i's sphere."""
    @property
    def bbox(self) -> np.ndarray:
        """2 x 3 float32: min, max."""
    @property
    def extent(self) -> np.ndarray: ...
    @property
    def cell_size(self) -> np.ndarray: ...
    @property
    def grid(self) -> Tuple[int, int, int]: ...
    @property
    def cells(self) -> np.ndarray:
        """Structured: index, count, record, link, word3, sphere."""
    @property
    def records(self) -> np.ndarray:
        """Structured: count, list, tail."""
    @property
    def lists(self) -> list[np.ndarray]:
        """uint16 triangle indices per list record."""
    @property
    def relocations(self) -> np.ndarray:
        """uint32 chunk offsets of the relocated words."""
    @property
    def pof0_base(self) -> int: ...
    @property
    def header(self) -> dict[str, Any]: ...
    @property
    def layout(self) -> Optional[dict[str, Any]]: ...
    @property
    def vertex_count(self) -> int: ...
    @property
    def triangle_count(self) -> int: ...
    def info(self) -> dict[str, Any]:
        """What ``sylcol info --json`` prints."""
    def verify(self, seed: int = ...) -> dict[str, Any]:
        """What ``sylcol verify --json`` prints."""
    def to_bytes(self) -> bytes:
        """Encoded again, byte-identical."""
    def to_trimesh(self) -> Any:
        """A trimesh.Trimesh (needs trimesh)."""
    def collider(self, grid: _Grid = "file") -> Collider: ...

class Mesh:
    """One CollisionSet record; arrays are read-only views."""
    @property
    def name(self) -> str: ...
    @property
    def name_field(self) -> bytes: ...
    @property
    def index(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def family(self) -> str: ...
    @property
    def vertices(self) -> np.ndarray:
        """N x 3 float32."""
    @property
    def triangles(self) -> np.ndarray:
        """M x 3 uint32."""
    @property
    def vertex_count(self) -> int: ...
    @property
    def triangle_count(self) -> int: ...
    def to_trimesh(self) -> Any: ...
    def collider(self, grid: _Grid = "derived") -> Collider: ...

class CollisionSet(Mapping[str, Mesh]):
    """A decoded CollisionSet: name -> Mesh, iterated in record order."""
    @property
    def path(self) -> str: ...
    @property
    def endian(self) -> Literal["big", "little"]: ...
    @property
    def meshes(self) -> list[Mesh]: ...
    def __getitem__(self, name: str) -> Mesh: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def info(self) -> dict[str, Any]: ...
    def verify(self, seed: int = ..., resource_ids: Optional[list[str]] = ...) -> dict[str, Any]: ...
    def to_bytes(self) -> bytes: ...

def open_archive(path: _Path, names: Union[None, _Path, Iterable[str]] = ...) -> Archive:
    """Opens an IPFB archive."""

def load(source: Union[_Path, bytes, bytearray, memoryview], path: Optional[str] = ...) -> Union[Mcol, CollisionSet]:
    """Loads a path, ``ARCHIVE.pak+ENTRY`` or bytes."""

def build_mcol(vertices: npt.ArrayLike, triangles: npt.ArrayLike, bbox: Optional[npt.ArrayLike] = ..., cell: Optional[float] = ...) -> bytes:
    """A valid MCOL from a mesh."""

def build_collisionset(meshes: Union[Mapping[str, Tuple[npt.ArrayLike, npt.ArrayLike]], Iterable[Tuple[str, Tuple[npt.ArrayLike, npt.ArrayLike]]]], endian: Literal["big", "little"] = ...) -> bytes:
    """A CollisionSet library from named meshes."""

def entry_hash(name: str) -> int:
    """MakeEntryID of an entry name."""
