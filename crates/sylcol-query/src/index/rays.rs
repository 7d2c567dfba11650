//! Rays and segments: how a prepared ray reaches the triangles (a
//! [`Route`]: the scan of a small mesh's packets, a BVH, or the grid
//! walk), with the AVX2 kernels where the CPU has them, and the hit's
//! record. [`RayCast`] for [`GridIndex`] is the grid walk's answer; the
//! `Collider` chooses a route per mesh.

use glam::Vec3;

use super::bvh::stream::Prepared;
use super::bvh::tree::Bvh;
use super::grid::GridIndex;
use super::prep::{Cast, Line, Scaled, check_ray, field_by_field, representable, settle_batch_hit};
use crate::error::QueryError;
use crate::kernels::dispatch::Task;
use crate::kernels::kernel::Kernel;
use crate::kernels::packet::{NO_TRIANGLE, Packet};
use crate::kernels::ray_triangle::{FrameInputs, LaneRay, RayFrame};
use crate::kernels::slab::{BoxKernel, BoxRay};
use crate::query::{Ray, RayCast, RayHit, finite};

/// How a cast reaches the triangles.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'a> {
    /// Every packet, each triangle once (a mesh of one or two packets,
    /// and the brute force).
    Scan(&'a Vec<Packet>),
    /// A BVH: `Collider::with_bvh`'s, or a small mesh's own.
    Tree(&'a Bvh),
    /// The grid walk.
    Grid,
}

impl RayCast for GridIndex {
    /// The first surface crossing of `ray` with 0 < t <= `max_toi` through
    /// the grid walk, whatever the mesh's size (the `Collider` scans a
    /// small mesh instead, which also sees a triangle the lists leave
    /// out). A hit whose time of impact exceeds `f32::MAX` cannot be
    /// reported: [`QueryError::TimeOverflow`].
    fn cast_ray(&self, ray: &Ray, max_toi: f32) -> Result<Option<RayHit>, QueryError> {
        self.cast_ray_by(ray, max_toi, Route::Grid)
    }

    fn cast_segment(&self, from: Vec3, to: Vec3) -> Result<Option<RayHit>, QueryError> {
        self.cast_segment_by(from, to, Route::Grid)
    }
}

impl GridIndex {
    /// [`RayCast::cast_ray`] by `route` (over this index's surface).
    #[inline(always)]
    pub(crate) fn cast_ray_by(
        &self,
        ray: &Ray,
        max_toi: f32,
        route: Route<'_>,
    ) -> Result<Option<RayHit>, QueryError> {
        check_ray(ray, max_toi)?;
        representable(self.cast_with(ray, max_toi, Cast::Ray, route))
    }

    /// [`RayCast::cast_segment`] by `route`: `to - from` must be finite
    /// in f32.
    pub(crate) fn cast_segment_by(
        &self,
        from: Vec3,
        to: Vec3,
        route: Route<'_>,
    ) -> Result<Option<RayHit>, QueryError> {
        finite(from, "segment start")?;
        finite(to, "segment end")?;
        let dir = to - from;
        if dir == Vec3::ZERO {
            return Err(QueryError::ZeroDirection("segment"));
        }
        finite(dir, "segment's end minus its start")?;
        Ok(self.cast_with(&Ray::new(from, dir), 1.0, Cast::Segment(to), route))
    }

    /// The first hit by `route`. The kernel's function returns (time of
    /// impact, triangle) in a register and the record is made here: a
    /// record written by the callee and copied by the caller was read back
    /// before its stores had landed, a stall on every ray.
    #[inline(always)]
    pub(crate) fn cast_with(
        &self,
        ray: &Ray,
        max_toi: f32,
        cast: Cast,
        route: Route<'_>,
    ) -> Option<RayHit> {
        let (toi, id) = self.nearest(ray, max_toi, cast, route);
        self.hit_at(ray, toi, id)
    }

    /// The nearest (time of impact, triangle) by `route`, with the
    /// index's kernels (the widest the CPU runs, unless chosen). A direction far from unit length is
    /// scaled by a power of two first (exactly; t scales back exactly),
    /// which keeps the kernel's f32 depths in range.
    #[inline(always)]
    fn nearest(&self, ray: &Ray, max_toi: f32, cast: Cast, route: Route<'_>) -> (f32, u32) {
        self.kernels.run(Nearest {
            index: self,
            ray,
            max_toi,
            cast,
            route,
        })
    }

    /// [`GridIndex::nearest`] with kernel `k`: the nearest (time of
    /// impact, triangle), [`NO_TRIANGLE`] for none. The ray comes by
    /// value: each caller chooses how it is read from memory.
    #[inline(always)]
    fn cast_kernel<K: BoxKernel>(
        &self,
        k: K,
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
        let bounds = self.surface.bounds;
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
            bounds,
        };
        let best = match route {
            Route::Scan(packets) => {
                let frame = RayFrame::new(origin, dir, max, &exact, bounds);
                scan(k, &LaneRay::new(&frame, k.token()), packets, max)
            }
            // The walk inlined here, compiled for this kernel: no call
            // between the frame and the root (the walk makes the frame
            // after the root's test).
            Route::Tree(bvh) => bvh.walk(k, &BoxRay::new(origin, dir), max, frame),
            Route::Grid => {
                // A segment's cells are those of its exact direction (its
                // f32 direction may end a hair short of the cell of its
                // end).
                let d = match cast {
                    Cast::Ray => dir.as_dvec3(),
                    Cast::Segment(to) => (to.as_dvec3() - origin.as_dvec3()) * f64::from(scale),
                };
                self.walk_compiled(k, frame, &Line::new(origin.as_dvec3(), d), max)
            }
        };
        (best.0 * scale, best.1)
    }

    /// [`RayCast::cast_ray`] by `route` for each ray of `rays` into `out`
    /// (an unusable ray's slot is left as it was), the loop compiled with
    /// the kernel: on AVX2 every ray's checks, frame and walk in one
    /// function, no call a ray. The first unusable ray's index and error.
    pub(crate) fn cast_run(
        &self,
        rays: &[Ray],
        max_toi: f32,
        route: Route<'_>,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        self.kernels.run(CastRun {
            index: self,
            rays,
            max_toi,
            route,
            out,
        })
    }

    /// [`GridIndex::cast_run`] with kernel `k`.
    #[inline(always)]
    fn cast_run_kernel<K: BoxKernel>(
        &self,
        k: K,
        rays: &[Ray],
        max_toi: f32,
        route: Route<'_>,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        let mut first = None;
        for (i, (ray, slot)) in rays.iter().zip(out).enumerate() {
            match check_ray(ray, max_toi) {
                Ok(()) => {
                    // A slice's rays were written long before: read as
                    // they come (`field_by_field` is for a single ray).
                    let (toi, id) = self.cast_kernel(k, *ray, max_toi, Cast::Ray, route);
                    settle_batch_hit(slot, self.hit_at(ray, toi, id), i, &mut first);
                }
                Err(error) => first = first.or(Some((i, error))),
            }
        }
        first
    }

    /// A run of a batch through a BVH that streams (`bvh`, over this
    /// index's surface), two walks at a time: the answers of its usable
    /// rays to `out`, and the first unusable ray's index (in the run) and
    /// error.
    pub(crate) fn cast_run_streamed(
        &self,
        bvh: &Bvh,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Option<(usize, QueryError)> {
        let mut first = None;
        // The usable rays: (index in the run, the ray as the kernels take it).
        let mut usable = Vec::with_capacity(rays.len());
        for (i, ray) in rays.iter().enumerate() {
            match check_ray(ray, max_toi) {
                Ok(()) => usable.push((i, Scaled::new(ray, max_toi, Cast::Ray))),
                Err(error) => first = first.or(Some((i, error))),
            }
        }
        let prepared: Vec<Prepared<'_>> = usable
            .iter()
            .map(|(_, s)| Prepared::new(s, self.surface.bounds))
            .collect();
        let mut best = vec![(0.0, NO_TRIANGLE); prepared.len()];
        bvh.first_hits(&prepared, &mut best, self.kernels);
        for ((i, s), &b) in usable.iter().zip(&best) {
            let hit = self.hit_at(&rays[*i], b.0 * s.scale, b.1);
            settle_batch_hit(&mut out[*i], hit, *i, &mut first);
        }
        first
    }

    /// The hit record of triangle `id` at time of impact `toi` (in the
    /// units of the ray's own direction, not of [`Scaled`]'s), or `None`
    /// for [`NO_TRIANGLE`].
    #[inline(always)]
    pub(crate) fn hit_at(&self, ray: &Ray, toi: f32, id: u32) -> Option<RayHit> {
        (id != NO_TRIANGLE).then(|| RayHit {
            time_of_impact: toi,
            point: ray.point_at(toi),
            normal: self.surface.normal(id as usize),
            triangle: id,
        })
    }
}

