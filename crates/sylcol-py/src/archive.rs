//! `open_archive` and `load`: IPFB archives, their entries, and any
//! object named by a path, an `ARCHIVE.pak+INNER` entry, or bytes.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use sylcol::report::error::{ObjectError, ReadError, Unsupported};
use sylcol::report::name_sources::NameSources;
use sylcol::report::pak::PakEntry;
use sylcol::source::{NameList, Opener, SourceError, from_bytes, is_archive};
use sylcol_format::ipfb::names::inner_hash;
use sylcol_format::ipfb::{Archive, IndexEntry, split_archive_path};
use sylcol_format::{Object, decode_any};

use crate::errors::to_py;
use crate::library::CollisionSet;
use crate::mcol::Mcol;
use crate::regn::Regn;
use crate::reports::json_to_py;
use crate::table::StringTable;

/// An opened IPFB archive (`.pak` index + `.pNN` parts): a sequence of
/// :class:`Entry` in index order, also indexable by entry name.
#[pyclass(frozen, name = "Archive", module = "sylcol._sylcol")]
pub struct PyArchive {
    path: String,
    archive: Arc<Archive>,
    entries: Vec<Py<Entry>>,
    names: Option<NameSources>,
}

/// One archive entry: where it is stored and what it holds.
///
/// ``hash`` (MakeEntryID of its name), ``name`` (None when the name list
/// does not know the hash), ``display`` (the name, or ``$HASH.MAGIC``),
/// ``part`` / ``offset`` / ``stored_size`` (where its bytes lie),
/// ``size`` (inflated length), ``compressed``, ``magic`` (first four bytes
/// when printable) and ``error`` (why it cannot be read, else None).
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct Entry {
    pak: String,
    archive: Arc<Archive>,
    entry: IndexEntry,
    row: PakEntry,
}

#[pymethods]
impl PyArchive {
    /// The index file as given.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Problems of the index that leave its entries readable (a
    /// truncated table, unsorted or repeated hashes), as messages.
    #[getter]
    fn problems(&self) -> Vec<String> {
        sylcol::report::pak::index_problems(&self.path, &self.archive)
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    /// Where the entries' names came from, as ``pak list --json`` says
    /// it in ``names``: ``{"archive", "entries", "unnamed", "sources":
    /// [{"origin", "path", "entries"}]}``, origin ``built_in``,
    /// ``given`` (``names=``), ``beside`` (the ``names.txt`` beside the
    /// archive) or ``cache`` (where ``sylcol names harvest`` keeps names
    /// it cannot write beside it).
    #[getter]
    fn names(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, &self.names)
    }

    fn __len__(&self) -> usize {
        self.entries.len()
    }

    /// ``archive[i]``, ``archive["CollisionSet_S01.bin"]`` or
    /// ``archive["$2CF7EB47"]``: one entry (KeyError / IndexError when
    /// there is none).
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<Entry>> {
        if let Ok(i) = key.extract::<isize>() {
            let n = self.entries.len() as isize;
            let at = if i < 0 { i + n } else { i };
            return match usize::try_from(at).ok().and_then(|a| self.entries.get(a)) {
                Some(e) => Ok(e.clone_ref(py)),
                None => Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "entry {i} of {n}"
                ))),
            };
        }
        let name: String = key.extract()?;
        let hash = inner_hash(&name);
        self.entries
            .iter()
            .find(|e| e.get().entry.hash == hash)
            .map(|e| e.clone_ref(py))
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(name))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list: Vec<Py<Entry>> = self.entries.iter().map(|e| e.clone_ref(py)).collect();
        Ok(pyo3::types::PyList::new(py, list)?
            .try_iter()?
            .into_any()
            .unbind())
    }

    fn __repr__(&self) -> String {
        format!(
            "<sylcol.Archive {} ({} entries)>",
            self.path,
            self.entries.len()
        )
    }
}

#[pymethods]
impl Entry {
    /// MakeEntryID of the entry's name.
    #[getter]
    fn hash(&self) -> u32 {
        self.entry.hash
    }

