//! Rays and segments: the DDA walk, the cells' list tests, and the cell
//! t-range rule that keeps the first hit exact.

use glam::{DVec3, Vec3};

use super::bvh::{BVH_MIN_TRIANGLES, Bvh};
use super::bvh_walk::{BoxKernel, BoxRay};
use super::collider::RayCell;
use super::grid_walk::{GridWalk, until_limit};
use super::ray_grid::RayGrid;
#[cfg(target_arch = "x86_64")]
use super::ray_triangle::Avx;
use super::ray_triangle::{
    Cast as Exact, FrameInputs, Kernel, LANES, LaneRay, MakeFrame, NO_TRIANGLE, Packet, Portable,
    RayFrame,
};
#[cfg(target_arch = "x86_64")]
use super::ray_triangle_avx::W8;
use super::sub_grid::SubGrid;
use super::{Collider, QueryError, Ray, RayHit, finite};

/// Meshes with at most this many triangles are cast against without the
/// grid: one or two packets (at most `BVH_MIN_TRIANGLES`) are tested
/// directly, more through a BVH of their own, built on the first ray.
pub const SMALL_MESH: usize = 64;

/// How a cast reaches the triangles.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'a> {
    /// Every packet, each triangle once (a mesh of one or two packets,
    /// and the brute force).
    Scan,
    /// A BVH: [`Collider::with_bvh`]'s, or a small mesh's own.
    Tree(&'a Bvh),
    /// The grid walk.
    Grid,
}

