"""Type stub of the sylcol package (the Rust extension sylcol._sylcol and
its Python half)."""

import math
from os import PathLike
from typing import Any, Iterable, Iterator, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, "PathLike[str]"]
_Points = npt.ArrayLike  # (N, 3) or (3,)
_Grid = Union[Literal["file", "derived"], int]
_Accel = Literal["grid", "bvh"]

class SylcolError(Exception):
    """Base class of sylcol's errors: ``message``, ``path``, ``offset``, ``kind``."""
    message: str
    path: Optional[str]
    offset: Optional[int]
    kind: str
    def __init__(self, message: str, path: Optional[str] = None, offset: Optional[int] = None, kind: str = "other") -> None: ...

class DecodeError(SylcolError, ValueError):
    """Bytes that break their format's invariants, match no format, or an unreadable archive entry."""

class NotFoundError(SylcolError, LookupError):
    """A named archive entry or mesh that does not exist."""

class UnsupportedError(SylcolError, ValueError):
    """A valid input the operation does not apply to."""

class QueryError(SylcolError, ValueError):
    """An unusable query; ``index`` is the first bad row of the batch."""
    index: Optional[int]

class MemoryLimitError(SylcolError, MemoryError):
    """An object too large to hold (kind ``too_large``) or memory that could not be had (``out_of_memory``)."""

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

class Section(NamedTuple):
    """One of a REGN's six sections: offset = pointer + 0x10 (None when not relocated), span, stride = span / count (None when it does not divide)."""
    index: int
    pointer: int
    count: int
    offset: Optional[int]
    span: Optional[int]
    stride: Optional[int]

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
    def decode(self) -> _Object:
        """The entry decoded."""

class Archive(Sequence[Entry]):
    """An opened IPFB archive: entries in index order, indexable by name."""
    @property
    def path(self) -> str: ...
    @property
    def problems(self) -> list[str]:
        """Index problems that leave the entries readable."""
    @property
    def names(self) -> dict[str, Any]:
        """Where the entries' names came from (``pak list --json``'s
        ``names``): archive, entries, unnamed, and each source's origin
        (built_in, given, beside, cache), path and entries named."""
    def info(self) -> dict[str, Any]:
        """What ``sylcol info --json ARCHIVE`` prints: format, path, objects, skipped, errors, names."""
    def verify(self, seed: int = 0x5EED2026, resource_ids: Optional[list[str]] = None) -> dict[str, Any]:
        """What ``sylcol verify --json ARCHIVE`` prints: seed, ok, objects (each entry's report), errors, skipped, names."""
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
    def accel(self) -> Literal["grid", "bvh"]:
        """What rays and segments go through: "bvh" or "grid"."""
    @property
    def dims(self) -> Tuple[int, int, int]: ...
    def ray(self, origins: _Points, dirs: _Points, max: float = math.inf) -> Hits:
        """First crossing of each ray with 0 < t <= max."""
    def segment(self, starts: _Points, ends: _Points) -> Hits:
        """First crossing of each segment; t in (0, 1]."""
    def inside(self, points: _Points) -> np.ndarray:
        """Whether each point lies inside the closed hull (bool array).

        Raises UnsupportedError on a mesh with an edge used by an odd number
        of triangles (an open rim, a single-sided fin): it encloses no
        definite volume. Double-sided faces enclose nothing."""
    def closest(self, points: _Points) -> Closest:
        """Nearest surface point of each point."""
    def sphere(self, centres: _Points, radii: npt.ArrayLike, motions: Optional[_Points] = None) -> Hits:
        """First contact of each (moving) sphere; t is the fraction of the motion."""
    def grid_fit(self) -> dict[str, Any]:
        """What ``sylcol query FILE grid --json`` prints."""

class Mcol:
    """A decoded MCOL map hull; arrays are read-only (vertices and spheres made once, then the same array on every access)."""
    @property
    def path(self) -> str: ...
    @property
    def vertices(self) -> np.ndarray:
        """N x 3 float32."""
    @property
    def triangles(self) -> np.ndarray:
        """M x 3 uint32 (the file's 16 bits widened; read-only)."""
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
        """uint32 triangle indices per list record (read-only)."""
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
    def verify(self, seed: int = 0x5EED2026) -> dict[str, Any]:
        """This object's own report (flat, as ``info()``): the entry of ``objects`` that ``sylcol verify --json`` prints."""
    def to_bytes(self) -> bytes:
        """Encoded again, byte-identical."""
    def to_trimesh(self) -> Any:
        """A trimesh.Trimesh (needs trimesh)."""
    def collider(self, grid: _Grid = "file", accel: _Accel = "grid") -> Collider: ...

