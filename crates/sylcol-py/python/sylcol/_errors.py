"""The exceptions sylcol raises.

Every error carries the fields of the CLI's JSON errors
(``{"message", "path", "offset", "kind"}``, docs/json/README.md), so a
script can branch on ``kind`` and point at ``offset`` without parsing the
message. Unreadable files raise the built-in ``OSError`` subclasses
(``FileNotFoundError``, ...) with ``filename`` set.
"""


class SylcolError(Exception):
    """Base class of sylcol's own errors.

    Attributes: ``message`` (the whole text), ``path`` (the input it
    concerns, or None), ``offset`` (the byte offset where an invariant
    broke, or None), ``kind`` (``invalid``, ``unrecognised``, ``archive``,
    ``too_large``, ``out_of_memory``, ``not_found``, ``unsupported``,
    ``query``, ``hull``, ``usage``, ``other``).
    """

    def __init__(self, message, path=None, offset=None, kind="other"):
        super().__init__(message)
        self.message = message
        self.path = path
        self.offset = offset
        self.kind = kind


class DecodeError(SylcolError, ValueError):
    """Bytes that break an invariant of their format (``kind`` ``invalid``),
    match no format sylcol decodes (``unrecognised``), or an archive index
    or entry that cannot be read (``archive``). ``offset`` is the byte
    offset in ``path`` (for an archive entry: in its part file)."""


class NotFoundError(SylcolError, LookupError):
    """A named archive entry or library mesh that does not exist."""


class UnsupportedError(SylcolError, ValueError):
    """A valid input the operation does not apply to (a whole archive
    given to ``load``, a CollisionSet asked for a file grid, ...)."""


class QueryError(SylcolError, ValueError):
    """An unusable query in a batch (a non-finite coordinate, a zero
    direction, a negative radius). ``index`` is the first bad query's row."""

    def __init__(self, message, path=None, offset=None, kind="query", index=None):
        super().__init__(message, path, offset, kind)
        self.index = index


class MemoryLimitError(SylcolError, MemoryError):
    """An object sylcol will not or cannot hold in memory: it declares
    more bytes than its header allows or than the 64 MiB budget of one
    object (``kind`` ``too_large``, refused before it was read), or the
    memory for it could not be had (``out_of_memory``). A ``MemoryError``,
    raised where the allocation would otherwise abort the interpreter."""


class BuildError(SylcolError, ValueError):
    """A mesh that cannot be built into a game file (empty, non-finite,
    an index out of range, counts over MCOL's u16 limit, a bad bbox or
    cell size: ``kind`` ``invalid``), or one that is not a closed,
    consistently oriented hull (``kind`` ``hull``, the CLI's exit-1
    refusal; ``allow_open=True`` builds it anyway)."""


__all__ = [
    "SylcolError",
    "DecodeError",
    "NotFoundError",
    "UnsupportedError",
    "QueryError",
    "MemoryLimitError",
    "BuildError",
]
