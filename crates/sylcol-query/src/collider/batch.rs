//! Batches: many queries over one collider, on every core.
//!
//! [`Collider::cast_rays`], [`Collider::inside_many`],
//! [`Collider::closest_many`] and [`Collider::answer_many`] answer a slice
//! of queries with the single-query functions, split into runs of
//! [`CHUNK`] queries shared out over rayon's thread pool (the global pool,
//! or the pool a caller `install`s: a pool of one thread runs the batch
//! serially). A batch of at most [`SERIAL_BATCH`] queries runs on the
//! calling thread, where handing work to the pool would cost more than it
//! saves. Each answer is exactly the single query's answer: the queries
//! share nothing but the collider (each thread has its own mailbox).
//!
//! Rays go wherever [`Collider::cast_ray`] sends them: through the BVH
//! when the collider has one ([`Collider::with_bvh`]), else the grid; a
//! run of rays is answered in one loop compiled with the kernel (no call
//! a ray). A BVH larger than [`stream_bytes`](crate::index::bvh::tree::stream_bytes)
//! is walked two rays at a time on each thread (`index::bvh::stream`), so
//! that one ray's waits on memory overlap the other's work. Each answer is
//! still the single ray's.
//!
//! Ray packets do not pay here (measured: `benches/README.md#batches`): the rays of
//! a batch are as incoherent as the game's, and a packet of eight rays
//! through a uniform grid visits the union of their cells.

use glam::Vec3;
use rayon::prelude::*;

use super::Collider;
use super::script::{Answer, Query};
use crate::error::QueryError;
use crate::query::{ClosestPoint, Ray, RayHit};

/// Batches of at most this many queries run on the calling thread.
pub const SERIAL_BATCH: usize = 256;
/// Queries per task handed to the thread pool.
pub const CHUNK: usize = 512;

/// A query of a batch that was unusable: its index and why.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("query {index} of the batch: {error}")]
pub struct BatchError {
    /// Index of the first unusable query in the batch.
    pub index: usize,
    /// What was wrong with it.
    pub error: QueryError,
}

impl Collider {
    /// [`Collider::cast_ray`] for every ray, in order, with one `max_toi`.
    /// Fails on the first (lowest-index) unusable ray.
    pub fn cast_rays(&self, rays: &[Ray], max_toi: f32) -> Result<Vec<Option<RayHit>>, BatchError> {
        let mut out = vec![None; rays.len()];
        self.cast_rays_into(rays, max_toi, &mut out)?;
        Ok(out)
    }

    /// [`Collider::cast_rays`] into a slice of the same length as `rays`
    /// (no allocation). On an error `out` holds the answers of the usable
    /// rays and `None` at the unusable ones.
    ///
    /// # Panics
    /// When `out` and `rays` differ in length.
    pub fn cast_rays_into(
        &self,
        rays: &[Ray],
        max_toi: f32,
        out: &mut [Option<RayHit>],
    ) -> Result<(), BatchError> {
        assert_eq!(rays.len(), out.len(), "one answer slot per ray");
        for_each_chunk(rays, out, |offset, rays, out| {
            self.cast_share(offset, rays, max_toi, out)
        })
    }

    /// [`Collider::contains_point`] for every point, in order.
    pub fn inside_many(&self, points: &[Vec3]) -> Result<Vec<bool>, BatchError> {
        let mut out = vec![false; points.len()];
        for_each_into(points, &mut out, |&p| self.contains_point(p))?;
        Ok(out)
    }

    /// [`Collider::closest_point`] for every point, in order.
    pub fn closest_many(&self, points: &[Vec3]) -> Result<Vec<Option<ClosestPoint>>, BatchError> {
        let mut out = vec![None; points.len()];
        for_each_into(points, &mut out, |&p| self.closest_point(p))?;
        Ok(out)
    }

