//! `Mcol`: a decoded map hull, its arrays, reports and queries.

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sylcol::report::info::{Info, mcol_info};
use sylcol_format::chunk::Chunk;
use sylcol_format::mcol::{self, CellLink};

use crate::arrays::{Cached, Field, frozen, indices_u32, structured, triangles_u32};
use sylcol::source::spec::Target;
use sylcol::source::{Accel, Grid};

use crate::collider::{AccelChoice, Collider, GridChoice};
use crate::errors::to_py;
use crate::reports::{json_to_py, verify_bytes};

/// A decoded MCOL map hull (see docs/formats/mcol.md).
///
/// Arrays are read-only: ``vertices`` (N x 3 float32) and ``spheres``
/// (M x 4 float32: centre, radius of triangle i's bounding sphere) are
/// copied once and cached (every access returns the same array);
/// ``triangles`` (M x 3) and
/// ``lists`` (one array of triangle indices per list record B) are
/// uint32, the package's one index dtype, widened from the file's 16 bits.
/// ``cells`` and ``records`` are numpy structured arrays of the cell
/// array A and the list records B, field for field.
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct Mcol {
    path: String,
    bytes: Vec<u8>,
    pub(crate) mcol: mcol::Mcol,
    /// `vertices` and `spheres` as numpy arrays, made on first access.
    vertices_array: Cached<f32>,
    spheres_array: Cached<f32>,
}

impl Mcol {
    /// A decoded map and the bytes it came from.
    pub fn new(path: String, bytes: Vec<u8>, mcol: mcol::Mcol) -> Self {
        Mcol {
            path,
            bytes,
            mcol,
            vertices_array: Cached::new(),
            spheres_array: Cached::new(),
        }
    }

    /// The stored word of a cell's link (a B record's offset - 0x10 when
    /// relocated, the raw word otherwise).
    fn link_word(&self, link: CellLink) -> u32 {
        match (link, &self.mcol.layout) {
            (CellLink::Raw(w), _) => w,
            (CellLink::Record(i), Some(l)) => l.records[i as usize] - mcol::POINTER_BASE,
            (CellLink::Record(_), None) => 0,
        }
    }
}

const CELL_FIELDS: &[Field] = &[
    ("index", "(4,)u1", 0),
    ("count", "<u4", 4),
    ("record", "<i4", 8),
    ("link", "<u4", 12),
    ("word3", "<u4", 16),
    ("sphere", "(4,)<f4", 20),
];
const CELL_ITEM: usize = 36;

const RECORD_FIELDS: &[Field] = &[
    ("count", "<u4", 0),
    ("list", "<u4", 4),
    ("tail", "(24,)u1", 8),
];
const RECORD_ITEM: usize = 32;

#[pymethods]
impl Mcol {
    /// The input as named (a file, ``ARCHIVE.pak+ENTRY``, or ``<bytes>``).
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Vertex positions, N x 3 float32 (read-only; copied on first
    /// access, then the same array every time).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        frozen(py, &self.vertices_array, &self.mcol.vertices)
    }