class Mesh:
    """One CollisionSet record; arrays are read-only, made once per record."""
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
        """M x 3 uint32 (read-only)."""
    @property
    def vertex_count(self) -> int: ...
    @property
    def triangle_count(self) -> int: ...
    def to_trimesh(self) -> Any: ...
    def collider(self, grid: _Grid = "derived", accel: _Accel = "grid") -> Collider: ...

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
    def verify(self, seed: int = 0x5EED2026, resource_ids: Optional[list[str]] = None) -> dict[str, Any]:
        """This library's own report (flat, as ``info()``)."""
    def to_bytes(self) -> bytes: ...

class Regn:
    """A decoded REGN object, as far as it is known: header, six sections, the 12-byte vertex section."""
    @property
    def path(self) -> str: ...
    @property
    def header(self) -> dict[str, Any]:
        """Every header field; open words raw."""
    @property
    def bbox(self) -> np.ndarray:
        """2 x 3 float32: min, max."""
    @property
    def extent(self) -> np.ndarray: ...
    @property
    def cell_size(self) -> np.ndarray: ...
    @property
    def grid(self) -> Optional[Tuple[int, int, int]]:
        """Cells per axis as read at 0x50, or None when unreadable."""
    @property
    def grid_encoding(self) -> Optional[Literal["u32[3]", "u16[3]", "u8[3]"]]: ...
    @property
    def counts(self) -> list[int]:
        """The six u16 counts at 0x60."""
    @property
    def pointers(self) -> list[int]:
        """The six section pointers at 0x70, as stored."""
    @property
    def sections(self) -> list[Section]: ...
    def section_bytes(self, index: int) -> Optional[bytes]:
        """The bytes of a section's whole span (None without a target)."""
    @property
    def vertex_section(self) -> Optional[int]:
        """Index of the one section of stride 12, or None."""
    @property
    def vertices(self) -> Optional[np.ndarray]:
        """N x 3 float32 of the vertex section (read-only), or None."""
    @property
    def relocations(self) -> np.ndarray:
        """uint32 chunk offsets of the relocated words."""
    @property
    def pof0_base(self) -> int: ...
    def info(self) -> dict[str, Any]:
        """What ``sylcol info --json`` prints."""
    def verify(self, seed: int = 0x5EED2026) -> dict[str, Any]:
        """This object's own report (flat, as ``info()``): the entry of ``objects`` that ``sylcol verify --json`` prints."""
    def to_bytes(self) -> bytes:
        """Encoded again, byte-identical."""

class StringTable:
    """A decoded IDXD (UTF-8) or IXUD (UTF-16BE) string table."""
    @property
    def path(self) -> str: ...
    @property
    def format(self) -> Literal["IDXD", "IXUD"]: ...
    @property
    def unit(self) -> Literal[1, 2]:
        """Bytes per string-offset unit."""
    @property
    def pool_size_unit(self) -> Literal["bytes", "units"]: ...
    @property
    def records(self) -> np.ndarray:
        """Structured uint32: hash, string, p1, p2."""
    @property
    def pairs(self) -> np.ndarray:
        """Structured uint32: hash, first, second."""
    @property
    def strings(self) -> dict[int, str]:
        """Pool offset (units) -> text, in pool order."""
    @property
    def texts(self) -> list[Optional[str]]:
        """Each record's string, None where it has none."""
    def text(self, offset: int) -> Optional[str]:
        """The string an offset starts, or None."""
    @property
    def pool_bytes(self) -> bytes: ...
    @property
    def pool_offset(self) -> int: ...
    @property
    def trailer(self) -> bytes:
        """Bytes after the pool."""
    def __len__(self) -> int:
        """Number of records."""
    def to_text(self) -> str:
        """The text form of ``sylcol export T -o T.txt``."""
    def info(self) -> dict[str, Any]:
        """What ``sylcol info --json`` prints."""
    def verify(self, seed: int = 0x5EED2026) -> dict[str, Any]:
        """This object's own report (flat, as ``info()``): the entry of ``objects`` that ``sylcol verify --json`` prints."""
    def to_bytes(self) -> bytes:
        """Encoded again, byte-identical."""

_Object = Union[Mcol, CollisionSet, Regn, StringTable]

