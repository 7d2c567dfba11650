//! The hull checks `sylcol build` runs before it writes anything: the
//! topology `sylcol verify` requires of a hull, found on the mesh to build,
//! each failure named by its first case.
//!
//! [`check_hull`] reports, in this order, the first degenerate triangle,
//! open edge, edge shared by three or more triangles, edge two triangles
//! run the same way, shell facing against the others
//! ([`crate::orientation`]) and unused vertex, each with how many there
//! are. Vertex and triangle numbers are 0-based positions in the mesh as
//! imported (file order; an OBJ `v` number minus one).
//!
//! An MCOL must pass all of them (`verify` fails a map on each). A
//! CollisionSet part may be an open shell (the seed finds 11 of 158 not
//! fully manifold), so for parts only [`HullFault::refused_in_parts`]
//! faults refuse the build.

use std::fmt;

use glam::Vec3;

use crate::import::weld;
use crate::mesh::TriMesh;
use crate::orientation::facing;
use crate::topology::{EdgeFault, edge_faults, is_degenerate};

/// One way a mesh fails to be a closed, consistently oriented hull, with
/// its first case and how many cases there are.
#[derive(Debug, Clone, PartialEq)]
pub enum HullFault {
    /// A triangle with a repeated corner or no area.
    Degenerate {
        /// The first such triangle.
        triangle: usize,
        /// Its corners' positions.
        corners: [Vec3; 3],
        /// How many there are.
        count: u64,
    },
    /// An edge used by one triangle only.
    OpenEdge(EdgeCase),
    /// An edge shared by three or more triangles.
    OversharedEdge(EdgeCase),
    /// An edge two triangles run the same way: one of them is turned over.
    SameDirection(EdgeCase),
    /// A closed component facing against the others.
    Facing {
        /// Its first triangle.
        triangle: u32,
        /// Shells disagreeing with the majority.
        disagreeing: u64,
        /// Shells in the mesh.
        shells: u64,
    },
    /// A vertex no triangle uses.
    Unreferenced {
        /// The first such vertex.
        vertex: usize,
        /// Its position.
        position: Vec3,
        /// How many there are.
        count: u64,
    },
}

/// The first faulty edge of a kind, with its ends' positions.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeCase {
    /// The edge, as the first triangle using it runs it.
    pub fault: EdgeFault,
    /// Its two ends.
    pub ends: [Vec3; 2],
    /// Edges of this kind.
    pub count: u64,
}

impl HullFault {
    /// Whether the fault refuses a CollisionSet part too (parts may be
    /// open, but not degenerate or turned over).
    pub fn refused_in_parts(&self) -> bool {
        matches!(
            self,
            HullFault::Degenerate { .. } | HullFault::SameDirection(_) | HullFault::Facing { .. }
        )
    }
}

fn point(v: Vec3) -> String {
    format!("({} {} {})", v.x, v.y, v.z)
}

impl fmt::Display for HullFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let edge = |e: &EdgeCase| {
            format!(
                "edge from vertex {} {} to vertex {} {}",
                e.fault.edge[0],
                point(e.ends[0]),
                e.fault.edge[1],
                point(e.ends[1])
            )
        };
        match self {
            HullFault::Degenerate {
                triangle,
                corners,
                count,
            } => write!(
                f,
                "triangle {triangle} {} {} {} has no area ({count} degenerate triangles)",
                point(corners[0]),
                point(corners[1]),
                point(corners[2])
            ),
            HullFault::OpenEdge(e) => write!(
                f,
                "{} is open: triangle {} is the only one using it ({} open edges)",
                edge(e),
                e.fault.triangle,
                e.count
            ),
            HullFault::OversharedEdge(e) => write!(
                f,
                "{} is shared by {} triangles, the first triangle {} ({} edges shared by 3+)",
                edge(e),
                e.fault.shared_by,
                e.fault.triangle,
                e.count
            ),
            HullFault::SameDirection(e) => write!(
                f,
                "{} is run the same way by both its triangles (the first is triangle {}): \
                 one of them is turned over ({} such edges)",
                edge(e),
                e.fault.triangle,
                e.count
            ),
            HullFault::Facing {
                triangle,
                disagreeing,
                shells,
            } => write!(
                f,
                "the closed component holding triangle {triangle} faces against the others \
                 ({disagreeing} of {shells} closed components, nesting counted): turn it over"
            ),
            HullFault::Unreferenced {
                vertex,
                position,
                count,
            } => write!(
                f,
                "vertex {vertex} {} is used by no triangle ({count} unused vertices)",
                point(*position)
            ),
        }
    }
}

