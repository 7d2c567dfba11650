//! `Regn`: a decoded REGN object — its header, six sections and the
//! 12-byte vertex section — as far as the write-ups know it.

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sylcol::report::info::Info;
use sylcol::report::regn::RegnInfo;
use sylcol_format::regn;

use crate::arrays::{Cached, frozen};
use crate::errors::to_py;
use crate::reports::{json_to_py, verify_bytes};

/// A decoded REGN object (see docs/formats/regn.md). Only what the
/// write-ups state is read; open words are raw, and every byte is kept
/// (``to_bytes()`` is the input).
///
/// ``sections`` are the six (pointer, count) pairs of the header with the
/// byte span and stride sylcol derives; ``vertices`` the one section of
/// stride 12 read as f32[3] (None when no single section has stride 12).
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct Regn {
    path: String,
    bytes: Vec<u8>,
    regn: regn::Regn,
    /// The vertex section's points, decoded once (big-endian in the file).
    vertices: Option<Vec<[f32; 3]>>,
    /// `vertices` as a numpy array, made on first access.
    vertices_array: Cached<f32>,
}

impl Regn {
    /// A decoded REGN and the bytes it came from.
    pub fn new(path: String, bytes: Vec<u8>, regn: regn::Regn) -> Self {
        let vertices = regn.vertices();
        Regn {
            path,
            bytes,
            regn,
            vertices,
            vertices_array: Cached::new(),
        }
    }

    fn section_tuple<'py>(py: Python<'py>, s: &regn::Section) -> PyResult<Bound<'py, PyAny>> {
        let args = (s.index, s.pointer, s.count, s.target, s.span, s.stride);
        py.import("sylcol._results")?
            .getattr("Section")?
            .call1(args)
    }
}

#[pymethods]
impl Regn {
    /// The input as named (a file, ``ARCHIVE.pak+ENTRY``, or ``<bytes>``).
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Every header field: ``data_size``, ``word_08`` (two open words),
    /// ``bbox_min``, ``bbox_max``, ``extent``, ``pads`` (raw bits of the
    /// three pad words), ``cell_size``, ``word_4c`` (open), ``grid_bytes``
    /// (the 16 bytes at 0x50), ``counts`` and ``pointers`` (six each, as
    /// stored) and ``word_6c`` (open).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.regn.header;
        let d = PyDict::new(py);
        d.set_item("data_size", self.regn.data_size())?;
        crate::prefix::set_items(&d, &h.prefix)?;
        d.set_item("grid_bytes", PyBytes::new(py, &h.grid))?;
        d.set_item("counts", h.counts.to_vec())?;
        d.set_item("word_6c", h.word_6c)?;
        d.set_item("pointers", h.pointers.to_vec())?;
        Ok(d)
    }

    /// The grid box: a 2 x 3 float32 array, rows min and max.
    #[getter]
    fn bbox<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        crate::prefix::bbox(py, &self.regn.header.prefix)
    }

    /// The header's extent row (max - min), float32[3].
    #[getter]
    fn extent<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, &self.regn.header.prefix.extent)
    }

    /// The cell size per axis, float32[3].
    #[getter]
    fn cell_size<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, &self.regn.header.prefix.cell_size)
    }

    /// Cells per axis as read at 0x50, or None when no reading of those
    /// bytes (u32[3], u16[3], u8[3]) gives ceil(extent / cell).
    #[getter]
    fn grid(&self) -> Option<(u64, u64, u64)> {
        regn::grid_reading(&self.regn).map(|g| (g.dims[0], g.dims[1], g.dims[2]))
    }

    /// How 0x50 encodes the grid (``"u32[3]"``, ``"u16[3]"``, ``"u8[3]"``),
    /// or None.
    #[getter]
    fn grid_encoding(&self) -> Option<&'static str> {
        regn::grid_reading(&self.regn).map(|g| g.encoding.as_str())
    }

    /// The six u16 counts at 0x60.
    #[getter]
    fn counts(&self) -> Vec<u16> {
        self.regn.header.counts.to_vec()
    }

    /// The six section pointers at 0x70, as stored (offsets from 0x10).
    #[getter]
    fn pointers(&self) -> Vec<u32> {
        self.regn.header.pointers.to_vec()
    }

    /// The six sections as ``Section(index, pointer, count, offset, span,
    /// stride)``: ``offset`` the chunk offset of the first byte (pointer +
    /// 0x10; None when POF0 does not relocate the pointer), ``span`` the
    /// bytes to the next section or the data end, ``stride`` span / count
    /// when it divides (else None).
    #[getter]
    fn sections<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        (self.regn.sections().iter())
            .map(|s| Self::section_tuple(py, s))
            .collect()
    }

    /// The bytes of section ``index`` (its whole span), or None when it
    /// has no target.
    fn section_bytes<'py>(
        &self,
        py: Python<'py>,
        index: usize,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let sections = self.regn.sections();
        let s = sections.get(index).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!("section {index} of 6"))
        })?;
        Ok(self.regn.section_bytes(s).map(|b| PyBytes::new(py, b)))
    }

    /// Index of the vertex section (the one section of stride 12), or None.
    #[getter]
    fn vertex_section(&self) -> Option<usize> {
        self.regn.vertex_section().map(|s| s.index)
    }

    /// The vertex section's elements as N x 3 float32 (read-only; copied
    /// on first access, then the same array every time), or None when
    /// there is no vertex section.
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<f32>>>> {
        self.vertices
            .as_ref()
            .map(|v| frozen(py, &self.vertices_array, v))
            .transpose()
    }

    /// The chunk offsets of every word the POF0 table relocates, ascending
    /// (uint32).
    #[getter]
    fn relocations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, &self.regn.slots)
    }

    /// The POF0 slot base the reader settled on (0x10 expected, or 0).
    #[getter]
    fn pof0_base(&self) -> u32 {
        self.regn.pof0_base
    }

    /// The object as ``sylcol info --json`` lists it (its ``objects[0]``,
    /// less ``shares_content_with``), as a dict.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = RegnInfo::of(&self.path, self.bytes.len(), &self.regn);
        json_to_py(py, &Info::Regn(info))
    }

    /// This object's verify report, a flat dict as ``info()`` is: the
    /// entry of ``objects`` that ``sylcol verify --json`` prints for it
    /// (``format``, ``path``, ``ok``, ``seed``, ``checks``, the figures).
    /// ``seed`` seeds the randomised controls (the CLI's ``--seed``).
    #[pyo3(
        signature = (seed = sylcol::verify::DEFAULT_SEED),
        text_signature = "($self, seed=0x5EED2026)"
    )]
    fn verify(&self, py: Python<'_>, seed: u64) -> PyResult<Py<PyAny>> {
        verify_bytes(py, &self.path, &self.bytes, seed, None)
    }

    /// The object encoded again: byte-identical to what was read.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| regn::encode(&self.regn))
            .map_err(|e| to_py(&e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        let grid = self
            .grid()
            .map_or("?".into(), |(x, y, z)| format!("{x}x{y}x{z}"));
        format!(
            "<sylcol.Regn {}: counts {:?}, grid {grid}, {} vertices>",
            self.path,
            self.regn.header.counts,
            self.vertices.as_ref().map_or(0, Vec::len)
        )
    }
}