def open_archive(path: _Path, names: Union[None, _Path, Iterable[str]] = None) -> Archive:
    """Opens an IPFB archive."""

_Names = Union[None, _Path, Iterable[str]]
_Source = Union[_Path, bytes, bytearray, memoryview]

@overload
def load(source: Union[bytes, bytearray, memoryview], path: Optional[str] = None, names: _Names = None) -> _Object: ...
@overload
def load(source: _Path, path: Optional[str] = None, names: _Names = None) -> Union[_Object, Archive]:
    """Loads a path, ``ARCHIVE.pak+ENTRY`` or bytes (one object), or a
    whole ``.pak`` (its ``Archive``, named as ``sylcol info`` names it).
    The typed loaders below return one kind."""

def load_mcol(source: Union[_Source, Entry], path: Optional[str] = None, names: _Names = None) -> Mcol:
    """``load`` for an MCOL map hull; UnsupportedError (kind ``unsupported``) for another kind."""

def load_library(source: Union[_Source, Entry], path: Optional[str] = None, names: _Names = None) -> CollisionSet:
    """``load`` for a CollisionSet part library."""

def load_regn(source: Union[_Source, Entry], path: Optional[str] = None, names: _Names = None) -> Regn:
    """``load`` for a REGN object."""

def load_table(source: Union[_Source, Entry], path: Optional[str] = None, names: _Names = None) -> StringTable:
    """``load`` for an IDXD / IXUD string table."""

def load_archive(source: _Path, names: _Names = None) -> Archive:
    """``load`` for a whole IPFB archive (as ``open_archive``)."""

def build_mcol(vertices: npt.ArrayLike, triangles: npt.ArrayLike, bbox: Optional[npt.ArrayLike] = None, cell: Optional[float] = None, *, allow_open: bool = False) -> bytes:
    """A valid MCOL from a closed, consistently oriented mesh; any other
    raises BuildError (kind ``hull``, the CLI's message) unless
    ``allow_open=True`` (``build mcol --allow-open``: built, with a
    UserWarning, and ``verify()`` fails it)."""

def build_collisionset(meshes: Union[Mapping[str, Tuple[npt.ArrayLike, npt.ArrayLike]], Iterable[Tuple[str, Tuple[npt.ArrayLike, npt.ArrayLike]]]], endian: Literal["big", "little"] = "big", *, allow_open: bool = False) -> bytes:
    """A CollisionSet library from named meshes. Parts may be open; a
    degenerate or turned-over part raises BuildError (kind ``hull``)
    unless ``allow_open=True``."""

def entry_hash(name: str) -> int:
    """MakeEntryID of an entry name."""

# Editing (the Blender add-on's needs; src/editing/).

def hull_faults(vertices: npt.ArrayLike, triangles: npt.ArrayLike, *, part: bool = False) -> dict[str, Any]:
    """Every hull fault with its elements: ``refused``, ``message``,
    ``faults``, ``degenerate``, ``open_edges`` / ``overshared_edges`` /
    ``same_direction_edges`` (``[triangle, corner]`` rows), ``facing``,
    ``unused``."""

def weld(
    vertices: npt.ArrayLike, triangles: npt.ArrayLike, *, ids: Optional[Sequence[int]] = None
) -> Tuple[np.ndarray, np.ndarray]:
    """Vertices at identical positions merged (``build --weld``): float32 (N, 3), uint32 (M, 3).
    With ``ids`` (each vertex's index in a file, negative for none), only equal ids merge and the
    file's vertex order comes back."""

def map_cells(map: Mcol) -> dict[str, np.ndarray]:
    """Occupied cells: ``cell``, ``lo``, ``hi``, ``count``, ``sphere``."""

def cell_at(map: Mcol, point: Sequence[float]) -> Optional[dict[str, Any]]:
    """The cell holding a point: ``cell``, ``index``, ``lo``, ``hi``, ``triangles``; None outside the grid."""

def map_failures(map: Mcol) -> dict[str, Any]:
    """What verify flags: ``triangles`` and ``cells``, each with its checks."""

def replace_entries(
    archive: _Path,
    output: _Path,
    replacements: Union[Mapping[Union[str, int], bytes], Iterable[Tuple[Union[str, int], bytes]]],
    *,
    aliases: Literal["refuse", "all", "split"] = "refuse",
    level: int = 9,
    names: Union[_Path, Iterable[str], None] = None,
) -> dict[str, Any]:
    """``sylcol pak replace``: the entries given new content, every other stored byte where it was."""
