//! A ray's walk through the grid (the DDA of `kernels::dda`): each cell's
//! packets tested with the kernel, a crowded cell's sub-grid walked in
//! turn, the walk ended as soon as no later cell can hold a nearer hit
//! (`docs/queries.md`, "Rays and segments").

use glam::DVec3;

use super::GridIndex;
use super::ray_grid::{RayCell, RayGrid};
use super::sub_grid::SubGrid;
use crate::index::prep::Line;
use crate::kernels::dda::{GridWalk, until_limit};
use crate::kernels::dispatch::Task;
use crate::kernels::kernel::Kernel;
use crate::kernels::packet::NO_TRIANGLE;
#[cfg(test)]
use crate::kernels::packet::Packet;
use crate::kernels::ray_triangle::{FrameInputs, LaneRay, MakeFrame};

impl GridIndex {
    /// [`GridIndex::walk`] compiled for the kernel's instruction set (a
    /// closure does not take its caller's target features, so the walk is
    /// always reached through a function that has them). The line goes
    /// as six numbers, not as a `&Line`: the caller stored the `Line` it
    /// had just made in pieces that the walk's first loads straddled, and
    /// a load that spans two stores still in flight waits for both to
    /// reach the cache (a failed store-to-load forward, on every ray).
    #[inline(always)]
    pub(crate) fn walk_compiled<K: Kernel>(
        &self,
        k: K,
        frame: FrameInputs<'_>,
        ray: &Line,
        max_toi: f32,
    ) -> (f32, u32) {
        let (o, d) = (ray.o, ray.d);
        k.compiled(Walk {
            index: self,
            frame,
            o: [o.x, o.y, o.z],
            d: [d.x, d.y, d.z],
            max_toi,
        })
    }

    /// The walk with kernel `K`: the nearest (time, triangle) found.
    #[inline(always)]
    pub(crate) fn walk<K: Kernel>(
        &self,
        k: K,
        frame: FrameInputs<'_>,
        ray: &Line,
        max_toi: f32,
    ) -> (f32, u32) {
        let mut best = (max_toi, NO_TRIANGLE);
        let (o, d) = (ray.o, ray.d);
        let t_max = f64::from(max_toi);
        // The grid's packets, built on the first walk.
        let g = self.ray_grid();
        if d.cmpeq(DVec3::ZERO).any() {
            let f = &LaneRay::new(&frame.make(), k.token());
            self.walk_still_axis(k, g, f, ray, t_max, &mut best);
        } else {
            match &g.occupancy {
                Some(occ) => k.walk_occupied_ray(occ, o, d, t_max, frame, |f, cell, _| {
                    self.test_cell(k, g, f, cell, ray, &mut best)
                }),
                None => k.walk_moving_ray(&self.frame, o, d, t_max, frame, |f, cell, _| {
                    self.visit_cell(k, g, f, cell, ray, &mut best)
                }),
            }
        }
        best
    }

    /// The walk of a ray with a still axis, out of the main path. (A ray
    /// lying exactly in an interior cell-face plane walks one layer: any
    /// triangle it crosses has its crossing point in the plane, so it
    /// touches the cells on both sides and is listed in both.)
    #[inline(never)]
    fn walk_still_axis<K: Kernel>(
        &self,
        k: K,
        g: &RayGrid,
        f: &LaneRay<'_, K::V>,
        ray: &Line,
        t_max: f64,
        best: &mut (f32, u32),
    ) {
        if let Some(walk) = GridWalk::new(&self.frame, ray.o, ray.d, 0.0, t_max) {
            walk.visit(until_limit(|cell, _| {
                self.visit_cell(k, g, f, cell, ray, best)
            }));
        }
    }

    /// One cell of the walk: skipped when empty, else [`GridIndex::test_cell`].
    #[inline(always)]
    fn visit_cell<K: Kernel>(
        &self,
        k: K,
        g: &RayGrid,
        f: &LaneRay<'_, K::V>,
        cell: usize,
        ray: &Line,
        best: &mut (f32, u32),
    ) -> f64 {
        debug_assert!(cell < g.ray_cells.len() && cell / 64 < g.occupied.len());
        // Most cells are empty: one bit, in a small array, says so. (A
        // walk over `self.frame` yields only cells of its grid, which
        // `occupied` covers: the index never fails.)
        let word = g.occupied[cell / 64];
        if (word >> (cell % 64)) & 1 == 0 {
            return f64::INFINITY;
        }
        self.test_cell(k, g, f, cell, ray, best)
    }

