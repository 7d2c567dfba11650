//! `CollisionSet`: the part library as a mapping name -> `Mesh`.

use numpy::PyArray2;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sylcol::report::info::{Info, collisionset_info};
use sylcol_format::collisionset;

use crate::arrays::{Cached, frozen};
use sylcol::source::spec::Target;
use sylcol::source::{Accel, Grid};

use crate::collider::{AccelChoice, Collider, GridChoice};
use crate::errors::to_py;
use crate::reports::{json_to_py, verify_bytes};

/// A decoded CollisionSet library (see docs/formats/collisionset.md): a
/// read-only mapping from record name to :class:`Mesh`, iterated in record
/// order. ``lib["rou_e101_bdy"]`` also finds the stored
/// ``rou_e101_bdy_cmesh``; a repeated name gives its first record
/// (``meshes`` lists every record).
#[pyclass(frozen, mapping, module = "sylcol._sylcol")]
pub struct CollisionSet {
    path: String,
    bytes: Vec<u8>,
    set: collisionset::CollisionSet,
    names: Vec<String>,
    offsets: Vec<u64>,
    /// Each record's arrays, made on first access (whichever `Mesh`
    /// asks: `lib[name]` makes a new one each time).
    arrays: Vec<MeshArrays>,
}

/// A record's `vertices` and `triangles` as numpy arrays.
struct MeshArrays {
    vertices: Cached<f32>,
    triangles: Cached<u32>,
}

/// One record of a :class:`CollisionSet`: a named triangle mesh.
/// ``vertices`` (N x 3 float32) and ``triangles`` (M x 3 uint32) are
/// read-only, copied once and cached by the library (every access
/// returns the same array).
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct Mesh {
    library: Py<CollisionSet>,
    index: usize,
}

impl CollisionSet {
    /// A decoded library and the bytes it came from.
    pub fn new(path: String, bytes: Vec<u8>, set: collisionset::CollisionSet) -> Self {
        let names = set.records.iter().map(|r| r.name()).collect();
        let offsets = set.offsets();
        let arrays = set
            .records
            .iter()
            .map(|_| MeshArrays {
                vertices: Cached::new(),
                triangles: Cached::new(),
            })
            .collect();
        CollisionSet {
            path,
            bytes,
            set,
            names,
            offsets,
            arrays,
        }
    }

    fn mesh(slf: &Bound<'_, Self>, index: usize) -> PyResult<Mesh> {
        Ok(Mesh {
            library: slf.clone().unbind(),
            index,
        })
    }
}

#[pymethods]
impl CollisionSet {
    /// The input as named.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// ``"big"`` or ``"little"``: the byte order the record walk found.
    #[getter]
    fn endian(&self) -> &'static str {
        self.set.endian.as_str()
    }

    /// Every record as a :class:`Mesh`, in file order.
    #[getter]
    fn meshes(slf: &Bound<'_, Self>) -> PyResult<Vec<Mesh>> {
        (0..slf.get().set.records.len())
            .map(|i| Self::mesh(slf, i))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.set.records.len()
    }

    fn __getitem__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Mesh> {
        match slf.get().set.position(name) {
            Some(i) => Self::mesh(slf, i),
            None => Err(PyKeyError::new_err(name.to_string())),
        }
    }

    fn __contains__(&self, name: &str) -> bool {
        self.set.position(name).is_some()
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let names = pyo3::types::PyList::new(py, &self.names)?;
        Ok(names.try_iter()?.into_any().unbind())
    }

    /// Record names in file order.
    fn keys(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Meshes in file order.
    fn values(slf: &Bound<'_, Self>) -> PyResult<Vec<Mesh>> {
        Self::meshes(slf)
    }

    /// (name, mesh) pairs in file order.
    fn items(slf: &Bound<'_, Self>) -> PyResult<Vec<(String, Mesh)>> {
        let names = slf.get().names.clone();
        names
            .into_iter()
            .enumerate()
            .map(|(i, n)| Ok((n, Self::mesh(slf, i)?)))
            .collect()
    }

    /// The mesh named `name`, or `default`.
    #[pyo3(signature = (name, default = None))]
    fn get(slf: &Bound<'_, Self>, name: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        match slf.get().set.position(name) {
            Some(i) => Ok(Py::new(py, Self::mesh(slf, i)?)?.into_any()),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }

    /// The library as ``sylcol info --json`` lists it (its ``objects[0]``,
    /// less ``shares_content_with``), as a dict.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = collisionset_info(&self.path, self.bytes.len(), &self.set);
        json_to_py(py, &Info::CollisionSet(info))
    }

    /// This library's verify report, a flat dict as ``info()`` is: the
    /// entry of ``objects`` that ``sylcol verify --json`` prints for it
    /// (``format``, ``path``, ``ok``, ``seed``, ``checks``, the figures).
    /// ``resource_ids``: GameResourceIDs for the name test (the CLI's
    /// ``--resource-ids``).
    #[pyo3(
        signature = (seed = sylcol::verify::DEFAULT_SEED, resource_ids = None),
        text_signature = "($self, seed=0x5EED2026, resource_ids=None)"
    )]
    fn verify(
        &self,
        py: Python<'_>,
        seed: u64,
        resource_ids: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        verify_bytes(py, &self.path, &self.bytes, seed, resource_ids.as_deref())
    }

    /// The library encoded again (in its own byte order): byte-identical
    /// to what was read.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| collisionset::encode(&self.set))
            .map_err(|e| to_py(&e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        format!(
            "<sylcol.CollisionSet {}: {} meshes, {}-endian>",
            self.path,
            self.set.records.len(),
            self.set.endian.as_str()
        )
    }
}

