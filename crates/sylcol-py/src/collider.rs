//! `Collider`: vectorised collision queries over a map or mesh.
//!
//! Every method takes numpy arrays (any real dtype, converted to float32;
//! a `(3,)` row is broadcast against the others), releases the GIL, and
//! answers each row exactly as `sylcol query` answers it, on every core
//! for large batches (the library's batch API, fed block by block by
//! [`crate::batch::in_blocks`]). Misses are NaN in float arrays
//! and -1 in `triangle`.

use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use sylcol::query::{self, BatchError, GridSource, Ray, RayHit};
use sylcol::report::error::{ErrorKind, ErrorReport};
use sylcol::report::query::{grid_fit, inside_refusal};
use sylcol::source::spec::Target;
use sylcol::source::{Accel, ColliderSpec, Grid};

use crate::arrays::{Rows, batch_rows, rows_of, scalars};
use crate::batch::{self, in_blocks};
use crate::errors::{raise, to_py};
use crate::reports::json_to_py;

/// `grid=`: the library's [`Grid`], read by its one parser (`"file"`,
/// `"derived"`, or a cell count given as an int or a string), with its
/// error text for a value it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridChoice(pub Grid);

/// `accel=`: the library's [`Accel`] (`"grid"` or `"bvh"`), read by its
/// one parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccelChoice(pub Accel);

impl<'a, 'py> FromPyObject<'a, 'py> for AccelChoice {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let Ok(text) = obj.cast::<PyString>() else {
            return Err(PyTypeError::new_err(format!(
                "accel: expected \"grid\" or \"bvh\", got {}",
                obj.get_type().name()?
            )));
        };
        let accel = text.to_cow()?.parse::<Accel>();
        accel
            .map(AccelChoice)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for GridChoice {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let is_int = obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>();
        let text = if is_int {
            obj.str()?.to_cow()?.into_owned()
        } else if let Ok(text) = obj.cast::<PyString>() {
            text.to_cow()?.into_owned()
        } else {
            return Err(PyTypeError::new_err(format!(
                "grid: expected \"file\", \"derived\" or a cell count (an int >= 1), got {}",
                obj.get_type().name()?
            )));
        };
        let grid = text.parse::<Grid>();
        grid.map(GridChoice)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// A mesh ready for vectorised queries (``Mcol.collider()``,
/// ``Mesh.collider()``).
#[pyclass(frozen, module = "sylcol._sylcol")]
pub struct Collider {
    name: String,
    /// Boxed: the collider holds 32-byte aligned SIMD rows, and Python
    /// places a class's fields at 16-byte alignment only.
    inner: Box<query::Collider>,
    /// Why `inside` has no answer on this mesh (worked out on the first
    /// `inside` call).
    inside_refused: std::sync::OnceLock<Option<String>>,
}

impl Collider {
    /// Over a map or a library part (`name` in reports: the object, or
    /// `PATH+PART`), made as the library makes every front's collider
    /// ([`ColliderSpec::collider`]).
    pub fn of(
        py: Python<'_>,
        name: &str,
        target: Target<'_>,
        grid: GridChoice,
        accel: AccelChoice,
    ) -> PyResult<Self> {
        let spec = ColliderSpec {
            grid: Some(grid.0),
            accel: accel.0,
        };
        let inner = py
            .detach(|| spec.collider(name, target))
            .map_err(|e| to_py(&e))?;
        Ok(Collider {
            name: name.to_string(),
            inner: Box::new(inner),
            inside_refused: std::sync::OnceLock::new(),
        })
    }

    fn batch_error(&self, e: BatchError) -> PyErr {
        raise(
            &ErrorReport {
                message: e.to_string(),
                path: Some(self.name.clone()),
                offset: None,
                kind: ErrorKind::Query,
            },
            Some(e.index),
        )
    }
}

/// Hits gathered column by column: t (NaN on a miss), triangle (-1),
/// point and normal (NaN).
struct HitColumns {
    t: Vec<f32>,
    triangle: Vec<i64>,
    point: Vec<f32>,
    normal: Vec<f32>,
}

impl HitColumns {
    fn with_capacity(n: usize) -> Self {
        HitColumns {
            t: Vec::with_capacity(n),
            triangle: Vec::with_capacity(n),
            point: Vec::with_capacity(3 * n),
            normal: Vec::with_capacity(3 * n),
        }
    }

    fn push(&mut self, hit: Option<RayHit>) {
        let nan = [f32::NAN; 3];
        self.t.push(hit.map_or(f32::NAN, |h| h.time_of_impact));
        self.triangle
            .push(hit.map_or(-1, |h| i64::from(h.triangle)));
        self.point
            .extend_from_slice(&hit.map_or(nan, |h| h.point.to_array()));
        self.normal
            .extend_from_slice(&hit.map_or(nan, |h| h.normal.to_array()));
    }

    /// `sylcol.Hits(t, triangle, point, normal)`.
    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let args = (
            PyArray1::from_vec(py, self.t),
            PyArray1::from_vec(py, self.triangle),
            rows_of(py, self.point)?,
            rows_of(py, self.normal)?,
        );
        result(py, "Hits", args)
    }
}

fn result<'py>(
    py: Python<'py>,
    class: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("sylcol._results")?.getattr(class)?.call1(args)
}

