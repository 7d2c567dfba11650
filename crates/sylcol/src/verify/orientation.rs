//! The orientation checks of a hull, for MCOL maps and CollisionSet parts:
//! every edge run once in each direction, and every closed component facing
//! the same side ([`crate::orientation`]), each beside a control that shows
//! it could fail.
//!
//! Neither is a seed fact: the seeds count edges shared by two but say
//! nothing of winding. They are sylcol's rule for a hull whose normals
//! mean something (a ray hit's normal, which side is solid), reported so a
//! file that breaks it is named, not silently accepted.

use glam::Vec3;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::report::{Check, CheckId};
use crate::orientation::{Facing, facing};
use crate::topology::{Topology, edge_faults, topology};

/// Names of the orientation checks (stable: tests and scripts match on them).
pub mod names {
    use crate::verify::report::CheckId;

    /// MCOL: every edge used by exactly two triangles running it opposite ways.
    pub const ORIENTED: CheckId = CheckId::new(
        "mcol.mesh.oriented",
        "edges used once in each direction (closed, oriented)",
    );
    /// MCOL: closed components face one way, nesting counted.
    pub const FACING: CheckId = CheckId::new(
        "mcol.mesh.facing",
        "closed components face one way (nesting counted)",
    );
    /// MCOL: closed components whose normals point out of them.
    pub const OUTWARD: CheckId = CheckId::new(
        "mcol.mesh.outward",
        "closed components facing outward (positive volume)",
    );
    /// CollisionSet: every edge shared by two is run once each way (parts
    /// may be open).
    pub const SHARED_ORIENTED: CheckId = CheckId::new(
        "cs.mesh.shared_oriented",
        "shared edges run once in each direction",
    );
    /// CollisionSet: each part's closed components face one way.
    pub const CS_FACING: CheckId = CheckId::new(
        "cs.mesh.facing",
        "closed components face one way (nesting counted)",
    );
    /// CollisionSet: closed components whose normals point out of them.
    pub const CS_OUTWARD: CheckId = CheckId::new(
        "cs.mesh.outward",
        "closed components facing outward (positive volume)",
    );
}

/// Consistently wound edges of the mesh with each triangle's winding
/// chosen at random (the control of the orientation checks): about half.
pub fn random_winding_control(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    rng: &mut ChaCha8Rng,
) -> Topology {
    let shuffled: Vec<[u32; 3]> = triangles
        .iter()
        .map(|&[a, b, c]| if rng.random() { [a, b, c] } else { [a, c, b] })
        .collect();
    topology(vertices, &shuffled)
}

/// How a mesh's closed components face.
pub fn facing_of(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Facing {
    facing(vertices, triangles, &edge_faults(vertices.len(), triangles))
}

/// The MCOL checks: every edge once each way, components facing one way,
/// and (info) how many face outward.
pub fn hull_checks(topo: &Topology, control: &Topology, facing: &Facing) -> Vec<Check> {
    vec![
        Check::all(names::ORIENTED, topo.consistently_wound_edges, topo.edges)
            .with_control(
                "each triangle's winding chosen at random",
                control.consistently_wound_edges,
                control.edges,
            )
            .with_note(format!(
                "open {}, shared by 3+ {}, run the same way {}",
                topo.boundary_edges,
                topo.nonmanifold_edges,
                topo.edges_shared_by_two - topo.consistently_wound_edges
            )),
        facing_check(names::FACING, facing, None),
        outward_check(names::OUTWARD, facing),
    ]
}

/// The check that closed components face one way, with its control (each
/// shell turned over alone); `first` names where the first disagreement is.
pub fn facing_check(id: CheckId, f: &Facing, first: Option<String>) -> Check {
    let note = first.or_else(|| {
        f.first_disagreeing
            .map(|t| format!("first against: the component of triangle {t}"))
    });
    Check::all(id, f.agreeing, f.shells)
        .with_control(
            "one component turned over alone",
            f.flips_undetected,
            f.shells,
        )
        .with_note_opt(note)
}

/// How many closed components face outward (info).
pub fn outward_check(id: CheckId, f: &Facing) -> Check {
    Check::info(id, f.outward, f.shells)
}

/// Adds up the facing figures of several meshes.
pub fn sum_facing<'a>(parts: impl IntoIterator<Item = &'a Facing>) -> Facing {
    parts.into_iter().fold(Facing::default(), |s, f| Facing {
        shells: s.shells + f.shells,
        outward: s.outward + f.outward,
        agreeing: s.agreeing + f.agreeing,
        flips_undetected: s.flips_undetected + f.flips_undetected,
        first_disagreeing: s.first_disagreeing.or(f.first_disagreeing),
    })
}
