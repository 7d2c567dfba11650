//! `StringTable`: a decoded IDXD / IXUD string table — its records, pairs
//! and the strings of its pool.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sylcol::report::idxd::StringTableInfo;
use sylcol::report::info::Info;
use sylcol_format::idxd::{self, Flavour, Pool};

use crate::arrays::{Field, structured};
use crate::errors::to_py;
use crate::reports::{json_to_py, verify_bytes};

/// A decoded IDXD (UTF-8) or IXUD (UTF-16BE) string table (see
/// docs/formats/idxd.md). Every word and byte is kept: ``to_bytes()`` is
/// the input.
///
/// ``records`` (hash, string, p1, p2) and ``pairs`` (hash, first, second)
/// are numpy structured arrays of uint32, the words as stored (a string
/// offset counts pool units; 0xFFFFFFFF means no string). ``strings`` maps
/// each pool string's offset to its text, in pool order, so
/// ``t.strings[t.records["string"][i]]`` is record i's string.
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct StringTable {
    path: String,
    bytes: Vec<u8>,
    table: idxd::StringTable,
}

const RECORD_FIELDS: &[Field] = &[
    ("hash", "<u4", 0),
    ("string", "<u4", 4),
    ("p1", "<u4", 8),
    ("p2", "<u4", 12),
];
const PAIR_FIELDS: &[Field] = &[
    ("hash", "<u4", 0),
    ("first", "<u4", 4),
    ("second", "<u4", 8),
];

impl StringTable {
    /// A decoded table and the bytes it came from.
    pub fn new(path: String, bytes: Vec<u8>, table: idxd::StringTable) -> Self {
        StringTable { path, bytes, table }
    }

    fn pool(&self) -> Pool<'_> {
        self.table.pool()
    }
}

/// The little-endian bytes of rows of u32 words (a structured array's data).
fn words_le(rows: impl Iterator<Item = Vec<u32>>) -> Vec<u8> {
    rows.flatten().flat_map(u32::to_le_bytes).collect()
}

#[pymethods]
impl StringTable {
    /// The input as named (a file, ``ARCHIVE.pak+ENTRY``, or ``<bytes>``).
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// ``"IDXD"`` (UTF-8, offsets in bytes) or ``"IXUD"`` (UTF-16BE,
    /// offsets in 2-byte units).
    #[getter]
    fn format(&self) -> &'static str {
        self.table.flavour.name()
    }

    /// Bytes per string-offset unit: 1 (IDXD) or 2 (IXUD).
    #[getter]
    fn unit(&self) -> usize {
        self.table.flavour.unit()
    }

    /// How the pool size word counts: ``"bytes"`` or ``"units"`` (an open
    /// question for IXUD, answered per file).
    #[getter]
    fn pool_size_unit(&self) -> &'static str {
        self.table.pool_size_unit.as_str()
    }

    /// The records of the first kind: structured uint32 fields ``hash``,
    /// ``string``, ``p1``, ``p2`` (p1, p2 open), in file order.
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = (self.table.records.iter()).map(|r| vec![r.hash, r.string, r.p1, r.p2]);
        structured(py, RECORD_FIELDS, 16, words_le(rows))
    }

    /// The records of the second kind: structured uint32 fields ``hash``,
    /// ``first``, ``second``, in file order.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = (self.table.pairs.iter()).map(|p| vec![p.hash, p.first, p.second]);
        structured(py, PAIR_FIELDS, 12, words_le(rows))
    }

    /// The pool's strings: a dict offset (in units) -> text, in pool order
    /// (invalid sequences replaced by U+FFFD).
    #[getter]
    fn strings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pool = self.pool();
        let d = PyDict::new(py);
        for (i, s) in pool.strings.iter().enumerate() {
            d.set_item(s.offset, pool.text(i))?;
        }
        Ok(d)
    }

    /// The text a string offset addresses: None for 0xFFFFFFFF or an
    /// offset that starts no string of the pool.
    fn text(&self, offset: u32) -> Option<String> {
        self.pool().text_at(offset)
    }

    /// Each record's string (None where it has none), in record order.
    #[getter]
    fn texts(&self) -> Vec<Option<String>> {
        let pool = self.pool();
        (self.table.records.iter())
            .map(|r| pool.text_at(r.string))
            .collect()
    }

    /// The pool's bytes, as stored.
    #[getter]
    fn pool_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.table.pool)
    }

    /// File offset of the pool's first byte.
    #[getter]
    fn pool_offset(&self) -> u64 {
        self.table.pool_offset()
    }

    /// Bytes after the pool (empty in a table that passes ``verify``).
    #[getter]
    fn trailer<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.table.trailer)
    }

    /// Number of records of the first kind.
    fn __len__(&self) -> usize {
        self.table.records.len()
    }

    /// The text form ``sylcol export T -o T.txt`` writes (and ``sylcol
    /// build idxd`` reads back).
    fn to_text(&self) -> String {
        idxd::text::to_text(&self.table)
    }

    /// The table as ``sylcol info --json`` lists it (its ``objects[0]``,
    /// less ``shares_content_with``), as a dict.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = StringTableInfo::of(&self.path, self.bytes.len(), &self.table);
        let info = match self.table.flavour {
            Flavour::Idxd => Info::Idxd(info),
            Flavour::Ixud => Info::Ixud(info),
        };
        json_to_py(py, &info)
    }

    /// This table's verify report, a flat dict as ``info()`` is: the
    /// entry of ``objects`` that ``sylcol verify --json`` prints for it
    /// (``format``, ``path``, ``ok``, ``seed``, ``checks``, the figures).
    /// ``seed`` seeds the randomised control (the CLI's ``--seed``).
    #[pyo3(
        signature = (seed = sylcol::verify::DEFAULT_SEED),
        text_signature = "($self, seed=0x5EED2026)"
    )]
    fn verify(&self, py: Python<'_>, seed: u64) -> PyResult<Py<PyAny>> {
        verify_bytes(py, &self.path, &self.bytes, seed, None)
    }

    /// The table encoded again: byte-identical to what was read.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| idxd::encode(&self.table))
            .map_err(|e| to_py(&e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        format!(
            "<sylcol.StringTable {} {}: {} records, {} pairs, {} strings>",
            self.table.flavour.name(),
            self.path,
            self.table.records.len(),
            self.table.pairs.len(),
            self.pool().strings.len()
        )
    }
}