#[pymethods]
impl Mesh {
    /// The record's name (its name field up to the first NUL).
    #[getter]
    fn name(&self) -> String {
        self.library.get().names[self.index].clone()
    }

    /// The name field exactly as stored (name plus its padding).
    #[getter]
    fn name_field<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.record().name_field)
    }

    /// Position of the record in the library.
    #[getter]
    fn index(&self) -> usize {
        self.index
    }

    /// Byte offset of the record in the library.
    #[getter]
    fn offset(&self) -> u64 {
        self.library.get().offsets[self.index]
    }

    /// The name's family: ``rou_``, ``mob_``, ``rob_``, ``asteroid`` or
    /// ``other``.
    #[getter]
    fn family(&self) -> &'static str {
        self.record().reading().family.as_str()
    }

    /// Vertex positions, N x 3 float32 (read-only; copied on first
    /// access, then the same array every time).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let cell = &self.library.get().arrays[self.index].vertices;
        frozen(py, cell, &self.record().vertices)
    }

    /// Triangles as vertex indices, M x 3 uint32 (read-only, as
    /// ``vertices``).
    #[getter]
    fn triangles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let cell = &self.library.get().arrays[self.index].triangles;
        frozen(py, cell, &self.record().triangles)
    }

    /// A ``trimesh.Trimesh`` of the record (``process=False``).
    fn to_trimesh<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        trimesh_of(
            py,
            self.vertices(py)?.into_any(),
            self.triangles(py)?.into_any(),
        )
    }

    /// A collider for vectorised queries over this mesh: ``"derived"`` (a
    /// grid sized for it) or an int (cells along the longest axis); a
    /// library mesh has no file grid; ``accel="bvh"`` sends rays and
    /// segments through a BVH built from the mesh.
    #[pyo3(
        signature = (grid = GridChoice(Grid::Derived), accel = AccelChoice(Accel::Grid)),
        text_signature = "($self, grid='derived', accel='grid')"
    )]
    fn collider(&self, py: Python<'_>, grid: GridChoice, accel: AccelChoice) -> PyResult<Collider> {
        let name = format!("{}+{}", self.library.get().path, self.name());
        Collider::of(py, &name, Target::Part(self.record()), grid, accel)
    }

    /// Number of vertices.
    #[getter]
    fn vertex_count(&self) -> usize {
        self.record().vertices.len()
    }

    /// Number of triangles.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.record().triangles.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<sylcol.Mesh {}: {} vertices, {} triangles>",
            self.name(),
            self.vertex_count(),
            self.triangle_count()
        )
    }
}

impl Mesh {
    fn record(&self) -> &collisionset::Record {
        &self.library.get().set.records[self.index]
    }
}

/// `trimesh.Trimesh(vertices, faces, process=False)`, or an ImportError
/// that says what to install.
pub fn trimesh_of<'py>(
    py: Python<'py>,
    vertices: Bound<'py, PyAny>,
    faces: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let trimesh = py.import("trimesh").map_err(|_| {
        pyo3::exceptions::PyImportError::new_err("to_trimesh needs trimesh: pip install trimesh")
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("vertices", vertices)?;
    kwargs.set_item("faces", faces)?;
    kwargs.set_item("process", false)?;
    trimesh.getattr("Trimesh")?.call((), Some(&kwargs))
}