    /// [`Collider::answer`] for every query of any kind, in order; an
    /// unusable query is answered by its error in its place (what `sylcol
    /// query FILE batch` prints).
    pub fn answer_many(&self, queries: &[Query]) -> Vec<Result<Answer, QueryError>> {
        let mut out = vec![Err(QueryError::NonFinite("unanswered")); queries.len()];
        let all_ok = for_each_into(queries, &mut out, |q| Ok::<_, QueryError>(self.answer(q)));
        debug_assert!(all_ok.is_ok());
        out
    }
}

/// Writes `f(input[i])` to `out[i]` for every i, serially for a small
/// batch, else in chunks over the thread pool. An error leaves its slot
/// as it was; the lowest failing index is returned.
fn for_each_into<I: Sync, O: Send>(
    input: &[I],
    out: &mut [O],
    f: impl Fn(&I) -> Result<O, QueryError> + Sync,
) -> Result<(), BatchError> {
    for_each_chunk(input, out, |offset, input, out| {
        let mut first = Ok(());
        for (i, (q, slot)) in input.iter().zip(out).enumerate() {
            match f(q) {
                Ok(a) => *slot = a,
                Err(error) if first.is_ok() => {
                    first = Err(BatchError {
                        index: offset + i,
                        error,
                    })
                }
                Err(_) => {}
            }
        }
        first
    })
}

impl Collider {
    /// [`Collider::cast_rays_into`] for one share of a batch (its
    /// first ray at index `offset` of the batch), a run of [`CHUNK`] rays
    /// at a time: through the BVH two walks at a time when it streams
    /// (the BVH's `stream` flag), else ray by ray in one kernel-compiled
    /// loop, as through the grid. Each answer is the single ray's.
    fn cast_share(
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
                Some(bvh) if bvh.stream => self.grid.cast_run_streamed(bvh, rays, max_toi, out),
                _ => self.grid.cast_run(rays, max_toi, self.route(), out),
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
}

/// Runs `run(offset, input, out)` over the whole batch on the calling
/// thread when it is small (or the pool has one thread), else over runs
/// of [`CHUNK`] on the thread pool; the error of the lowest run wins.
fn for_each_chunk<I: Sync, O: Send>(
    input: &[I],
    out: &mut [O],
    run: impl Fn(usize, &[I], &mut [O]) -> Result<(), BatchError> + Sync,
) -> Result<(), BatchError> {
    if input.len() <= SERIAL_BATCH || rayon::current_num_threads() == 1 {
        return run(0, input, out);
    }
    input
        .par_chunks(CHUNK)
        .zip(out.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (input, out))| run(c * CHUNK, input, out))
        .reduce(|| Ok(()), |a, b| if a.is_err() { a } else { b })
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::fixtures::{map_collider, uv_sphere};

    /// A 1 840-triangle sphere over a 4 x 4 x 4 map, and random points
    /// around it.
    fn sphere_and_points(n: usize) -> (Collider, Vec<Vec3>) {
        let mesh = uv_sphere(Vec3::ZERO, 10.0, 40, 24);
        let c = map_collider(&mesh, Vec3::splat(-10.0), Vec3::splat(5.0), [4; 3]);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let points = (0..n)
            .map(|_| Vec3::from_array(std::array::from_fn(|_| rng.random_range(-14.0..14.0))))
            .collect();
        (c, points)
    }