    /// An occupied cell of the walk (the walk checked, or
    /// [`GridIndex::visit_cell`]): its packets tested, or its sub-grid
    /// walked when crowded. Returns the time from which on no cell is
    /// wanted: just past the best hit (a cell entered beyond it cannot hold
    /// a nearer one). The tests run out of line, so the walk's loop keeps
    /// its state in registers.
    #[inline(always)]
    fn test_cell<K: Kernel>(
        &self,
        k: K,
        g: &RayGrid,
        f: &LaneRay<'_, K::V>,
        cell: usize,
        ray: &Line,
        best: &mut (f32, u32),
    ) -> f64 {
        debug_assert!(cell < g.ray_cells.len());
        // A walk over `self.frame` yields only cells of its grid, which
        // `ray_cells` covers, and its runs of `packets` are those
        // `RayGrid::new` packed: the indexes never fail.
        match g.ray_cells[cell] {
            RayCell::Packets { first, end } => {
                let packets = &g.packets[first as usize..end as usize];
                k.test_packets(f, packets, best);
            }
            RayCell::SubGrid(sub) => {
                self.walk_sub_grid(k, f, &g.sub_grids[sub as usize], ray, best)
            }
        }
        just_above(best.0)
    }

    /// A crowded cell: walk its own grid, which spans its triangles (a ray
    /// missing them all skips the list). Out of line, compiled for the
    /// kernel's instruction set.
    #[inline(always)]
    fn walk_sub_grid<K: Kernel>(
        &self,
        k: K,
        f: &LaneRay<'_, K::V>,
        sub: &SubGrid,
        ray: &Line,
        best: &mut (f32, u32),
    ) {
        k.apart(SubGridWalk {
            index: self,
            f,
            sub,
            ray,
            best,
        });
    }

    /// The body of [`GridIndex::walk_sub_grid`]: a second DDA over the
    /// sub-grid for t in [0, best so far], each sub-cell entered after the
    /// best hit left out.
    #[inline(always)]
    fn sub_grid_walk<K: Kernel>(
        &self,
        k: K,
        f: &LaneRay<'_, K::V>,
        sub: &SubGrid,
        ray: &Line,
        best: &mut (f32, u32),
    ) {
        let (o, d) = (ray.o, ray.d);
        let g = sub;
        let t1 = f64::from(best.0);
        let visit = |s, _| {
            let packets = g.packets(s);
            if packets.is_empty() {
                return f64::INFINITY;
            }
            k.test_packets(f, packets, best);
            just_above(best.0)
        };
        if d.cmpeq(DVec3::ZERO).any() {
            if let Some(inner) = GridWalk::new(&g.frame, o, d, 0.0, t1) {
                inner.visit(until_limit(visit));
            }
        } else {
            k.walk_moving(&g.frame, o, d, 0.0, t1, visit);
        }
    }

    /// Cell `i`'s list as ray-kernel packets (none for a crowded cell:
    /// its sub-grid holds them).
    #[cfg(test)]
    pub(crate) fn cell_packets(&self, i: usize) -> &[Packet] {
        let g = self.ray_grid();
        match g.ray_cells[i] {
            RayCell::Packets { first, end } => &g.packets[first as usize..end as usize],
            RayCell::SubGrid(_) => &[],
        }
    }
}

/// [`GridIndex::walk`] waiting for its kernel: the line as six numbers
/// ([`GridIndex::walk_compiled`]).
struct Walk<'a, 'f> {
    index: &'a GridIndex,
    frame: FrameInputs<'f>,
    o: [f64; 3],
    d: [f64; 3],
    max_toi: f32,
}

impl<K: Kernel> Task<K> for Walk<'_, '_> {
    type Out = (f32, u32);
    #[inline(always)]
    fn run(self, k: K) -> (f32, u32) {
        let ray = Line::new(DVec3::from_array(self.o), DVec3::from_array(self.d));
        self.index.walk(k, self.frame, &ray, self.max_toi)
    }
}

/// [`GridIndex::sub_grid_walk`] waiting for its kernel (the ray's lanes
/// made for it).
struct SubGridWalk<'a, 'r, K: Kernel> {
    index: &'a GridIndex,
    f: &'a LaneRay<'r, K::V>,
    sub: &'a SubGrid,
    ray: &'a Line,
    best: &'a mut (f32, u32),
}

impl<K: Kernel> Task<K> for SubGridWalk<'_, '_, K> {
    type Out = ();
    #[inline(always)]
    fn run(self, k: K) {
        self.index
            .sub_grid_walk(k, self.f, self.sub, self.ray, self.best);
    }
}

/// The walk's limit after a best hit at `t` (not NaN): the next f64
/// above it, so that a cell entered at `t` is still visited and one
/// entered after it is not; +inf for +inf. (A widened f32 has its low 29
/// bits clear: setting the lowest is the step up for t >= 0; the same bit
/// steps a negative `t` down, where no hit can be.)
#[inline(always)]
fn just_above(t: f32) -> f64 {
    f64::from_bits(f64::from(t).to_bits() | 1).min(f64::INFINITY)
}