/// Every hull fault of `mesh`, first case of each kind. Indices must be in
/// range ([`crate::import::check_mesh`]).
pub fn check_hull(mesh: &TriMesh) -> Vec<HullFault> {
    let (v, t) = (&mesh.vertices, &mesh.triangles);
    let mut out = Vec::new();
    if let Some(triangle) = t.iter().position(|x| is_degenerate(v, x)) {
        out.push(HullFault::Degenerate {
            triangle,
            corners: mesh.corners(triangle),
            count: t.iter().filter(|x| is_degenerate(v, x)).count() as u64,
        });
    }
    let faults = edge_faults(v.len(), t);
    let case = |first: Option<EdgeFault>, count| {
        first.map(|fault| EdgeCase {
            ends: fault.edge.map(|i| v[i as usize]),
            fault,
            count,
        })
    };
    out.extend(case(faults.first_open, faults.open).map(HullFault::OpenEdge));
    out.extend(case(faults.first_overshared, faults.overshared).map(HullFault::OversharedEdge));
    out.extend(
        case(faults.first_same_direction, faults.same_direction).map(HullFault::SameDirection),
    );
    let f = facing(v, t, &faults);
    if let Some(triangle) = f.first_disagreeing {
        out.push(HullFault::Facing {
            triangle,
            disagreeing: f.shells - f.agreeing,
            shells: f.shells,
        });
    }
    let mut used = vec![false; v.len()];
    t.iter().flatten().for_each(|&i| used[i as usize] = true);
    if let Some(vertex) = used.iter().position(|&u| !u) {
        out.push(HullFault::Unreferenced {
            vertex,
            position: v[vertex],
            count: used.iter().filter(|&&u| !u).count() as u64,
        });
    }
    out
}

/// What `--weld` would do for a mesh failing `refuses`: `None` when it
/// would change nothing, else a sentence for the user.
pub fn weld_hint(mesh: &TriMesh, refuses: impl Fn(&HullFault) -> bool) -> Option<String> {
    let welded = weld(mesh);
    let merged = mesh.vertices.len() - welded.vertices.len();
    if merged == 0 {
        return None;
    }
    Some(match check_hull(&welded).into_iter().find(|f| refuses(f)) {
        None => format!(
            "--weld merges the {merged} vertices that repeat an earlier one's position \
             (or that no triangle uses), and the welded mesh passes every check"
        ),
        Some(f) => format!(
            "--weld merges {merged} repeated or unused vertices, but the welded mesh still \
             fails: {f}"
        ),
    })
}

/// How a front names the switches its hull messages point to: the CLI's
/// `--allow-open` / `--weld`, Python's `allow_open=True`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptOuts {
    /// What writes a refused mesh anyway (`--allow-open`).
    pub allow_open: &'static str,
    /// Whether to add what `--weld` would do (a front without that switch,
    /// or a mesh already welded, gives `false`).
    pub weld_hint: bool,
}

/// What the hull checks decided about one mesh ([`screen_hull`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HullVerdict {
    /// A fault `refuses` holds for was found and the opt-out was not
    /// given: nothing may be written.
    pub refused: bool,
    /// Every fault found, in words.
    pub warnings: Vec<String>,
    /// What a front says about it (`None` for a clean hull): the refusal
    /// when [`HullVerdict::refused`], else a warning (`warning: ...`).
    pub message: Option<String>,
}

