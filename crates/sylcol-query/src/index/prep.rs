//! A ray made ready for the kernels, shared by every route (the grid
//! walk, the BVH, the scan of a small mesh): its checks, its direction
//! scaled into range, its exact form, and the record of its answer.

use glam::{DVec3, Vec3};

use crate::error::QueryError;
use crate::kernels::ray_triangle::{Cast as Exact, RayFrame, read_alone};
use crate::kernels::slab::BoxRay;
use crate::query::{Ray, RayHit, finite};

/// `ray` read one f32 at a time. A caller that has just written the ray
/// wrote it in pieces of its choosing (a copy: 16 bytes and 8); a load
/// that spans two pieces still on their way to the cache waits until both
/// are there, about a dozen cycles, where a load inside one piece takes
/// its value at once. Four bytes lie inside any piece; the volatile reads
/// keep the compiler from merging them into wider loads.
#[inline(always)]
pub(crate) fn field_by_field(ray: &Ray) -> Ray {
    let f = read_alone;
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
    pub(crate) o: DVec3,
    pub(crate) d: DVec3,
}

impl Line {
    pub(crate) fn new(o: DVec3, d: DVec3) -> Self {
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
pub(crate) fn representable(hit: Option<RayHit>) -> Result<Option<RayHit>, QueryError> {
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