impl Collider {
    /// The first surface crossing of `ray` with 0 < t <= `max_toi` (the
    /// game's LINE check), or `None`. From inside a solid this is where
    /// the ray leaves it. Ties at one t go to the lowest triangle index.
    ///
    /// A hit whose time of impact exceeds `f32::MAX` (a direction far
    /// shorter than the distance to the hit) cannot be reported:
    /// [`QueryError::TimeOverflow`].
    pub fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        representable(self.first_hit(ray, max_toi, Cast::Ray))
    }

    /// The first crossing of the segment `from -> to`; `time_of_impact`
    /// is the fraction of the way, in (0, 1]. `to - from` must be finite
    /// in f32.
    pub fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError> {
        finite(from, "segment start")?;
        finite(to, "segment end")?;
        let dir = to - from;
        if dir == Vec3::ZERO {
            return Err(QueryError::ZeroDirection("segment"));
        }
        finite(dir, "segment's end minus its start")?;
        Ok(self.first_hit(&Ray::new(from, dir), 1.0, Cast::Segment(to)))
    }

    /// Whether the segment `from -> to` crosses the surface at t in (0, 1].
    pub fn intersects_segment(&self, from: Vec3, to: Vec3) -> Result<bool, QueryError> {
        self.cast_segment(from, to).map(|h| h.is_some())
    }

    /// The first hit for validated input, by the collider's [`Route`].
    #[inline(always)]
    pub(crate) fn first_hit(&self, ray: &Ray, max_toi: f32, cast: Cast) -> Option<RayHit> {
        self.cast_with(ray, max_toi, cast, self.route())
    }

    /// How this collider's rays reach the triangles: through the BVH of
    /// [`Collider::with_bvh`] when it has one; else, for a mesh of at
    /// most [`SMALL_MESH`] triangles, by testing its one or two packets
    /// or through a BVH of its own (built on the first ray: on the
    /// 60-triangle map 2cf7eb47 it beats the scan of eight packets, 84
    /// against 91 ns a ray, as the scan beats the grid walk there); else
    /// through the grid.
    #[inline(always)]
    pub(crate) fn route(&self) -> Route<'_> {
        let n = self.triangle_count();
        match &self.bvh {
            Some(bvh) => Route::Tree(bvh),
            None if n <= BVH_MIN_TRIANGLES => Route::Scan,
            None if n <= SMALL_MESH => Route::Tree(self.small_bvh()),
            None => Route::Grid,
        }
    }

    /// The first hit through the grid walk, whatever the mesh's size.
    #[cfg(test)]
    pub(crate) fn walked(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        self.cast_with(ray, max_toi, Cast::Ray, Route::Grid)
    }

    /// The first hit by `route`. The kernel's function returns (time of
    /// impact, triangle) in a register and the record is made here: a
    /// record written by the callee and copied by the caller was read back
    /// before its stores had landed, a stall on every ray.
    #[inline(always)]
    fn cast_with(&self, ray: &Ray, max_toi: f32, cast: Cast, route: Route<'_>) -> Option<RayHit> {
        let (toi, id) = self.nearest(ray, max_toi, cast, route);
        self.hit_at(ray, toi, id)
    }

    /// The nearest (time of impact, triangle) by `route`, with the AVX
    /// kernel where the CPU has it. A direction far from unit length is
    /// scaled by a power of two first (exactly; t scales back exactly),
    /// which keeps the kernel's f32 depths in range.
    #[inline(always)]
    fn nearest(&self, ray: &Ray, max_toi: f32, cast: Cast, route: Route<'_>) -> (f32, u32) {
        #[cfg(target_arch = "x86_64")]
        if self.avx.is_some() {
            // SAFETY: an `Avx2` exists only where the CPU has AVX and AVX2.
            return unsafe { self.cast_avx(ray, max_toi, cast, route) };
        }
        self.cast_portable(ray, max_toi, cast, route)
    }

    /// [`Collider::nearest`] with the portable kernel (out of line: the
    /// AVX path's callers stay small).
    #[inline(never)]
    fn cast_portable(&self, ray: &Ray, max_toi: f32, cast: Cast, route: Route<'_>) -> (f32, u32) {
        self.cast_kernel::<Portable>(field_by_field(ray), max_toi, cast, route)
    }

    /// [`Collider::nearest`] compiled for AVX and AVX2 (the frame and the
    /// walk in one function).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn cast_avx(&self, ray: &Ray, max_toi: f32, cast: Cast, route: Route<'_>) -> (f32, u32) {
        self.cast_kernel::<Avx>(field_by_field(ray), max_toi, cast, route)
    }

    /// [`Collider::nearest`] with kernel `K`: the nearest (time of
    /// impact, triangle), [`NO_TRIANGLE`] for none. The ray comes by
    /// value: each caller chooses how it is read from memory.
    #[inline(always)]
    fn cast_kernel<K: BoxKernel>(
        &self,
        ray: Ray,
        max_toi: f32,
        cast: Cast,
        route: Route<'_>,
    ) -> (f32, u32) {
        // Taken apart, so that only `exact` is borrowed and the rest stays
        // in registers (through `Scaled::frame` the whole of it went
        // through memory: 14-28 more instructions a ray).
        let Scaled {
            origin,
            scale,
            dir,
            max,
            exact,
        } = Scaled::new(&ray, max_toi, cast);
        // Each route makes the watertight frame where it needs it: the
        // walks after their first loads (`FrameInputs`), the scan at once
        // (its inputs then stay in registers; read back from where the
        // other routes' inputs were stored, the box maps' rays took 20 %
        // longer).
        let frame = FrameInputs {
            o: origin,
            d: dir,
            limit: max,
            cast: &exact,
            bounds: self.bounds,
        };
        let best = match route {
            Route::Scan => {
                let frame = RayFrame::new(origin, dir, max, &exact, self.bounds);
                self.scan::<K>(&LaneRay::new(&frame), max)
            }
            // The walk inlined here, compiled for this kernel: no call
            // between the frame and the root (the walk makes the frame
            // after the root's test).
            Route::Tree(bvh) => bvh.walk::<K>(&BoxRay::new(origin, dir), max, frame),
            Route::Grid => {
                // A segment's cells are those of its exact direction (its
                // f32 direction may end a hair short of the cell of its
                // end).
                let d = match cast {
                    Cast::Ray => dir.as_dvec3(),
                    Cast::Segment(to) => (to.as_dvec3() - origin.as_dvec3()) * f64::from(scale),
                };
                self.walk_compiled::<K>(frame, &Line::new(origin.as_dvec3(), d), max)
            }
        };
        (best.0 * scale, best.1)
    }

    /// [`Collider::cast_ray`] for each ray of `rays` into `out` (an
    /// unusable ray's slot is left as it was), the loop compiled with the
    /// kernel: on AVX2 every ray's checks, frame and walk in one function,
    /// no call a ray. The first unusable ray's index and error.
    pub(crate) fn cast_run(
        &self,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        #[cfg(target_arch = "x86_64")]
        if self.avx.is_some() {
            // SAFETY: an `Avx2` exists only where the CPU has AVX and AVX2.
            return unsafe { self.cast_run_avx(rays, max_toi, out) };
        }
        self.cast_run_kernel::<Portable>(rays, max_toi, out)
    }

    /// [`Collider::cast_run`] compiled for AVX and AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn cast_run_avx(
        &self,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        self.cast_run_kernel::<Avx>(rays, max_toi, out)
    }

    /// [`Collider::cast_run`] with kernel `K`.
    #[inline(always)]
    fn cast_run_kernel<K: BoxKernel>(
        &self,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        let route = self.route();
        let mut first = None;
        for (i, (ray, slot)) in rays.iter().zip(out).enumerate() {
            match check_ray(ray, max_toi) {
                Ok(()) => {
                    // A slice's rays were written long before: read as
                    // they come (`field_by_field` is for a single ray).
                    let (toi, id) = self.cast_kernel::<K>(*ray, max_toi, Cast::Ray, route);
                    settle_batch_hit(slot, self.hit_at(ray, toi, id), i, &mut first);
                }
                Err(error) => first = first.or(Some((i, error))),
            }
        }
        first
    }

    /// [`Collider::walk`] compiled for the kernel's instruction set (a
    /// closure does not take its caller's target features, so the walk is
    /// always reached through a function that has them).
    #[inline(always)]
    fn walk_compiled<K: Kernel>(
        &self,
        frame: FrameInputs<'_>,
        ray: &Line,
        max_toi: f32,
    ) -> (f32, u32) {
        #[cfg(target_arch = "x86_64")]
        if K::IS_AVX {
            let (o, d) = (ray.o, ray.d);
            // SAFETY: the AVX kernel runs only where the CPU has AVX and
            // AVX2.
            return unsafe { self.walk_avx(&frame, o.x, o.y, o.z, d.x, d.y, d.z, max_toi) };
        }
        self.walk::<K>(frame, ray, max_toi)
    }

    /// The walk compiled for AVX and AVX2, eight lanes a packet. The line
    /// comes as six numbers, in registers, not as a `&Line`: the caller
    /// stored the `Line` it had just made in pieces that the walk's first
    /// loads straddled, and a load that spans two stores still in flight
    /// waits for both to reach the cache (a failed store-to-load forward,
    /// on every ray). (The frame's inputs come by reference: passed as
    /// numbers too, they made no difference.)
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    #[allow(clippy::too_many_arguments)] // six scalars: see above
    fn walk_avx(
        &self,
        frame: &FrameInputs<'_>,
        ox: f64,
        oy: f64,
        oz: f64,
        dx: f64,
        dy: f64,
        dz: f64,
        max_toi: f32,
    ) -> (f32, u32) {
        let ray = Line::new(DVec3::new(ox, oy, oz), DVec3::new(dx, dy, dz));
        self.walk::<Avx>(*frame, &ray, max_toi)
    }

    /// The walk with kernel `K`: the nearest (time, triangle) found.
    #[inline(always)]
    pub(crate) fn walk<K: Kernel>(
        &self,
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
            let f = &LaneRay::new(&frame.make());
            self.walk_still_axis::<K>(g, f, ray, t_max, &mut best);
        } else {
            match &g.occupancy {
                Some(occ) => {
                    K::walk_occupied_ray(&self.frame, occ, o, d, t_max, frame, |f, cell, _| {
                        self.test_cell::<K>(g, f, cell, ray, &mut best)
                    })
                }
                None => K::walk_moving_ray(&self.frame, o, d, t_max, frame, |f, cell, _| {
                    self.visit_cell::<K>(g, f, cell, ray, &mut best)
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
        g: &RayGrid,
        k: &LaneRay<'_, K::V>,
        ray: &Line,
        t_max: f64,
        best: &mut (f32, u32),
    ) {
        if let Some(walk) = GridWalk::new(&self.frame, ray.o, ray.d, 0.0, t_max) {
            walk.visit(until_limit(|cell, _| {
                self.visit_cell::<K>(g, k, cell, ray, best)
            }));
        }
    }

    /// One cell of the walk: skipped when empty, else [`Collider::test_cell`].
    #[inline(always)]
    fn visit_cell<K: Kernel>(
        &self,
        g: &RayGrid,
        k: &LaneRay<'_, K::V>,
        cell: usize,
        ray: &Line,
        best: &mut (f32, u32),
    ) -> f64 {
        debug_assert!(cell < g.ray_cells.len() && cell / 64 < g.occupied.len());
        // Most cells are empty: one bit, in a small array, says so.
        // SAFETY: a walk over `self.frame` yields only cells of its grid,
        // and `occupied` covers every cell of it (made from the grid's
        // lists, one per cell, in `RayGrid::new`).
        let word = unsafe { *g.occupied.get_unchecked(cell / 64) };
        if (word >> (cell % 64)) & 1 == 0 {
            return f64::INFINITY;
        }
        self.test_cell::<K>(g, k, cell, ray, best)
    }

    /// An occupied cell of the walk (the walk checked, or
    /// [`Collider::visit_cell`]): its packets tested, or its sub-grid
    /// walked when crowded. Returns the time from which on no cell is
    /// wanted: just past the best hit (a cell entered beyond it cannot hold
    /// a nearer one). The tests run out of line, so the walk's loop keeps
    /// its state in registers.
    #[inline(always)]
    fn test_cell<K: Kernel>(
        &self,
        g: &RayGrid,
        k: &LaneRay<'_, K::V>,
        cell: usize,
        ray: &Line,
        best: &mut (f32, u32),
    ) -> f64 {
        debug_assert!(cell < g.ray_cells.len());
        // SAFETY: a walk over `self.frame` yields only cells of its grid,
        // `ray_cells` covers every cell of it, and the runs of `packets`
        // are those `RayGrid::new` made.
        match unsafe { *g.ray_cells.get_unchecked(cell) } {
            RayCell::Packets { first, end } => {
                let packets = unsafe { g.packets.get_unchecked(first as usize..end as usize) };
                K::test_packets(k, packets, best);
            }
            RayCell::SubGrid(sub) => {
                self.walk_sub_grid::<K>(k, &g.sub_grids[sub as usize], ray, best)
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
        k: &LaneRay<'_, K::V>,
        sub: &SubGrid,
        ray: &Line,
        best: &mut (f32, u32),
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = K::as_avx(k) {
            // SAFETY: the AVX kernel runs only where the CPU has AVX and
            // AVX2.
            return unsafe { self.walk_sub_grid_avx(k, sub, ray, best) };
        }
        self.walk_sub_grid_portable::<K>(k, sub, ray, best);
    }

    /// [`Collider::walk_sub_grid`] with the AVX kernel and walk.
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    #[target_feature(enable = "avx,avx2")]
    fn walk_sub_grid_avx(
        &self,
        k: &LaneRay<'_, W8>,
        sub: &SubGrid,
        ray: &Line,
        best: &mut (f32, u32),
    ) {
        self.sub_grid_walk::<Avx>(k, sub, ray, best);
    }

    /// [`Collider::walk_sub_grid`] with any other kernel.
    #[inline(never)]
    fn walk_sub_grid_portable<K: Kernel>(
        &self,
        k: &LaneRay<'_, K::V>,
        sub: &SubGrid,
        ray: &Line,
        best: &mut (f32, u32),
    ) {
        self.sub_grid_walk::<K>(k, sub, ray, best);
    }

    /// The body of [`Collider::walk_sub_grid`]: a second DDA over the
    /// sub-grid for t in [0, best so far], each sub-cell entered after the
    /// best hit left out.
    #[inline(always)]
    fn sub_grid_walk<K: Kernel>(
        &self,
        k: &LaneRay<'_, K::V>,
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
            K::test_packets(k, packets, best);
            just_above(best.0)
        };
        if d.cmpeq(DVec3::ZERO).any() {
            if let Some(inner) = GridWalk::new(&g.frame, o, d, 0.0, t1) {
                inner.visit(until_limit(visit));
            }
        } else {
            K::walk_moving(&g.frame, o, d, 0.0, t1, visit);
        }
    }

    /// The hit record of triangle `id` at time of impact `toi` (in the
    /// units of the ray's own direction, not of [`Scaled`]'s), or `None`
    /// for [`NO_TRIANGLE`].
    #[inline(always)]
    pub(crate) fn hit_at(&self, ray: &Ray, toi: f32, id: u32) -> Option<RayHit> {
        (id != NO_TRIANGLE).then(|| RayHit {
            time_of_impact: toi,
            point: ray.point_at(toi),
            normal: self.normals[id as usize],
            triangle: id,
        })
    }

    /// The first hit over every triangle with the same kernel, without the
    /// grid: the reference the grid walk must agree with.
    pub fn cast_ray_brute_force(
        &self,
        ray: &Ray,
        max_toi: f32,
    ) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        representable(self.cast_with(ray, max_toi, Cast::Ray, Route::Scan))
    }

    /// Every packet with kernel `K`: the nearest (time, triangle).
    #[inline(always)]
    pub(crate) fn scan<K: Kernel>(&self, f: &LaneRay<'_, K::V>, max_toi: f32) -> (f32, u32) {
        let mut best = (max_toi, NO_TRIANGLE);
        for p in self.all_packets() {
            take_nearest::<K>(f, p, u32::MAX, &mut best);
        }
        best
    }
}

/// `ray` read one f32 at a time. A caller that has just written the ray
/// wrote it in pieces of its choosing (a copy: 16 bytes and 8); a load
/// that spans two pieces still on their way to the cache waits until both
/// are there, about a dozen cycles, where a load inside one piece takes
/// its value at once. Four bytes lie inside any piece; the volatile reads
/// keep the compiler from merging them into wider loads.
#[inline(always)]
fn field_by_field(ray: &Ray) -> Ray {
    let f = |x: &f32| {
        // SAFETY: a reference to an f32 is valid for a read.
        unsafe { std::ptr::read_volatile(x) }
    };
    let (o, d) = (&ray.origin, &ray.dir);
    Ray::new(
        Vec3::new(f(&o.x), f(&o.y), f(&o.z)),
        Vec3::new(f(&d.x), f(&d.y), f(&d.z)),
    )
}

/// A ray as the kernels take it: its direction scaled by a power of two
/// into range ([`direction_scale`]; t scales back exactly), its limit
/// scaled alike, and its exact form for the predicates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scaled {
    pub origin: Vec3,
    pub scale: f32,
    pub dir: Vec3,
    pub max: f32,
    pub exact: Exact,
}

impl Scaled {
    #[inline(always)]
    pub(crate) fn new(ray: &Ray, max_toi: f32, cast: Cast) -> Self {
        let scale = direction_scale(ray.dir);
        let (dir, max) = if scale == 1.0 {
            (ray.dir, max_toi)
        } else {
            (ray.dir * scale, max_toi / scale)
        };
        let exact = match cast {
            Cast::Ray => Exact::Ray {
                o: ray.origin,
                d: dir,
                limit: max,
            },
            Cast::Segment(to) => Exact::Segment {
                from: ray.origin,
                to,
                scale,
            },
        };
        Scaled {
            origin: ray.origin,
            scale,
            dir,
            max,
            exact,
        }
    }

    /// The ray's frame for the kernels, over a mesh in the box `bounds`.
    #[inline(always)]
    pub(crate) fn frame(&self, bounds: (Vec3, Vec3)) -> RayFrame<'_> {
        RayFrame::new(self.origin, self.dir, self.max, &self.exact, bounds)
    }

    /// The ray for the BVH's slab test.
    #[inline(always)]
    pub(crate) fn boxes(&self) -> BoxRay {
        BoxRay::new(self.origin, self.dir)
    }
}