    /// A pool of two threads.
    fn two_threads() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    /// Rays from each point towards its partner, nudged off the exact
    /// centre lines.
    fn rays_between<'a>(
        points: &[Vec3],
        partners: impl Iterator<Item = &'a Vec3>,
        nudge: Vec3,
    ) -> Vec<Ray> {
        points
            .iter()
            .zip(partners)
            .map(|(&o, &p)| Ray::new(o, p - o + nudge))
            .collect()
    }

    /// `c.cast_rays` on `pool`, checked ray by ray against `c.cast_ray`
    /// (more than half of the rays hit), and the same batch through the
    /// portable path (no AVX2), which must answer alike.
    fn pooled_hits(pool: &rayon::ThreadPool, c: &Collider, rays: &[Ray]) -> Vec<Option<RayHit>> {
        let hits = pool.install(|| c.cast_rays(rays, 50.0)).unwrap();
        assert!(hits.iter().filter(|h| h.is_some()).count() > rays.len() / 2);
        for (r, h) in rays.iter().zip(&hits) {
            assert_eq!(*h, c.cast_ray(r, 50.0).unwrap());
        }
        let portable = c.clone().with_portable_kernels();
        assert_eq!(
            pool.install(|| portable.cast_rays(rays, 50.0)).unwrap(),
            hits
        );
        hits
    }

    #[test]
    fn batches_answer_like_single_queries() {
        let (c, points) = sphere_and_points(3 * CHUNK + 17);
        let rays = rays_between(&points, points.iter().rev(), Vec3::new(0.0, 0.0, 1e-3));
        let pool = two_threads();
        let hits = pooled_hits(&pool, &c, &rays);
        let inside = pool.install(|| c.inside_many(&points)).unwrap();
        assert!(inside.iter().any(|&i| i) && inside.iter().any(|&i| !i));
        let closest = pool.install(|| c.closest_many(&points)).unwrap();
        for (k, &p) in points.iter().enumerate() {
            assert_eq!(inside[k], c.contains_point(p).unwrap());
            assert_eq!(closest[k], c.closest_point(p).unwrap());
        }
        // The serial path (a small batch) gives the same answers.
        assert_eq!(c.cast_rays(&rays[..10], 50.0).unwrap(), hits[..10]);
    }

    /// A batch over a collider with the BVH goes through it, on the pool
    /// as serially: each answer is the single ray's through the BVH, and
    /// the grid's.
    #[test]
    fn batches_go_through_the_bvh() {
        let (grid, points) = sphere_and_points(2 * CHUNK + 5);
        let c = grid.clone().with_bvh();
        assert!(c.bvh().is_some());
        let rays = rays_between(&points, points.iter().skip(1), Vec3::new(1e-3, 0.0, 0.0));
        let hits = pooled_hits(&two_threads(), &c, &rays);
        for (r, h) in rays.iter().zip(&hits) {
            assert_eq!(*h, grid.cast_ray(r, 50.0).unwrap());
        }
        let mut out = vec![None; 7];
        c.cast_rays_into(&rays[..7], 50.0, &mut out).unwrap();
        assert_eq!(out, hits[..7]);
    }

    #[test]
    fn the_first_unusable_query_is_reported() {
        let (c, points) = sphere_and_points(2 * CHUNK);
        let mut rays: Vec<Ray> = points.iter().map(|&o| Ray::new(o, Vec3::X)).collect();
        rays[CHUNK + 3].dir = Vec3::ZERO;
        rays[CHUNK + 40].origin.x = f32::NAN;
        let e = c.cast_rays(&rays, f32::INFINITY).unwrap_err();
        assert_eq!(e.index, CHUNK + 3);
        assert!(matches!(e.error, QueryError::ZeroDirection(_)));
        let mut pts = points.clone();
        pts[5].y = f32::INFINITY;
        assert_eq!(c.inside_many(&pts).unwrap_err().index, 5);
        assert_eq!(c.closest_many(&pts).unwrap_err().index, 5);
    }

    #[test]
    fn mixed_queries_keep_their_order_and_errors() {
        let (c, _) = sphere_and_points(0);
        let lines = [
            "ray 0,0,0 1,0,0",
            "inside 0,0,0",
            "ray 0,0,0 0,0,0",
            "closest 20,0,0",
        ];
        let mut queries: Vec<Query> = lines.iter().map(|l| l.parse().unwrap()).collect();
        queries = queries.repeat(SERIAL_BATCH);
        let answers = c.answer_many(&queries);
        for (q, a) in queries.iter().zip(&answers) {
            assert_eq!(*a, c.answer(q));
        }
        assert!(answers[2].is_err() && answers[1].as_ref().unwrap().inside == Some(true));
    }
}