#[pymethods]
impl Collider {
    /// First surface crossing of each ray ``origins[i] + t dirs[i]``,
    /// ``0 < t <= max`` (t in units of ``dirs``, which need not be unit).
    /// Returns ``Hits(t, triangle, point, normal)``: NaN / -1 for a miss;
    /// the normal is the hit triangle's by its winding.
    #[pyo3(
        signature = (origins, dirs, max = f32::INFINITY),
        text_signature = "($self, origins, dirs, max=math.inf)"
    )]
    fn ray<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        dirs: &Bound<'py, PyAny>,
        max: f32,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (o, d) = (Rows::read(origins, "origins")?, Rows::read(dirs, "dirs")?);
        let n = batch_rows(&[(o.len(), "origins"), (d.len(), "dirs")])?;
        let mut hits = HitColumns::with_capacity(n);
        py.detach(|| {
            in_blocks(
                n,
                |i| Ray::new(o.at(i), d.at(i)),
                |rays| self.inner.cast_rays(rays, max),
                |h| hits.push(h),
            )
        })
        .map_err(|e| self.batch_error(e))?;
        hits.into_py(py)
    }

    /// First surface crossing of each segment ``starts[i] -> ends[i]``;
    /// ``t`` is the fraction of the way, in (0, 1]. Returns ``Hits``.
    fn segment<'py>(
        &self,
        py: Python<'py>,
        starts: &Bound<'py, PyAny>,
        ends: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (a, b) = (Rows::read(starts, "starts")?, Rows::read(ends, "ends")?);
        let n = batch_rows(&[(a.len(), "starts"), (b.len(), "ends")])?;
        let mut hits = HitColumns::with_capacity(n);
        py.detach(|| {
            in_blocks(
                n,
                |i| (a.at(i), b.at(i)),
                |segments| batch::cast_segments(&self.inner, segments),
                |h| hits.push(h),
            )
        })
        .map_err(|e| self.batch_error(e))?;
        hits.into_py(py)
    }

    /// Whether each point lies inside the closed hull (or on it): a bool
    /// array. A mesh with an edge used by an odd number of triangles (an
    /// open rim, a single-sided fin) encloses no definite volume:
    /// `UnsupportedError`, as `sylcol query inside` refuses it.
    fn inside<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        // Worked out without the GIL and outside the cell's lock: a thread
        // waiting on the lock while holding the GIL would never let the
        // one computing take the GIL back (two threads may compute it).
        let refused = match self.inside_refused.get() {
            Some(known) => known,
            None => {
                let why = py.detach(|| inside_refusal(&self.inner));
                self.inside_refused.get_or_init(|| why)
            }
        };
        if let Some(why) = refused {
            return Err(raise(
                &ErrorReport {
                    message: format!("{}: {why}", self.name),
                    path: Some(self.name.clone()),
                    offset: None,
                    kind: ErrorKind::Unsupported,
                },
                None,
            ));
        }
        let p = Rows::read(points, "points")?;
        let mut inside = Vec::with_capacity(p.len());
        py.detach(|| {
            in_blocks(
                p.len(),
                |i| p.at(i),
                |block| self.inner.inside_many(block),
                |b| inside.push(b),
            )
        })
        .map_err(|e| self.batch_error(e))?;
        Ok(PyArray1::from_vec(py, inside))
    }

    /// The nearest surface point to each point. Returns
    /// ``Closest(distance, point, triangle)`` (unsigned distance).
    fn closest<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = Rows::read(points, "points")?;
        let n = p.len();
        let (mut distance, mut point, mut triangle) = (
            Vec::with_capacity(n),
            Vec::with_capacity(3 * n),
            Vec::with_capacity(n),
        );
        py.detach(|| {
            in_blocks(
                n,
                |i| p.at(i),
                |block| self.inner.closest_many(block),
                |c| {
                    distance.push(c.map_or(f32::NAN, |c| c.distance));
                    point.extend_from_slice(&c.map_or([f32::NAN; 3], |c| c.point.to_array()));
                    triangle.push(c.map_or(-1, |c| i64::from(c.triangle)));
                },
            )
        })
        .map_err(|e| self.batch_error(e))?;
        let args = (
            PyArray1::from_vec(py, distance),
            rows_of(py, point)?,
            PyArray1::from_vec(py, triangle),
        );
        result(py, "Closest", args)
    }

    /// Spheres ``centres[i]`` of ``radii[i]`` moving by ``motions[i]``
    /// (None: standing still): the first contact with the surface.
    /// Returns ``Hits``: ``t`` the fraction of the motion at first contact
    /// (0 when the sphere already touches), the contact point, the normal
    /// from it towards the sphere's centre, and the triangle.
    #[pyo3(signature = (centres, radii, motions = None))]
    fn sphere<'py>(
        &self,
        py: Python<'py>,
        centres: &Bound<'py, PyAny>,
        radii: &Bound<'py, PyAny>,
        motions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = Rows::read(centres, "centres")?;
        let r = scalars(radii, "radii")?;
        let still = numpy::PyArray1::from_slice(py, &[0.0f32; 3]).into_any();
        let m = Rows::read(motions.unwrap_or(&still), "motions")?;
        let n = batch_rows(&[
            (c.len(), "centres"),
            (r.len(), "radii"),
            (m.len(), "motions"),
        ])?;
        let radius = |i: usize| if r.len() == 1 { r[0] } else { r[i] };
        let mut hits = HitColumns::with_capacity(n);
        py.detach(|| {
            in_blocks(
                n,
                |i| (c.at(i), radius(i), m.at(i)),
                |spheres| batch::sweep_spheres(&self.inner, spheres),
                |h| hits.push(h),
            )
        })
        .map_err(|e| self.batch_error(e))?;
        hits.into_py(py)
    }

    /// What ``sylcol query FILE grid --json`` prints: how well the walked
    /// grid fits the mesh.
    fn grid_fit(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fit = py.detach(|| grid_fit(&self.name, &self.inner));
        json_to_py(py, &fit)
    }

    /// ``"file"`` or ``"derived"``: where the walked grid came from.
    #[getter]
    fn source(&self) -> &'static str {
        match self.inner.grid_stats().source {
            GridSource::File => "file",
            GridSource::Derived { .. } => "derived",
        }
    }

    /// ``"bvh"`` when the collider has the BVH ``accel="bvh"`` builds, else
    /// ``"grid"`` (also with ``accel="bvh"`` on a mesh of at most 16
    /// triangles, two packets, whose rays test every triangle). The rays
    /// of a mesh of at most 64 triangles skip the grid either way (a scan,
    /// or a BVH of its own: docs/queries.md, "Rays and segments").
    #[getter]
    fn accel(&self) -> &'static str {
        if self.inner.bvh().is_some() {
            "bvh"
        } else {
            "grid"
        }
    }

    /// Cells per axis of the walked grid.
    #[getter]
    fn dims(&self) -> (usize, usize, usize) {
        let d = self.inner.grid().dims;
        (d[0], d[1], d[2])
    }

    fn __repr__(&self) -> String {
        let [x, y, z] = self.inner.grid().dims;
        format!(
            "<sylcol.Collider {} ({} grid {x}x{y}x{z})>",
            self.name,
            self.source()
        )
    }
}