/// The line a walk follows, in f64.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    o: DVec3,
    d: DVec3,
}

impl Line {
    fn new(o: DVec3, d: DVec3) -> Self {
        Line { o, d }
    }
}

/// What a cast is: a ray (its f32 direction is exact) or a segment to an
/// end point (its exact direction is `end - origin`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cast {
    Ray,
    Segment(Vec3),
}

/// The power of two that brings `d`'s largest component into [1, 2)
/// when it lies outside [2^-8, 2^8] (else 1).
pub(crate) fn direction_scale(d: Vec3) -> f32 {
    const LOW: u32 = 119 << 23; // 2^-8
    const HIGH: u32 = (137 << 23) - 1; // just below 2^9
    let bits = d.abs().max_element().to_bits();
    if bits.wrapping_sub(LOW) <= HIGH - LOW || bits == 0 || bits >= 0x7f80_0000 {
        return 1.0;
    }
    // 2^-e for the exponent e of the largest component (a subnormal one
    // takes 2^126, nearly enough). For e = 127 that is 2^-127, below the
    // normal range: its bits are not `(127 - e) << 23` (which is 0.0,
    // and scaled every direction of 2^127 or more to zero) but the
    // subnormal 2^22 ulps.
    let e = ((bits >> 23) as i32 - 127).clamp(-126, 127);
    if e == 127 {
        return f32::from_bits(1 << 22);
    }
    f32::from_bits(((127 - e) as u32) << 23)
}

