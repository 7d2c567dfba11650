//! `build_mcol` and `build_collisionset`: game files from arrays.

use numpy::{AllowTypeChange, PyArrayLike2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sylcol::TriMesh;
use sylcol::build::collisionset::{build_collisionset as build_library, check_new_name};
use sylcol::build::hull::{HullFault, OptOuts, screen_hull};
use sylcol::build::mcol::{McolBuildOptions, build_mcol as build_map};
use sylcol_format::collisionset::{self, Endian};
use sylcol_format::mcol;

use crate::arrays::points;
use crate::errors::{build_error, hull_error};

/// Python's spelling of the CLI's `--allow-open` in hull messages (no
/// `--weld` here: the caller welds its own arrays).
const OPT_OUTS: OptOuts = OptOuts {
    allow_open: "allow_open=True",
    weld_hint: false,
};

/// The hull checks `sylcol build` runs, worded the same: a refusal is a
/// `BuildError` (kind `hull`), a fault written anyway (`allow_open=True`,
/// or an open part) a `UserWarning`.
fn screen(
    py: Python<'_>,
    name: &str,
    mesh: &TriMesh,
    refuses: impl Fn(&HullFault) -> bool + Send,
    allow_open: bool,
) -> PyResult<()> {
    let verdict = py.detach(|| screen_hull(name, mesh, refuses, allow_open, OPT_OUTS));
    match verdict.message {
        Some(message) if verdict.refused => Err(hull_error(message, name)),
        Some(message) if allow_open => {
            let warning = py.get_type::<pyo3::exceptions::PyUserWarning>();
            let text = std::ffi::CString::new(message).unwrap_or_default();
            PyErr::warn(py, warning.as_any(), &text, 1)
        }
        _ => Ok(()),
    }
}

/// `(M, 3)` integer vertex indices as u32 triples.
fn triangles(array: &Bound<'_, PyAny>) -> PyResult<Vec<[u32; 3]>> {
    let a: PyArrayLike2<'_, i64, AllowTypeChange> = array.extract().map_err(|_| {
        PyValueError::new_err("triangles: expected an integer array of shape (M, 3)")
    })?;
    if a.shape()[1] != 3 {
        return Err(PyValueError::new_err(format!(
            "triangles: expected shape (M, 3), got {:?}",
            a.shape()
        )));
    }
    a.as_array()
        .rows()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let mut t = [0u32; 3];
            for k in 0..3 {
                t[k] = u32::try_from(r[k]).map_err(|_| {
                    build_error(format!("triangle {i}: vertex index {} is not a u32", r[k]))
                })?;
            }
            Ok(t)
        })
        .collect()
}

/// A mesh from a vertex and a triangle array.
pub(crate) fn mesh(vertices: &Bound<'_, PyAny>, tris: &Bound<'_, PyAny>) -> PyResult<TriMesh> {
    Ok(TriMesh::new(
        points(vertices, "vertices")?,
        triangles(tris)?,
    ))
}

/// A valid MCOL map hull from a mesh: the file's bytes.
pub fn mcol_bytes(
    py: Python<'_>,
    vertices: &Bound<'_, PyAny>,
    tris: &Bound<'_, PyAny>,
    bbox: Option<&Bound<'_, PyAny>>,
    cell: Option<f32>,
    allow_open: bool,
) -> PyResult<Py<PyBytes>> {
    let mesh = mesh(vertices, tris)?;
    let bbox = match bbox {
        Some(b) => match points(b, "bbox")?.as_slice() {
            [lo, hi] => Some((lo.to_array(), hi.to_array())),
            _ => {
                return Err(PyValueError::new_err(
                    "bbox: expected (min, max), shape (2, 3)",
                ));
            }
        },
        None => None,
    };
    let options = McolBuildOptions { bbox, cell };
    // As `sylcol build mcol`: the mesh and grid first, then the hull.
    let map = py
        .detach(|| build_map(&mesh, &options))
        .map_err(|e| build_error(e.to_string()))?;
    screen(py, "mesh", &mesh, |_| true, allow_open)?;
    let bytes = mcol::encode(&map).map_err(|e| build_error(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// A CollisionSet library from `{name: (vertices, triangles)}` (or an
/// iterable of `(name, (vertices, triangles))`), in the order given.
pub fn collisionset_bytes(
    py: Python<'_>,
    meshes: &Bound<'_, PyAny>,
    endian: &str,
    allow_open: bool,
) -> PyResult<Py<PyBytes>> {
    let endian = match endian {
        "big" => Endian::Big,
        "little" => Endian::Little,
        other => {
            return Err(PyValueError::new_err(format!(
                "endian={other:?}: expected \"big\" or \"little\""
            )));
        }
    };
    let pairs = match meshes.cast::<PyDict>() {
        Ok(d) => d.items().into_any(),
        Err(_) => meshes.clone(),
    };
    let mut named = Vec::new();
    for pair in pairs.try_iter()? {
        let (name, arrays): (String, Bound<'_, PyAny>) = pair?.extract()?;
        let (v, t): (Bound<'_, PyAny>, Bound<'_, PyAny>) = arrays.extract()?;
        check_new_name(&name).map_err(|e| build_error(e.to_string()))?;
        named.push((name, mesh(&v, &t)?));
    }
    // The meshes are checked (indices in range) before the hull checks.
    let set = py
        .detach(|| build_library(&named, endian))
        .map_err(|e| build_error(e.to_string()))?;
    for (name, part) in &named {
        let label = format!("part {name:?}");
        screen(py, &label, part, HullFault::refused_in_parts, allow_open)?;
    }
    let bytes = collisionset::encode(&set).map_err(|e| build_error(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}