    /// The entry's name, when the archive's name list knows its hash.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.row.name.as_deref()
    }

    /// The name, or ``$HASH.MAGIC`` (what ``pak list`` shows).
    #[getter]
    fn display(&self) -> &str {
        &self.row.entry
    }

    /// The part file number (``.p00`` is 0).
    #[getter]
    fn part(&self) -> u8 {
        self.entry.part
    }

    /// Byte offset in the part file.
    #[getter]
    fn offset(&self) -> u32 {
        self.entry.offset
    }

    /// Bytes stored in the part (the compressed size for Z1).
    #[getter]
    fn stored_size(&self) -> u32 {
        self.entry.stored_size
    }

    /// The inflated length (None when the entry is unreadable).
    #[getter]
    fn size(&self) -> Option<u64> {
        self.row.bytes
    }

    /// Whether the entry is Z1-compressed (None when unreadable).
    #[getter]
    fn compressed(&self) -> Option<bool> {
        self.row.compressed
    }

    /// The payload's first four bytes when printable (``MCOL``).
    #[getter]
    fn magic(&self) -> Option<&str> {
        self.row.magic.as_deref()
    }

    /// Why the entry cannot be read, or None.
    #[getter]
    fn error(&self) -> Option<&str> {
        self.row.error.as_ref().map(|e| e.message.as_str())
    }

    /// ``ARCHIVE.pak+ENTRY``: how sylcol names this entry.
    #[getter]
    fn path(&self) -> String {
        format!("{}+{}", self.pak, self.row.entry)
    }

    /// The entry's bytes, inflated and checked (declared size, both
    /// Adler-32 values). Raises DecodeError on a damaged entry, and
    /// MemoryLimitError when its declared size cannot be had in memory.
    fn read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| read_entry(&self.archive, &self.entry))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The entry decoded: an :class:`Mcol`, a :class:`CollisionSet`, a
    /// :class:`Regn` or a :class:`StringTable`. An entry that declares more
    /// bytes than sylcol holds of an object raises MemoryLimitError before
    /// it is inflated.
    fn decode(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let path = self.path();
        let bytes = py.detach(|| read_object(&self.archive, &self.entry, &self.pak))?;
        decode_object(py, path, bytes)
    }

    fn __repr__(&self) -> String {
        format!(
            "<sylcol.Entry {} {:08X} {} bytes>",
            self.row.entry,
            self.entry.hash,
            self.row.bytes.map_or("?".into(), |b| b.to_string())
        )
    }
}

fn read_entry(archive: &Archive, e: &IndexEntry) -> PyResult<Vec<u8>> {
    let info = archive.probe(e).map_err(|err| to_py(&err))?;
    archive.read_entry(&info).map_err(|err| to_py(&err))
}

/// Entry `e` of archive `pak`, read whole only when sylcol would decode
/// it (`sylcol_format::budget`: its format, its size bound, the budget).
fn read_object(archive: &Archive, e: &IndexEntry, pak: &str) -> PyResult<Vec<u8>> {
    let info = archive.probe(e).map_err(|err| to_py(&err))?;
    match archive
        .read_object(&info, false)
        .map_err(|err| to_py(&err))?
    {
        Ok(bytes) => Ok(bytes),
        Err(error) => Err(to_py(&ObjectError {
            path: format!("{pak}+{}", info.display),
            error,
        })),
    }
}

/// The names `names` gives (a file of names, one a line, or an iterable
/// of names; `pak+inner` or bare) beside the built-in ones, a
/// `names.txt` beside the archive and its cache entry.
pub(crate) fn name_list(names: Option<&Bound<'_, PyAny>>) -> PyResult<NameList> {
    let Some(names) = names else {
        return Ok(NameList::new());
    };
    if names.is_instance_of::<PyString>() || names.hasattr("__fspath__")? {
        return Ok(NameList::with_file(Some(names.extract()?)));
    }
    let mut lines = Vec::new();
    for name in names.try_iter()? {
        lines.push(name?.extract::<String>()?);
    }
    Ok(NameList::with_names(lines))
}

/// The exception for a FILE argument that gave no object: the error the
/// library's front door wraps, raised as the CLI reports it.
pub(crate) fn source_error(e: SourceError) -> PyErr {
    match e {
        SourceError::Read(e) => to_py(&e),
        SourceError::Object(e) => to_py(&e),
        SourceError::NotFound(e) => to_py(&e),
        SourceError::Usage(e) => to_py(&e),
        SourceError::Unsupported(e) => to_py(&e),
        SourceError::Open(e) | SourceError::Archive { error: e, .. } => to_py(&*e),
        SourceError::Names { path, error } | SourceError::KeepNames { path, error } => {
            to_py(&ReadError {
                path: path.display().to_string(),
                error,
            })
        }
    }
}

