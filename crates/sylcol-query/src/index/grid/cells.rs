//! The cells a ray's grid walk visits — what the viewer draws beside a
//! ray's answer. The same walk a cast through the grid takes (the DDA
//! over the grid; a ray lying in a cell face walks one layer, as the
//! crossings it can meet there are listed on both sides), stopped at the
//! hit or at `max`.

use super::GridIndex;
use crate::error::QueryError;
use crate::kernels::dda::GridWalk;
use crate::query::{Ray, finite};

impl GridIndex {
    /// The cells (x, y, z) the walk of `ray` visits for 0 <= t <= `max`,
    /// in walk order without repeats. Stop `max` at the hit's time to get
    /// the cells a cast looked at before it found its answer. A mesh small
    /// enough to be cast against without the grid
    /// (64 triangles or fewer) still reports the
    /// cells its grid walk would visit.
    pub fn ray_cells(&self, ray: &Ray, max: f32) -> Result<Vec<[usize; 3]>, QueryError> {
        finite(ray.origin, "ray origin")?;
        finite(ray.dir, "ray direction")?;
        if ray.dir == glam::Vec3::ZERO {
            return Err(QueryError::ZeroDirection("ray"));
        }
        if max.is_nan() || max < 0.0 {
            return Ok(Vec::new());
        }
        let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
        let walk = GridWalk::new(&self.frame, o, d, 0.0, f64::from(max));
        // A DDA visits each cell once.
        Ok(walk
            .into_iter()
            .flatten()
            .map(|step| self.spec.coords(step.cell))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Collider;
    use crate::fixtures::cuboid;
    use glam::Vec3;

    #[test]
    fn an_axis_ray_visits_one_row_up_to_its_hit() {
        let c = Collider::from_mesh(&cuboid(Vec3::splat(-1.0), Vec3::ONE))
            .unwrap()
            .with_derived_grid(4)
            .unwrap();
        let ray = Ray::new(Vec3::new(-0.9, -0.3, -0.3), Vec3::X);
        let hit = c.cast_ray(&ray, f32::INFINITY).unwrap().unwrap();
        let cells = c.ray_cells(&ray, hit.time_of_impact).unwrap();
        let rows: Vec<usize> = cells.iter().map(|c| c[0]).collect();
        assert_eq!(rows, [0, 1, 2, 3]);
        assert!(
            cells
                .iter()
                .all(|c| c[1] == cells[0][1] && c[2] == cells[0][2])
        );
        let short = c.ray_cells(&ray, 0.5).unwrap();
        assert_eq!(short.len(), 2);
        assert!(c.ray_cells(&Ray::new(Vec3::ZERO, Vec3::ZERO), 1.0).is_err());
    }
}
