//! A map's grid as an editor shows it: the occupied cells (boxes, list
//! lengths, cell spheres), the cell a point falls in with its triangles,
//! and what `verify` flags.

use glam::DVec3;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sylcol::grid::GridSpec;
use sylcol::prelude::*;
use sylcol::verify::flags::{cell_corners, mcol_flags};
use sylcol_format::mcol;

use crate::arrays::rows3;
use crate::mcol::Mcol;
use crate::reports::json_to_py;

/// The occupied cells of `m`: linear index and coordinates.
fn occupied(m: &mcol::Mcol, spec: &GridSpec) -> Vec<(usize, [usize; 3])> {
    let n = spec.cell_count().min(m.cells.len());
    (0..n)
        .filter(|&i| m.cells[i].record().is_some())
        .map(|i| (i, spec.coords(i)))
        .collect()
}

/// The triangles cell `i` lists, in list order (every list record of the
/// cell, one after the other).
fn listed(m: &mcol::Mcol, i: usize) -> Vec<u16> {
    m.cell_lists(i).flatten().copied().collect()
}

/// The occupied cells of a map, as the glTF ``cells`` layer draws them.
///
/// Returns a dict of numpy arrays, one row per occupied cell in cell
/// order: ``cell`` (K x 3 int: x, y, z), ``lo`` and ``hi`` (K x 3
/// float32: the cell's box), ``count`` (K: triangles listed) and
/// ``sphere`` (K x 4 float32: the cell record's sphere).
#[pyfunction]
pub fn map_cells<'py>(py: Python<'py>, map: &Bound<'py, Mcol>) -> PyResult<Bound<'py, PyDict>> {
    let m = &map.get().mcol;
    let spec = GridSpec::from_header(&m.header);
    let cells = occupied(m, &spec);
    let corners: Vec<_> = cells.iter().map(|&(_, c)| cell_corners(&spec, c)).collect();
    let out = PyDict::new(py);
    let coords: Vec<[usize; 3]> = cells.iter().map(|&(_, c)| c).collect();
    out.set_item("cell", coords)?;
    out.set_item(
        "lo",
        rows3(py, corners.iter().map(|b| b.0.to_array()).collect())?,
    )?;
    out.set_item(
        "hi",
        rows3(py, corners.iter().map(|b| b.1.to_array()).collect())?,
    )?;
    let counts: Vec<usize> = cells.iter().map(|&(i, _)| listed(m, i).len()).collect();
    out.set_item("count", counts)?;
    let spheres: Vec<[f32; 4]> = cells.iter().map(|&(i, _)| m.cells[i].sphere).collect();
    out.set_item("sphere", spheres)?;
    let np = py.import("numpy")?;
    for key in ["cell", "count", "sphere"] {
        let a = np.getattr("asarray")?.call1((out.get_item(key)?,))?;
        out.set_item(key, a)?;
    }
    Ok(out)
}

/// The grid cell holding ``point`` (x, y, z in the map's coordinates) as
/// the queries find it (a point on a shared face belongs to the higher
/// cell), or None outside the grid: a dict with ``cell`` (x, y, z),
/// ``index`` (linear), ``lo`` / ``hi`` (its box) and ``triangles`` (the
/// triangle indices its lists hold, in list order; empty for an empty
/// cell).
#[pyfunction]
pub fn cell_at<'py>(
    py: Python<'py>,
    map: &Bound<'py, Mcol>,
    point: [f64; 3],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let m = &map.get().mcol;
    let spec = GridSpec::from_header(&m.header);
    let Some(c) = spec.cell_of_point(DVec3::from_array(point)) else {
        return Ok(None);
    };
    let i = spec.linear(c);
    let (lo, hi) = cell_corners(&spec, c);
    let out = PyDict::new(py);
    out.set_item("cell", c)?;
    out.set_item("index", i)?;
    out.set_item("lo", lo.to_array())?;
    out.set_item("hi", hi.to_array())?;
    let triangles = if i < m.cells.len() {
        listed(m, i)
    } else {
        Vec::new()
    };
    out.set_item("triangles", triangles)?;
    Ok(Some(out))
}

/// The triangles and cells a failing ``verify`` check counts against, as
/// the glTF ``failures`` layer draws them: ``{"triangles": [{"triangle":
/// i, "checks": [...]}, ...], "cells": [{"cell": [x, y, z], "checks":
/// [...]}, ...]}``.
#[pyfunction]
pub fn map_failures(py: Python<'_>, map: &Bound<'_, Mcol>) -> PyResult<Py<PyAny>> {
    let m = &map.get().mcol;
    let flagged = py.detach(|| mcol_flags(m));
    json_to_py(py, &flagged)
}
