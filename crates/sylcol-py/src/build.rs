//! `build_mcol` and `build_collisionset`: game files from arrays.

use numpy::{AllowTypeChange, PyArrayLike2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sylcol::TriMesh;
use sylcol::build::collisionset::build_collisionset as build_library;
use sylcol::build::mcol::{McolBuildOptions, build_mcol as build_map};
use sylcol_format::collisionset::{self, Endian};
use sylcol_format::mcol;

use crate::arrays::points;
use crate::errors::build_error;

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
fn mesh(vertices: &Bound<'_, PyAny>, tris: &Bound<'_, PyAny>) -> PyResult<TriMesh> {
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
    let bytes = py.detach(|| {
        let map = build_map(&mesh, &options).map_err(|e| e.to_string())?;
        mcol::encode(&map).map_err(|e| e.to_string())
    });
    Ok(PyBytes::new(py, &bytes.map_err(build_error)?).unbind())
}

/// A CollisionSet library from `{name: (vertices, triangles)}` (or an
/// iterable of `(name, (vertices, triangles))`), in the order given.
pub fn collisionset_bytes(
    py: Python<'_>,
    meshes: &Bound<'_, PyAny>,
    endian: &str,
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
        named.push((name, mesh(&v, &t)?));
    }
    let bytes = py.detach(|| {
        let set = build_library(&named, endian).map_err(|e| e.to_string())?;
        collisionset::encode(&set).map_err(|e| e.to_string())
    });
    Ok(PyBytes::new(py, &bytes.map_err(build_error)?).unbind())
}