/// Opens `path` with the built-in names, `names` ([`name_list`]), a
/// `names.txt` beside it and its cache entry: the library's front door, as `sylcol info`
/// opens it.
pub fn open(py: Python<'_>, path: String, names: Option<&Bound<'_, PyAny>>) -> PyResult<PyArchive> {
    let opener = Opener::new(name_list(names)?);
    let archive = py.detach(|| opener.archive(&path)).map_err(source_error)?;
    let archive = Arc::new(archive);
    let rows: Vec<(IndexEntry, PakEntry)> = py.detach(|| {
        archive
            .entries()
            .iter()
            .map(|e| (*e, PakEntry::of(&archive, e, false)))
            .collect()
    });
    let entries = rows
        .into_iter()
        .map(|(entry, row)| {
            Py::new(
                py,
                Entry {
                    pak: path.clone(),
                    archive: archive.clone(),
                    entry,
                    row,
                },
            )
        })
        .collect::<PyResult<_>>()?;
    Ok(PyArchive {
        path,
        archive,
        entries,
        names: opener.names_used().pop(),
    })
}

/// What `source` names, through the library's front door: bytes, a path
/// or `ARCHIVE.pak+INNER` give one object (held only when sylcol would
/// hold it, `sylcol_format::budget`, in memory reserved so that running
/// out raises MemoryLimitError); a whole archive gives its
/// :class:`Archive`, named as `sylcol info` names its entries.
pub fn load(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    path: Option<String>,
    names: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return decode_borrowed(py, path, b.as_bytes());
    }
    if source.is_instance_of::<PyByteArray>() || source.is_instance_of::<PyMemoryView>() {
        let b = py.import("builtins")?.getattr("bytes")?.call1((source,))?;
        return decode_borrowed(py, path, b.cast::<PyBytes>()?.as_bytes());
    }
    let given: std::path::PathBuf = source.extract()?;
    let given = given.to_string_lossy().into_owned();
    if split_archive_path(&given).is_none() && is_archive(&given) {
        return Ok(Py::new(py, open(py, given, names)?)?.into_any());
    }
    let opener = Opener::new(name_list(names)?);
    let input = py
        .detach(|| opener.object(&given)?.whole().map_err(SourceError::from))
        .map_err(source_error)?;
    decode_object(py, path.unwrap_or(input.name), owned(input.bytes))
}

/// Decodes bytes Python holds, copied only once admitted.
fn decode_borrowed(py: Python<'_>, path: Option<String>, data: &[u8]) -> PyResult<Py<PyAny>> {
    let path = path.unwrap_or_else(|| "<bytes>".into());
    let input = from_bytes(&path, data).map_err(source_error)?;
    decode_object(py, input.name, owned(input.bytes))
}

/// The bytes of an object read for Python alone (copied only if shared).
fn owned(bytes: Arc<Vec<u8>>) -> Vec<u8> {
    Arc::try_unwrap(bytes).unwrap_or_else(|shared| (*shared).clone())
}

/// Decodes `bytes` (named `path` in reports and errors) into an `Mcol`, a
/// `CollisionSet`, a `Regn` or a `StringTable`.
pub fn decode_object(py: Python<'_>, path: String, bytes: Vec<u8>) -> PyResult<Py<PyAny>> {
    let object = py.detach(|| decode_any(&bytes)).map_err(|error| {
        to_py(&ObjectError {
            path: path.clone(),
            error,
        })
    })?;
    Ok(match object {
        Object::Mcol(m) => Py::new(py, Mcol::new(path, bytes, *m))?.into_any(),
        Object::CollisionSet(set) => Py::new(py, CollisionSet::new(path, bytes, set))?.into_any(),
        Object::Regn(r) => Py::new(py, Regn::new(path, bytes, *r))?.into_any(),
        Object::StringTable(t) => Py::new(py, StringTable::new(path, bytes, t))?.into_any(),
        other => {
            return Err(to_py(&Unsupported {
                path,
                detail: format!("{} objects have no Python class yet", other.kind()),
            }));
        }
    })
}
