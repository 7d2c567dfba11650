"""Typed loaders: ``load`` for one kind of object, so that a type checker
knows what comes back without a cast, and a script fails at once, with
the path, when a file holds another kind."""

import os

from ._errors import UnsupportedError
from ._sylcol import Archive, CollisionSet, Entry, Mcol, Regn, StringTable, load

_KINDS = {
    Mcol: "an MCOL map hull",
    CollisionSet: "a CollisionSet library",
    Regn: "a REGN object",
    StringTable: "an IDXD / IXUD string table",
    Archive: "an IPFB archive",
}


def _load_as(cls, source, path, names):
    if isinstance(source, Entry):
        obj = source.decode()
    else:
        obj = load(source, path=path, names=names)
    if isinstance(obj, cls):
        return obj
    where = getattr(obj, "path", None)
    if where is None:
        where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<bytes>"
    raise UnsupportedError(
        f"{where}: is {_KINDS[type(obj)]}, not {_KINDS[cls]}", path=where, kind="unsupported"
    )


def load_mcol(source, path=None, names=None):
    """``load`` for an MCOL map hull: an ``Mcol``, or UnsupportedError
    (kind ``unsupported``) when ``source`` holds another kind of object.
    ``source`` is what ``load`` takes, or an archive ``Entry``."""
    return _load_as(Mcol, source, path, names)


def load_library(source, path=None, names=None):
    """``load`` for a CollisionSet part library (a ``CollisionSet``)."""
    return _load_as(CollisionSet, source, path, names)


def load_regn(source, path=None, names=None):
    """``load`` for a REGN object (a ``Regn``)."""
    return _load_as(Regn, source, path, names)


def load_table(source, path=None, names=None):
    """``load`` for an IDXD / IXUD string table (a ``StringTable``)."""
    return _load_as(StringTable, source, path, names)


def load_archive(source, names=None):
    """``load`` for a whole IPFB archive (an ``Archive``, as
    ``open_archive`` opens it); a path to one object raises
    UnsupportedError."""
    return _load_as(Archive, source, None, names)
