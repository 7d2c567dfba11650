//! The mesh as every index reads it: its corners, a unit normal per
//! triangle, the box of its vertices, and a bounding sphere per triangle
//! (a map file's as stored and checked, or computed; made on first use).

use std::sync::OnceLock;

use glam::{DVec3, Vec3, Vec4};

use crate::error::{ColliderError, QueryError};
use crate::geometry::closest::closest_on_triangle;
use crate::geometry::mesh::TriMesh;
use crate::geometry::primitives::{enclosing_radius, triangle_sphere};
use crate::kernels::mailbox::Visits;
use crate::query::ClosestPoint;

/// A checked mesh with what the queries read of it beside its corners.
#[derive(Debug, Clone)]
pub struct Surface {
    mesh: TriMesh,
    /// Unit normal per triangle, by winding.
    pub(crate) normals: Vec<Vec3>,
    /// The box of the mesh's vertices (the ray kernel's error bounds).
    pub(crate) bounds: (Vec3, Vec3),
    /// The centre of `bounds` and the squared distance from it beyond
    /// which a point is far (`index::closest::far`).
    pub(crate) far: (DVec3, f64),
    /// Bounding sphere per triangle (centre xyz, radius w) and how many
    /// of a file's were replaced: built on the first query that needs
    /// them (a sphere sweep or nearest point, or `grid_stats`).
    spheres: OnceLock<(Vec<Vec4>, usize)>,
    /// A file's spheres as stored (checked when `spheres` is built).
    file_spheres: Option<Vec<[f32; 4]>>,
}

impl Surface {
    /// The surface of `mesh` (checked by [`check_mesh`]), whose box is
    /// `bounds` (found once by the caller; `None` for an empty mesh), with
    /// `file_spheres` when a map file stores them (one per triangle; the
    /// caller checks the count).
    pub(crate) fn new(
        mesh: TriMesh,
        bounds: Option<(Vec3, Vec3)>,
        file_spheres: Option<Vec<[f32; 4]>>,
    ) -> Self {
        let normals = (0..mesh.triangles.len())
            .map(|t| {
                let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
                // Adding +0 turns a -0 component into +0 (printed as "0").
                (b - a).cross(c - a).normalize_or_zero().as_vec3() + Vec3::ZERO
            })
            .collect();
        let bounds = bounds.unwrap_or((Vec3::ZERO, Vec3::ZERO));
        Surface {
            mesh,
            normals,
            bounds,
            far: far_reach(bounds),
            spheres: OnceLock::new(),
            file_spheres,
        }
    }

    /// The mesh.
    #[inline(always)]
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// Number of triangles.
    #[inline]
    pub fn triangle_count(&self) -> usize {
        self.mesh.triangles.len()
    }

    /// Triangle `t`'s unit normal, by its winding.
    #[inline(always)]
    pub fn normal(&self, t: usize) -> Vec3 {
        self.normals[t]
    }

    /// Triangle `t`'s bounding sphere: centre xyz, radius w.
    #[inline(always)]
    pub fn sphere(&self, t: usize) -> Vec4 {
        self.spheres().0[t]
    }

    /// Whether the spheres are built yet.
    #[cfg(test)]
    pub(crate) fn spheres_built(&self) -> bool {
        self.spheres.get().is_some()
    }

    /// How many of a file's spheres did not enclose their triangle and
    /// were recomputed (0 for computed spheres).
    pub fn spheres_replaced(&self) -> usize {
        self.spheres().1
    }

    /// Every triangle's bounding sphere, and how many of the file's were
    /// replaced (built on the first call).
    fn spheres(&self) -> &(Vec<Vec4>, usize) {
        self.spheres.get_or_init(|| self.build_spheres())
    }

    /// A file's spheres, each checked (one that does not enclose its
    /// triangle is recomputed and counted), or computed ones.
    #[cold]
    #[inline(never)]
    fn build_spheres(&self) -> (Vec<Vec4>, usize) {
        let mut replaced = 0;
        let corners = |t| self.mesh.corners(t);
        let all = match &self.file_spheres {
            Some(file) => (0..file.len())
                .map(|t| checked_sphere(&corners(t), file[t], &mut replaced))
                .map(Vec4::from_array)
                .collect(),
            None => (0..self.triangle_count())
                .map(|t| Vec4::from_array(triangle_sphere(&corners(t))))
                .collect(),
        };
        (all, replaced)
    }
}