/// [`GridIndex::nearest`] waiting for its kernel.
struct Nearest<'a> {
    index: &'a GridIndex,
    ray: &'a Ray,
    max_toi: f32,
    cast: Cast,
    route: Route<'a>,
}

impl<K: BoxKernel> Task<K> for Nearest<'_> {
    type Out = (f32, u32);
    #[inline(always)]
    fn run(self, k: K) -> (f32, u32) {
        let ray = field_by_field(self.ray);
        self.index
            .cast_kernel(k, ray, self.max_toi, self.cast, self.route)
    }
}

/// [`GridIndex::cast_run`] waiting for its kernel.
struct CastRun<'a> {
    index: &'a GridIndex,
    rays: &'a [Ray],
    max_toi: f32,
    route: Route<'a>,
    out: &'a mut [Option<RayHit>],
}

impl<K: BoxKernel> Task<K> for CastRun<'_> {
    type Out = Option<(usize, QueryError)>;
    #[inline(always)]
    fn run(self, k: K) -> Self::Out {
        self.index
            .cast_run_kernel(k, self.rays, self.max_toi, self.route, self.out)
    }
}

/// Every packet of `packets` with kernel `k`: the nearest (time,
/// triangle).
#[inline(always)]
fn scan<K: Kernel>(k: K, f: &LaneRay<'_, K::V>, packets: &[Packet], max_toi: f32) -> (f32, u32) {
    let mut best = (max_toi, NO_TRIANGLE);
    for p in packets {
        k.take_nearest(f, p, u32::MAX, &mut best);
    }
    best
}