    /// Triangles as vertex indices, M x 3 uint32 (read-only; the file
    /// stores 16 bits, widened to the package's one index dtype).
    #[getter]
    fn triangles<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        triangles_u32(slf.py(), &slf.get().mcol.triangles)
    }

    /// Per-triangle bounding spheres, M x 4 float32 (centre xyz, radius).
    #[getter]
    fn spheres<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        frozen(py, &self.spheres_array, &self.mcol.spheres)
    }

    /// The grid box: a 2 x 3 float32 array, rows min and max.
    #[getter]
    fn bbox<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        crate::prefix::bbox(py, &self.mcol.header.prefix)
    }

    /// The header's extent row (max - min), float32[3].
    #[getter]
    fn extent<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, &self.mcol.header.prefix.extent)
    }

    /// The cell size per axis, float32[3].
    #[getter]
    fn cell_size<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, &self.mcol.header.prefix.cell_size)
    }

    /// Cells per axis, (nx, ny, nz).
    #[getter]
    fn grid(&self) -> (u8, u8, u8) {
        let g = self.mcol.header.grid;
        (g[0], g[1], g[2])
    }

    /// The cell array A, dense, x fastest (cell x + nx (y + ny z)): a
    /// structured array with fields ``index`` (the bytes x, y, z, 1),
    /// ``count`` (B records the cell owns), ``record`` (index of its first
    /// B record, -1 for an empty cell), ``link`` (the stored word: the B
    /// record's offset - 0x10, or an empty cell's raw word), ``word3``
    /// (open) and ``sphere`` (centre xyz, radius).
    #[getter]
    fn cells<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut data = Vec::with_capacity(self.mcol.cells.len() * CELL_ITEM);
        for c in &self.mcol.cells {
            data.extend_from_slice(&c.index);
            data.extend_from_slice(&c.count.to_le_bytes());
            let record = c.record().map_or(-1, |r| r as i32);
            data.extend_from_slice(&record.to_le_bytes());
            data.extend_from_slice(&self.link_word(c.link).to_le_bytes());
            data.extend_from_slice(&c.word3.to_le_bytes());
            for s in c.sphere {
                data.extend_from_slice(&s.to_le_bytes());
            }
        }
        structured(py, CELL_FIELDS, CELL_ITEM, data)
    }

    /// The list records B in file order: ``count``, ``list`` (the stored
    /// pointer word: the list's offset - 0x10) and ``tail`` (bytes 8-31,
    /// open).
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut data = Vec::with_capacity(self.mcol.records.len() * RECORD_ITEM);
        for (i, r) in self.mcol.records.iter().enumerate() {
            data.extend_from_slice(&(r.triangles.len() as u32).to_le_bytes());
            let list = self
                .mcol
                .layout
                .as_ref()
                .map_or(0, |l| l.lists[i] - mcol::POINTER_BASE);
            data.extend_from_slice(&list.to_le_bytes());
            data.extend_from_slice(&r.tail);
        }
        structured(py, RECORD_FIELDS, RECORD_ITEM, data)
    }

    /// Each list record's triangle indices, a read-only uint32 array per
    /// record in file order (the file's 16 bits widened). Cell c's list
    /// is ``lists[cells["record"][c]]`` when that is not -1.
    #[getter]
    fn lists<'py>(slf: &Bound<'py, Self>) -> PyResult<Vec<Bound<'py, PyArray1<u32>>>> {
        slf.get()
            .mcol
            .records
            .iter()
            .map(|r| indices_u32(slf.py(), &r.triangles))
            .collect()
    }

    /// The chunk offsets of every word the POF0 table relocates, ascending
    /// (uint32).
    #[getter]
    fn relocations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let chunk = Chunk::parse(&self.bytes).map_err(|e| to_py(&e))?;
        Ok(PyArray1::from_vec(py, chunk.slots(self.mcol.pof0_base)))
    }

    /// The POF0 slot base the reader settled on (0x10 expected, or 0).
    #[getter]
    fn pof0_base(&self) -> u32 {
        self.mcol.pof0_base
    }

    /// Every header word: counts, pointers' targets aside, the spatial
    /// prefix, the grid and the open words (``word_08``, ``word_4c``,
    /// ``words_60``, ``words_78``, ``pads`` as raw bits).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.mcol.header;
        let d = PyDict::new(py);
        d.set_item("data_size", h.data_size)?;
        crate::prefix::set_items(&d, &h.prefix)?;
        d.set_item("vertex_count", self.mcol.vertices.len())?;
        d.set_item("triangle_count", self.mcol.triangles.len())?;
        d.set_item("words_60", h.words_60.to_vec())?;
        d.set_item("grid", h.grid.map(u32::from).to_vec())?;
        d.set_item("words_78", h.words_78.to_vec())?;
        Ok(d)
    }

    /// Where each block was found (chunk offsets): ``spheres``,
    /// ``vertices``, ``triangles``, ``cells``, and per list record
    /// ``records`` and ``lists`` (uint32 arrays).
    #[getter]
    fn layout<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(l) = &self.mcol.layout else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("spheres", l.spheres)?;
        d.set_item("vertices", l.vertices)?;
        d.set_item("triangles", l.triangles)?;
        d.set_item("cells", l.cells)?;
        d.set_item("records", PyArray1::from_slice(py, &l.records))?;
        d.set_item("lists", PyArray1::from_slice(py, &l.lists))?;
        Ok(Some(d))
    }

    /// The object as ``sylcol info --json`` lists it (its ``objects[0]``,
    /// less ``shares_content_with``), as a dict.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = mcol_info(&self.path, &self.bytes, &self.mcol).map_err(|e| to_py(&e))?;
        json_to_py(py, &Info::Mcol(info))
    }

    /// This object's verify report, a flat dict as ``info()`` is: the
    /// entry of ``objects`` that ``sylcol verify --json`` prints for it
    /// (``format``, ``path``, ``ok``, ``seed``, ``checks``, the figures):
    /// every invariant of the seeds beside its control. ``seed`` seeds the
    /// randomised controls (the CLI's ``--seed``).
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
            .detach(|| mcol::encode(&self.mcol))
            .map_err(|e| to_py(&e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// A ``trimesh.Trimesh`` of the hull (vertices and faces as stored,
    /// ``process=False``). Needs trimesh installed.
    fn to_trimesh<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let vertices = slf.get().vertices(slf.py())?;
        let triangles = Self::triangles(slf)?;
        crate::library::trimesh_of(slf.py(), vertices.into_any(), triangles.into_any())
    }

    /// A collider for vectorised queries: ``grid="file"`` walks the map's
    /// own grid and lists (the game's broad phase), ``"derived"`` a grid
    /// sized for the mesh, an int that many cells along the longest axis;
    /// ``accel="bvh"`` sends rays and segments through a BVH built from
    /// the mesh (``sylcol query --accel bvh``).
    #[pyo3(
        signature = (grid = GridChoice(Grid::File), accel = AccelChoice(Accel::Grid)),
        text_signature = "($self, grid='file', accel='grid')"
    )]
    fn collider(&self, py: Python<'_>, grid: GridChoice, accel: AccelChoice) -> PyResult<Collider> {
        Collider::of(py, &self.path, Target::Map(&self.mcol), grid, accel)
    }

    /// Number of vertices.
    #[getter]
    fn vertex_count(&self) -> usize {
        self.mcol.vertices.len()
    }

    /// Number of triangles.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.mcol.triangles.len()
    }

    fn __repr__(&self) -> String {
        let [nx, ny, nz] = self.mcol.header.dims();
        format!(
            "<sylcol.Mcol {}: {} vertices, {} triangles, grid {nx}x{ny}x{nz}>",
            self.path,
            self.mcol.vertices.len(),
            self.mcol.triangles.len()
        )
    }
}