/// Runs the hull checks on `mesh` (called `name` in the message) and
/// decides: refused when a fault `refuses` holds for is found and
/// `allow_open` is false. Every front (`sylcol build`, Python's builders)
/// refuses and words it the same way.
pub fn screen_hull(
    name: &str,
    mesh: &TriMesh,
    refuses: impl Fn(&HullFault) -> bool,
    allow_open: bool,
    opt_outs: OptOuts,
) -> HullVerdict {
    let faults = check_hull(mesh);
    let warnings: Vec<String> = faults.iter().map(ToString::to_string).collect();
    let refusing = faults.iter().any(&refuses);
    let refused = refusing && !allow_open;
    if faults.is_empty() {
        return HullVerdict {
            refused,
            warnings,
            message: None,
        };
    }
    let what = "is not a closed, consistently oriented hull";
    let flag = opt_outs.allow_open;
    let mut text = match (refused, refusing) {
        (true, _) => format!("{name} {what}; nothing written ({flag} writes it anyway):"),
        (false, true) => format!("warning: {name} {what}; written anyway ({flag}):"),
        (false, false) => format!("warning: {name} {what}:"),
    };
    for f in &warnings {
        text += &format!("\n  {f}");
    }
    if let Some(h) = opt_outs
        .weld_hint
        .then(|| weld_hint(mesh, &refuses))
        .flatten()
    {
        text += &format!("\n  hint: {h}");
    }
    HullVerdict {
        refused,
        warnings,
        message: Some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::testmaps::cube;

    /// The cube with every triangle on its own three vertices, as a
    /// flat-shaded exporter writes it.
    fn unwelded(m: &TriMesh) -> TriMesh {
        let vertices = m
            .triangles
            .iter()
            .flatten()
            .map(|&i| m.vertices[i as usize])
            .collect();
        let triangles = (0..m.triangles.len() as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        TriMesh::new(vertices, triangles)
    }

    #[test]
    fn a_closed_cube_passes() {
        assert_eq!(check_hull(&cube(1.0)), vec![]);
    }

    #[test]
    fn unwelded_is_open_and_weld_says_it_fixes_it() {
        let m = unwelded(&cube(1.0));
        let faults = check_hull(&m);
        let HullFault::OpenEdge(e) = &faults[0] else {
            panic!("{faults:?}");
        };
        assert_eq!(e.count, 36);
        assert_eq!(e.fault.triangle, 0);
        assert!(
            faults[0].to_string().contains("is open: triangle 0"),
            "{}",
            faults[0]
        );
        let hint = weld_hint(&m, |_| true).unwrap();
        assert!(hint.contains("passes every check"), "{hint}");
        assert_eq!(weld_hint(&cube(1.0), |_| true), None);
    }

    #[test]
    fn each_fault_is_named() {
        let mut m = cube(1.0);
        m.triangles[5].swap(1, 2);
        m.vertices.push(Vec3::splat(3.0));
        m.triangles.push([0, 1, 0]);
        let faults = check_hull(&m);
        let kinds: Vec<bool> = faults.iter().map(HullFault::refused_in_parts).collect();
        assert!(matches!(
            faults[0],
            HullFault::Degenerate {
                triangle: 12,
                count: 1,
                ..
            }
        ));
        assert!(
            faults
                .iter()
                .any(|f| matches!(f, HullFault::SameDirection(e) if e.count == 3))
        );
        assert!(matches!(
            faults.last(),
            Some(HullFault::Unreferenced { vertex: 8, .. })
        ));
        assert!(kinds[0] && !kinds[kinds.len() - 1]);
    }

    #[test]
    fn screening_refuses_an_open_mesh_unless_allowed() {
        let mut m = cube(1.0);
        m.triangles.pop();
        let cli = OptOuts {
            allow_open: "--allow-open",
            weld_hint: true,
        };
        let v = screen_hull("hull.obj", &m, |_| true, false, cli);
        assert!(v.refused);
        let text = v.message.unwrap();
        assert!(
            text.starts_with(
                "hull.obj is not a closed, consistently oriented hull; nothing written \
                 (--allow-open writes it anyway):\n  edge from vertex"
            ),
            "{text}"
        );
        assert!(text.contains("is open"), "{text}");
        let py = OptOuts {
            allow_open: "allow_open=True",
            weld_hint: false,
        };
        let v = screen_hull("mesh", &m, |_| true, true, py);
        assert!(!v.refused && !v.warnings.is_empty());
        assert!(v.message.unwrap().starts_with("warning: mesh is not"));
        // Parts may be open.
        let v = screen_hull("part", &m, HullFault::refused_in_parts, false, py);
        assert!(!v.refused);
        assert_eq!(
            screen_hull("c", &cube(1.0), |_| true, false, cli).message,
            None
        );
    }
}
