//! The `sylcol` Python package's extension module (`sylcol._sylcol`).
//!
//! A front over the library, like the CLI: it decodes with
//! `sylcol_format`, reports with `sylcol::report` (so `info()` and
//! `verify()` return what `--json` prints), queries with
//! `sylcol::query::Collider` and builds with `sylcol::build`. What it adds
//! is numpy: read-only arrays made once per object (`arrays`), and batches of
//! queries answered on every core with the GIL released (`batch`).
//!
//! | module | Python |
//! |---|---|
//! | `archive` | `open_archive`, `Archive`, `Entry`, `load` |
//! | `whole` | `Archive.info()`, `Archive.verify()` |
//! | `mcol` | `Mcol` |
//! | `library` | `CollisionSet`, `Mesh` |
//! | `regn` | `Regn` |
//! | `table` | `StringTable` (IDXD / IXUD) |
//! | `collider` | `Collider` (`ray`, `segment`, `inside`, `closest`, `sphere`) |
//! | `build` | `build_mcol`, `build_collisionset` |
//! | `editing` | `hull_faults`, `weld`, `map_cells`, `cell_at`, `map_failures`, `write_archive` |
//! | `errors` | exceptions of `sylcol._errors` |

#![forbid(unsafe_code)]

mod archive;
mod arrays;
mod batch;
mod build;
mod collider;
mod editing;
mod errors;
mod library;
mod mcol;
mod prefix;
mod regn;
mod reports;
mod table;
mod whole;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Opens an IPFB archive (``MiscBin.pak`` with its ``.p00`` ...).
///
/// ``names``: more entry names than the built-in ones and those of a
/// ``names.txt`` beside the archive — a path to a file with one name a
/// line, or an iterable of names (``pak+inner`` or bare).
/// Returns an ``Archive``: a sequence of ``Entry`` in index order, also
/// indexable by name (``archive["CollisionSet_S01.bin"]``).
#[pyfunction]
#[pyo3(signature = (path, names = None))]
fn open_archive(
    py: Python<'_>,
    path: std::path::PathBuf,
    names: Option<&Bound<'_, PyAny>>,
) -> PyResult<archive::PyArchive> {
    archive::open(py, path.to_string_lossy().into_owned(), names)
}

/// Loads what ``source`` names, as ``sylcol`` on the command line reads
/// a FILE: one object (an ``Mcol``, a ``CollisionSet``, a ``Regn`` or a
/// ``StringTable``), or for a whole ``.pak`` its ``Archive``, its entries
/// named as ``sylcol info`` names them.
///
/// ``source`` is a path, ``"ARCHIVE.pak+ENTRY"`` (the game's notation:
/// ``"MiscBin.pak+CollisionSet_S01.bin"``, ``"MiscBin.pak+$DC4B0896"``),
/// a whole archive, or the object's bytes. ``path`` overrides the name
/// reports and errors give one object (default: the path,
/// ``ARCHIVE.pak+ENTRY.MAGIC``, ``<bytes>``). ``names``: entry names
/// beside the built-in ones and a ``names.txt`` beside the archive, as
/// for ``open_archive``.
#[pyfunction]
#[pyo3(signature = (source, path = None, names = None))]
fn load(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    path: Option<String>,
    names: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    archive::load(py, source, path, names)
}

/// Builds a valid MCOL map hull from a closed mesh and returns its bytes.
///
/// ``vertices`` (N x 3), ``triangles`` (M x 3 vertex indices); at most
/// 65 535 of each. ``bbox`` = (min, max) of the grid box (default: the
/// mesh bounds rounded out to whole cells), ``cell`` the cell size
/// (default: the builder's round rule). Raises BuildError; a mesh that
/// is not a closed, consistently oriented hull is refused (kind ``hull``,
/// the CLI's message) unless ``allow_open=True`` (``sylcol build mcol
/// --allow-open``), which builds it with a UserWarning.
#[pyfunction]
#[pyo3(signature = (vertices, triangles, bbox = None, cell = None, *, allow_open = false))]
fn build_mcol(
    py: Python<'_>,
    vertices: &Bound<'_, PyAny>,
    triangles: &Bound<'_, PyAny>,
    bbox: Option<&Bound<'_, PyAny>>,
    cell: Option<f32>,
    allow_open: bool,
) -> PyResult<Py<PyBytes>> {
    build::mcol_bytes(py, vertices, triangles, bbox, cell, allow_open)
}

/// Builds a CollisionSet library from ``{name: (vertices, triangles)}``
/// (records in the dict's order) and returns its bytes. ``endian`` is
/// ``"big"`` (the game's) or ``"little"``. Raises BuildError; as
/// ``sylcol build collisionset``, parts may be open but a degenerate or
/// turned-over part is refused (kind ``hull``) unless ``allow_open=True``.
#[pyfunction]
#[pyo3(signature = (meshes, endian = "big", *, allow_open = false))]
fn build_collisionset(
    py: Python<'_>,
    meshes: &Bound<'_, PyAny>,
    endian: &str,
    allow_open: bool,
) -> PyResult<Py<PyBytes>> {
    build::collisionset_bytes(py, meshes, endian, allow_open)
}

/// The MakeEntryID hash of an archive entry name (``files.tbl`` ->
/// 0x83421153).
#[pyfunction]
fn entry_hash(name: &str) -> u32 {
    sylcol_format::ipfb::names::inner_hash(name)
}

#[pymodule]
fn _sylcol(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open_archive, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(build_mcol, m)?)?;
    m.add_function(wrap_pyfunction!(build_collisionset, m)?)?;
    m.add_function(wrap_pyfunction!(entry_hash, m)?)?;
    m.add_class::<archive::PyArchive>()?;
    m.add_class::<archive::Entry>()?;
    m.add_class::<mcol::Mcol>()?;
    m.add_class::<library::CollisionSet>()?;
    m.add_class::<library::Mesh>()?;
    m.add_class::<regn::Regn>()?;
    m.add_class::<table::StringTable>()?;
    m.add_class::<collider::Collider>()?;
    editing::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