impl Surface {
    /// Updates `best` (squared distance, triangle, point) with the
    /// triangles of `list` not yet seen.
    pub(crate) fn nearest_of(
        &self,
        list: &[u32],
        p: DVec3,
        seen: &mut Visits<'_>,
        best: &mut (f64, u32, DVec3),
    ) {
        for &t in list {
            if !seen.first(t) {
                continue;
            }
            if !self.sphere_within(t, p, best.0) {
                continue;
            }
            let [a, b, c] = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
            let q = closest_on_triangle(p, a, b, c);
            let d2 = q.distance_squared(p);
            if d2 < best.0 || (d2 == best.0 && t < best.1) {
                *best = (d2, t, q);
            }
        }
    }

    /// Whether triangle `t`'s bounding sphere comes within sqrt(`d2`) of p.
    #[inline]
    pub(crate) fn sphere_within(&self, t: u32, p: DVec3, d2: f64) -> bool {
        let s = self.sphere(t as usize).as_dvec4();
        let gap = s.truncate().distance(p) - s.w;
        gap <= 0.0 || gap * gap <= d2
    }

    /// Squared distance from p to triangle `t`, or infinity when its
    /// sphere already lies beyond sqrt(`limit2`).
    pub(crate) fn triangle_distance2(&self, t: u32, p: DVec3, limit2: f64) -> f64 {
        if !self.sphere_within(t, p, limit2) {
            return f64::INFINITY;
        }
        let [a, b, c] = self.mesh.corners(t as usize).map(|v| v.as_dvec3());
        closest_on_triangle(p, a, b, c).distance_squared(p)
    }
}

/// The answer from a search's best (squared distance, triangle, point):
/// none when no triangle was found, an error when the distance is beyond
/// f32's range.
pub(crate) fn closest_answer(best: (f64, u32, DVec3)) -> Result<Option<ClosestPoint>, QueryError> {
    if best.1 == u32::MAX {
        return Ok(None);
    }
    let distance = best.0.sqrt() as f32;
    if !distance.is_finite() {
        return Err(QueryError::DistanceOverflow);
    }
    Ok(Some(ClosestPoint {
        point: best.2.as_vec3(),
        distance,
        triangle: best.1,
    }))
}

/// Indices in range and coordinates finite.
pub(crate) fn check_mesh(mesh: &TriMesh) -> Result<(), ColliderError> {
    if let Some(i) = mesh.vertices.iter().position(|v| !v.is_finite()) {
        return Err(ColliderError::NonFiniteVertex(i));
    }
    let count = mesh.vertices.len();
    for (triangle, t) in mesh.triangles.iter().enumerate() {
        if let Some(&vertex) = t.iter().find(|&&i| i as usize >= count) {
            return Err(ColliderError::VertexIndex {
                triangle,
                vertex,
                count,
            });
        }
    }
    Ok(())
}

/// The file's sphere when it encloses the triangle, else a computed one.
fn checked_sphere(c: &[Vec3; 3], s: [f32; 4], replaced: &mut usize) -> [f32; 4] {
    let centre = DVec3::new(s[0].into(), s[1].into(), s[2].into());
    let ok = s.iter().all(|v| v.is_finite()) && enclosing_radius(c, centre) <= f64::from(s[3]);
    if ok {
        s
    } else {
        *replaced += 1;
        triangle_sphere(c)
    }
}

/// A point farther than this many times the mesh's half-diagonal from its
/// centre is answered exactly (2^20: nearer, the squared distances'
/// rounding, 2^-52 of them, stays under 2^-32 of the mesh's size, far
/// below its f32 coordinates' own).
pub(crate) const FAR: f64 = (1u64 << 20) as f64;

/// The centre of the box `bounds` and the square of [`FAR`] times its
/// half-diagonal: a point whose squared distance from the centre exceeds
/// it is far (found once per mesh, so a query takes no square root).
pub(crate) fn far_reach(bounds: (Vec3, Vec3)) -> (DVec3, f64) {
    let (lo, hi) = (bounds.0.as_dvec3(), bounds.1.as_dvec3());
    let reach = FAR * 0.5;
    (
        (lo + hi) * 0.5,
        (hi - lo).length_squared() * (reach * reach),
    )
}
