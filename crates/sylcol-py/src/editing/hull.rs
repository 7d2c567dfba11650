//! `hull_faults` and `weld`: the hull checks of `sylcol build`, with every
//! faulty element listed (not only the first of each kind) so that an
//! editor can select them.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use sylcol::TriMesh;
use sylcol::build::hull::{HullFault, OptOuts, screen_hull};
use sylcol::topology::{edge_faults, is_degenerate, triangle_components};

use crate::arrays::rows3;
use crate::build::mesh;
use crate::errors::build_error;

/// Python's spelling of the opt-out in hull messages (as `build_mcol`).
const OPT_OUTS: OptOuts = OptOuts {
    allow_open: "allow_open=True",
    weld_hint: false,
};

/// A half-edge: triangle `t`'s edge from corner `k` to corner `k + 1`.
type Corner = [u32; 2];

/// The faulty edges, each as every (triangle, corner) that runs it.
#[derive(Default)]
struct EdgeLists {
    open: Vec<Corner>,
    overshared: Vec<Corner>,
    same_direction: Vec<Corner>,
}

/// Every edge not used once in each direction, classified as
/// [`sylcol::topology::edge_faults`] counts them (an edge with equal ends
/// is a degenerate triangle's, not an edge fault).
fn edge_lists(triangles: &[[u32; 3]]) -> EdgeLists {
    // (low end, high end, runs low -> high, triangle, corner)
    let mut halves: Vec<(u32, u32, bool, u32, u32)> = Vec::with_capacity(3 * triangles.len());
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (p, q) = (tri[k], tri[(k + 1) % 3]);
            if p != q {
                halves.push((p.min(q), p.max(q), p < q, t as u32, k as u32));
            }
        }
    }
    halves.sort_unstable();
    let mut out = EdgeLists::default();
    for run in halves.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let corners = run.iter().map(|h| [h.3, h.4]);
        match run.len() {
            1 => out.open.extend(corners),
            2 if run[0].2 != run[1].2 => {}
            2 => out.same_direction.extend(corners),
            _ => out.overshared.extend(corners),
        }
    }
    out
}

/// Every hull fault of a mesh, with the elements that carry it.
///
/// ``vertices`` (N x 3), ``triangles`` (M x 3). Returns a dict:
/// ``refused`` (whether ``build_mcol`` — or, with ``part=True``,
/// ``build_collisionset`` — refuses the mesh), ``message`` (the refusal
/// or warning those builders give, None for a clean hull), ``faults``
/// (one sentence per kind: its first case and how many), and the
/// elements: ``degenerate`` (triangles), ``open_edges``,
/// ``overshared_edges``, ``same_direction_edges`` (each a list of
/// ``[triangle, corner]``: the edge from that corner of that triangle to
/// the next, one row per triangle using the edge), ``facing`` (the
/// triangles of the first closed component facing against the others)
/// and ``unused`` (vertices).
#[pyfunction]
#[pyo3(signature = (vertices, triangles, *, part = false))]
pub fn hull_faults<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    part: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mesh = mesh(vertices, triangles)?;
    let (v, t) = (&mesh.vertices, &mesh.triangles);
    sylcol::import::check_mesh(&mesh).map_err(|e| build_error(e.to_string()))?;
    let name = if part { "part" } else { "mesh" };
    let refuses = |f: &HullFault| !part || f.refused_in_parts();
    let (verdict, edges, facing, unused, degenerate) = py.detach(|| {
        let verdict = screen_hull(name, &mesh, refuses, false, OPT_OUTS);
        let faults = edge_faults(v.len(), t);
        let facing = sylcol::orientation::facing(v, t, &faults);
        let facing = facing.first_disagreeing.map_or_else(Vec::new, |first| {
            let (labels, _) = triangle_components(v.len(), t);
            let own = labels[first as usize];
            (0..t.len() as u32)
                .filter(|&i| labels[i as usize] == own)
                .collect()
        });
        let mut used = vec![false; v.len()];
        t.iter().flatten().for_each(|&i| used[i as usize] = true);
        let unused: Vec<u32> = (0..v.len() as u32).filter(|&i| !used[i as usize]).collect();
        let degenerate: Vec<u32> = (0..t.len() as u32)
            .filter(|&i| is_degenerate(v, &t[i as usize]))
            .collect();
        (verdict, edge_lists(t), facing, unused, degenerate)
    });
    let out = PyDict::new(py);
    out.set_item("refused", verdict.refused)?;
    out.set_item("message", verdict.message)?;
    out.set_item("faults", verdict.warnings)?;
    out.set_item("degenerate", degenerate)?;
    out.set_item("open_edges", edges.open)?;
    out.set_item("overshared_edges", edges.overshared)?;
    out.set_item("same_direction_edges", edges.same_direction)?;
    out.set_item("facing", facing)?;
    out.set_item("unused", unused)?;
    Ok(out)
}

/// ``(vertices, triangles)`` welded as ``sylcol build --weld`` welds:
/// vertices with bit-identical coordinates (-0 equal to 0) merged into
/// the first, unused vertices dropped, triangles kept in order. Returns
/// numpy arrays: float32 (N x 3) and uint32 (M x 3).
///
/// ``ids`` (N integers), for a mesh whose vertices carry the index they
/// had in a file (negative for a vertex the file did not have): vertices
/// merge only when their ids are equal too, a vertex with an id is kept
/// even when unused, and the vertices with ids come first in id order —
/// so an editor that split a file's vertices (to hold a double-sided
/// face) gets the file's vertex list back.
#[pyfunction]
#[pyo3(signature = (vertices, triangles, *, ids = None))]
pub fn weld<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    ids: Option<Vec<i64>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    use numpy::PyArrayMethods;
    let mesh = mesh(vertices, triangles)?;
    sylcol::import::check_mesh(&mesh).map_err(|e| build_error(e.to_string()))?;
    if let Some(ids) = &ids
        && ids.len() != mesh.vertices.len()
    {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "ids: {} for {} vertices",
            ids.len(),
            mesh.vertices.len()
        )));
    }
    let welded: TriMesh = py.detach(|| match &ids {
        Some(ids) => sylcol::import::weld_by_id(&mesh, ids),
        None => sylcol::import::weld(&mesh),
    });
    let v = rows3(py, welded.vertices.iter().map(|p| p.to_array()).collect())?;
    let flat: Vec<u32> = welded.triangles.iter().flatten().copied().collect();
    let t = numpy::PyArray1::from_vec(py, flat).reshape([welded.triangles.len(), 3])?;
    Ok((v.into_any(), t.into_any()))
}
