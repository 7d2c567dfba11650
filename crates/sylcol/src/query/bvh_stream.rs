//! Many rays through the [`Bvh`] on one thread, two at a time.
//!
//! A hierarchy larger than the core's caches makes a ray wait on memory:
//! each node and leaf it visits may come from the last-level cache or
//! beyond, and the next step depends on it. Here two rays walk in turn, a
//! step each ([`Walker::step`]), so that the core works on one while the
//! other's loads are under way; when one ends, the next ray of the batch
//! takes its place. Only a hierarchy larger than
//! [`super::bvh::stream_bytes`] is walked so (the BVH's `stream` flag):
//! on one that stays in the caches the second ray's bookkeeping costs
//! more than the overlap gains, and a batch's rays go one at a time
//! through [`super::Collider::cast_run`], as through the grid.
//!
//! Each ray's answer is exactly its single walk's ([`Bvh::walk`]): the
//! steps of one ray are the same steps in the same order; only another
//! ray's steps come between them.

use glam::Vec3;

use super::batch::{BatchError, CHUNK};
use super::bvh::Bvh;
use super::bvh_walk::{BoxKernel, BoxRay, Walker};
use super::ray_cast::{Cast, Scaled, check_ray, settle_batch_hit};
#[cfg(target_arch = "x86_64")]
use super::ray_triangle::Avx;
use super::ray_triangle::{Avx2, LaneRay, NO_TRIANGLE, Portable, RayFrame};
use super::{QueryError, Ray, RayHit};

/// Rays walked in turn.
pub const SLOTS: usize = 2;

/// A ray of a stream, prepared: its frame (for the leaves), its slab
/// test and its limit.
pub(crate) struct Prepared<'a> {
    pub frame: RayFrame<'a>,
    pub boxes: BoxRay,
    pub max: f32,
}

impl<'a> Prepared<'a> {
    /// The ray `s` over a mesh in the box `bounds`.
    pub(crate) fn new(s: &'a Scaled, bounds: (Vec3, Vec3)) -> Self {
        Prepared {
            frame: s.frame(bounds),
            boxes: s.boxes(),
            max: s.max,
        }
    }
}

impl Bvh {
    /// The nearest (t, triangle) of every ray of `rays`, in order, to
    /// `out` (one slot per ray), two walks at a time, with the widest
    /// kernel this CPU runs (the AVX2 kernel with `avx`).
    pub(crate) fn first_hits<'a>(
        &self,
        rays: &[Prepared<'a>],
        out: &mut [(f32, u32)],
        avx: Option<Avx2>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if avx.is_some() {
            // SAFETY: an `Avx2` exists only where the CPU has AVX and AVX2.
            return unsafe { self.stream_avx(rays, out) };
        }
        let _ = avx;
        self.stream::<Portable>(rays, out)
    }

    /// The stream compiled for AVX and AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2")]
    fn stream_avx(&self, rays: &[Prepared<'_>], out: &mut [(f32, u32)]) {
        self.stream::<Avx>(rays, out)
    }

    /// [`SLOTS`] walks in turn over `rays`, each slot taking the next ray
    /// when its own ends.
    #[inline(always)]
    fn stream<'a, K: BoxKernel>(&self, rays: &[Prepared<'a>], out: &mut [(f32, u32)]) {
        assert_eq!(rays.len(), out.len(), "one answer slot per ray");
        if self.nodes.is_empty() || rays.len() < SLOTS {
            for (p, o) in rays.iter().zip(out.iter_mut()) {
                *o = self.walk::<K>(&p.boxes, p.max, p.frame);
            }
            return;
        }
        let start = |p: &Prepared<'a>| (LaneRay::<K::V>::new(&p.frame), p.boxes, p.max);
        let mut walks: [Walker<'a, K>; SLOTS] = std::array::from_fn(|i| {
            let (f, r, m) = start(&rays[i]);
            Walker::new(f, r, m)
        });
        let mut ray_of: [usize; SLOTS] = std::array::from_fn(|i| i);
        let mut busy = [true; SLOTS];
        let (mut next, mut left) = (SLOTS, SLOTS);
        while left > 0 {
            for j in 0..SLOTS {
                if busy[j] && walks[j].step(self) {
                    out[ray_of[j]] = walks[j].best;
                    if next < rays.len() {
                        let (f, r, m) = start(&rays[next]);
                        walks[j].restart(f, r, m);
                        ray_of[j] = next;
                        next += 1;
                    } else {
                        busy[j] = false;
                        left -= 1;
                    }
                }
            }
        }
    }
}