/// `hit`, or [`QueryError::TimeOverflow`] where its t overflowed f32
/// (its exact t is beyond `f32::MAX`: the direction is far shorter than
/// the distance).
#[inline(always)]
fn representable(hit: Option<RayHit>) -> Result<Option<RayHit>, QueryError> {
    if hit.is_some_and(|h| h.time_of_impact == f32::INFINITY) {
        return Err(QueryError::TimeOverflow);
    }
    Ok(hit)
}

/// A batch's answer for ray `i`: `hit` in `slot`, or, where its t
/// overflowed ([`representable`]), `slot` left empty and the error kept
/// in `first` unless a lower-index ray's is there.
#[inline(always)]
pub(crate) fn settle_batch_hit(
    slot: &mut Option<RayHit>,
    hit: Option<RayHit>,
    i: usize,
    first: &mut Option<(usize, QueryError)>,
) {
    match representable(hit) {
        Ok(hit) => *slot = hit,
        Err(error) => {
            *slot = None;
            if first.is_none_or(|(j, _)| i < j) {
                *first = Some((i, error));
            }
        }
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

/// Tests every lane of a list's packets (no mailbox), keeping the nearest
/// hit in `best`: the body of [`Kernel::test_packets`].
#[inline(always)]
pub(crate) fn test_packets<K: Kernel>(
    f: &LaneRay<'_, K::V>,
    packets: &[Packet],
    best: &mut (f32, u32),
) {
    if let [p] = packets {
        take_nearest::<K>(f, p, u32::MAX, best);
        return;
    }
    for p in packets {
        take_nearest::<K>(f, p, u32::MAX, best);
    }
}

/// Tests the `lanes` of packet `p` and keeps the nearest hit in `best`
/// (time, triangle); a tie in time goes to the lower triangle index.
#[inline(always)]
pub(crate) fn take_nearest<K: Kernel>(
    f: &LaneRay<'_, K::V>,
    p: &Packet,
    lanes: u32,
    best: &mut (f32, u32),
) {
    K::take_nearest(f, p, lanes, best);
}

/// Keeps in `best` the nearest of the lanes `mask` of packet `p` hit at
/// times `t`: the body of [`Kernel::take_nearest`].
#[inline(always)]
pub(crate) fn keep_nearest(t: &[f32; LANES], mut mask: u32, p: &Packet, best: &mut (f32, u32)) {
    while mask != 0 {
        // A lane below LANES (the mask has LANES bits): no bounds check.
        let lane = mask.trailing_zeros() as usize & (LANES - 1);
        mask &= mask - 1;
        let (tl, id) = (t[lane], p.ids[lane]);
        if tl < best.0 || (tl == best.0 && id < best.1) {
            *best = (tl, id);
        }
    }
}

/// A finite origin, a finite, non-zero direction and a max that is not
/// NaN: on the bits, the largest magnitude of each vector below that of
/// +inf (and the direction's above 0), the max's not above it.
#[inline(always)]
pub(crate) fn check_ray(ray: &Ray, max_toi: f32) -> Result<(), QueryError> {
    const ABS: u32 = 0x7fff_ffff;
    const INF: u32 = 0x7f80_0000;
    let largest = |v: Vec3| {
        (v.x.to_bits() & ABS)
            .max(v.y.to_bits() & ABS)
            .max(v.z.to_bits() & ABS)
    };
    let (o, d) = (largest(ray.origin), largest(ray.dir));
    if o < INF && d.wrapping_sub(1) < INF - 1 && max_toi.to_bits() & ABS <= INF {
        return Ok(());
    }
    ray_error(ray, max_toi)
}

/// What is wrong with a ray [`check_ray`] refused (the first of its
/// checks that fails, in order).
#[cold]
#[inline(never)]
fn ray_error(ray: &Ray, max_toi: f32) -> Result<(), QueryError> {
    finite(ray.origin, "ray origin")?;
    finite(ray.dir, "ray direction")?;
    if ray.dir == Vec3::ZERO {
        return Err(QueryError::ZeroDirection("ray direction"));
    }
    if max_toi.is_nan() {
        return Err(QueryError::NonFinite("max time of impact"));
    }
    Ok(())
}