impl super::Collider {
    /// [`super::Collider::cast_rays_into`] for one share of a batch (its
    /// first ray at index `offset` of the batch), a run of [`CHUNK`] rays
    /// at a time: through the BVH two walks at a time when it streams
    /// (the BVH's `stream` flag), else ray by ray in one kernel-compiled
    /// loop, as through the grid. Each answer is the single ray's.
    pub(super) fn cast_share(
        &self,
        offset: usize,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Result<(), BatchError> {
        let mut first = Ok(());
        // A serial batch of any length prepares a few kilobytes of rays
        // at a time, not the whole batch.
        for (run, (rays, out)) in rays.chunks(CHUNK).zip(out.chunks_mut(CHUNK)).enumerate() {
            let error = match &self.bvh {
                Some(bvh) if bvh.stream => self.cast_run_streamed(bvh, rays, max_toi, out),
                _ => self.cast_run(rays, max_toi, out),
            };
            if let (Ok(()), Some((i, error))) = (&first, error) {
                first = Err(BatchError {
                    index: offset + run * CHUNK + i,
                    error,
                });
            }
        }
        first
    }

    /// One run of [`Collider::cast_share`] through a BVH that streams: the
    /// answers of its usable rays to `out`, and the first unusable ray's
    /// index (in the run) and error.
    fn cast_run_streamed(
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
            .map(|(_, s)| Prepared::new(s, self.bounds))
            .collect();
        let mut best = vec![(0.0, NO_TRIANGLE); prepared.len()];
        bvh.first_hits(&prepared, &mut best, self.avx);
        for ((i, s), &b) in usable.iter().zip(&best) {
            let hit = self.hit_at(&rays[*i], b.0 * s.scale, b.1);
            settle_batch_hit(&mut out[*i], hit, *i, &mut first);
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::mesh::TriMesh;
    use crate::query::fixtures::{cuboid, icosphere, merged, uv_sphere};
    use crate::query::{Collider, QueryError};

    /// Meshes with a BVH, among them integer-cornered boxes that lattice
    /// rays cross through vertices and edges.
    fn colliders() -> Vec<Collider> {
        let meshes: [TriMesh; 3] = [
            icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 4),
            uv_sphere(Vec3::ZERO, 6.0, 40, 24),
            merged(
                &cuboid(Vec3::splat(-4.0), Vec3::new(4.0, 2.0, 6.0)),
                &uv_sphere(Vec3::new(2.0, 1.0, 1.0), 2.0, 12, 8),
            ),
        ];
        meshes
            .iter()
            .map(|m| Collider::from_mesh(m).unwrap().with_bvh())
            .collect()
    }

    /// Rays of every kind a batch holds: random ones, lattice rays along
    /// axes and diagonals through vertices and edges, rays far from unit
    /// length (scaled into range), and unusable ones at `bad`.
    fn rays(n: usize, seed: u64, bad: &[usize]) -> Vec<Ray> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rays: Vec<Ray> = (0..n)
            .map(|i| {
                let mut v =
                    || Vec3::from_array(std::array::from_fn(|_| rng.random_range(-9.0..9.0)));
                match i % 4 {
                    0 | 1 => Ray::new(v(), v()),
                    2 => {
                        let o = v().round();
                        let d = v().signum()
                            * Vec3::from_array([i % 3 != 0, i % 5 != 0, true].map(f32::from));
                        Ray::new(o, d)
                    }
                    _ => Ray::new(v(), v() * 1e-20),
                }
            })
            .collect();
        for &i in bad {
            rays[i].dir = Vec3::ZERO;
        }
        rays
    }

    /// The stream's (t, triangle) against each ray's single walk, with
    /// both kernels, for batches of every length up to a few slots and a
    /// long one.
    #[test]
    fn streams_answer_like_single_walks() {
        for c in colliders() {
            let bvh = c.bvh().expect("a BVH");
            let rays = rays(2_000, 3, &[]);
            for len in [0, 1, 2, 3, 5, rays.len()] {
                for max_toi in [f32::INFINITY, 7.5] {
                    let scaled: Vec<Scaled> = rays[..len]
                        .iter()
                        .map(|r| Scaled::new(r, max_toi, Cast::Ray))
                        .collect();
                    let prepared: Vec<Prepared<'_>> =
                        scaled.iter().map(|s| Prepared::new(s, c.bounds)).collect();
                    for avx in [false, true] {
                        let mut out = vec![(-1.0, 0); len];
                        bvh.first_hits(&prepared, &mut out, c.avx.filter(|_| avx));
                        let mut hits = 0;
                        for (p, got) in prepared.iter().zip(&out) {
                            let want =
                                bvh.first_hit(&p.frame, &p.boxes, p.max, c.avx.filter(|_| avx));
                            assert_eq!(got.1, want.1);
                            assert_eq!(got.0.to_bits(), want.0.to_bits());
                            hits += usize::from(want.1 != NO_TRIANGLE);
                        }
                        assert!(len < 100 || hits > len / 10, "{hits} of {len} rays hit");
                    }
                }
            }
        }
    }

    /// A batch through a BVH that streams gives each ray's own answer,
    /// on pools of one thread (one serial run of the whole batch) and two,
    /// and reports the first unusable ray, also when it lies in a later
    /// run of rays.
    #[test]
    fn batches_stream_through_a_large_bvh() {
        for mut c in colliders() {
            c.bvh.as_mut().expect("a BVH").stream = true;
            let bad = [700, 1_500];
            let rays = rays(2_048, 9, &bad);
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                for max_toi in [f32::INFINITY, 7.5] {
                    let e = pool.install(|| c.cast_rays(&rays, max_toi)).unwrap_err();
                    assert_eq!(e.index, bad[0]);
                    assert!(matches!(e.error, QueryError::ZeroDirection(_)));
                    let e = pool
                        .install(|| c.cast_rays(&rays[800..], max_toi))
                        .unwrap_err();
                    assert_eq!(e.index, bad[1] - 800);
                    let mut all = vec![None; rays.len()];
                    let _ = pool.install(|| c.cast_rays_into(&rays, max_toi, &mut all));
                    let mut small = vec![None; 200];
                    c.cast_rays_into(&rays[..200], max_toi, &mut small).unwrap();
                    assert_eq!(small[..], all[..200]);
                    for (i, (r, h)) in rays.iter().zip(&all).enumerate() {
                        match c.cast_ray(r, max_toi) {
                            Ok(want) => assert_eq!(*h, want, "ray {i}"),
                            Err(_) => assert!(bad.contains(&i) && h.is_none()),
                        }
                    }
                }
            }
        }
    }
}
