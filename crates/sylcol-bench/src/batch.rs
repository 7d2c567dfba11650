//! The batch table: rays per second of sylcol's `cast_rays_into` (through
//! the file's grid, the derived grid and the BVH) and of Embree's
//! `rtcIntersect1` / `rtcIntersect8` with the robust flag off and on, at 1
//! and 2 threads. Both run on the
//! same rayon pool with the same split (runs of [`sylcol::query::CHUNK`]
//! rays, a pool of one thread serially), so the pool's wake-up and
//! work-sharing cost both sides the same and the columns differ only in
//! the per-ray kernel. (Embree on fresh `std` threads, one contiguous run
//! each, paid a thread spawn per timed chunk instead of a pool wake-up.)

use std::ops::Range;

use sylcol::query::{Collider, RayHit};

use crate::methods::Prepared;

/// A method of the batch table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchMethod {
    /// `Collider::cast_rays_into` through the file's own grid.
    Own,
    /// The same through the derived grid.
    Derived,
    /// The same through sylcol's own acceleration (the file's grid with
    /// the BVH for rays, `Collider::with_bvh`).
    Bvh,
    /// Embree `rtcIntersect1`, robust flag off.
    Embree1,
    /// Embree `rtcIntersect8`, robust flag off.
    Embree8,
    /// Embree `rtcIntersect1`, robust flag on.
    Embree1Robust,
    /// Embree `rtcIntersect8`, robust flag on.
    Embree8Robust,
}

impl BatchMethod {
    /// The methods this build has.
    pub fn all() -> Vec<BatchMethod> {
        let mut m = vec![BatchMethod::Own, BatchMethod::Derived, BatchMethod::Bvh];
        if cfg!(feature = "embree") {
            m.extend([
                BatchMethod::Embree1,
                BatchMethod::Embree8,
                BatchMethod::Embree1Robust,
                BatchMethod::Embree8Robust,
            ]);
        }
        m
    }

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            BatchMethod::Own => "sylcol-own cast_rays",
            BatchMethod::Derived => "sylcol-derived cast_rays",
            BatchMethod::Bvh => "sylcol-bvh cast_rays",
            BatchMethod::Embree1 => "embree rtcIntersect1",
            BatchMethod::Embree8 => "embree rtcIntersect8",
            BatchMethod::Embree1Robust => "embree robust rtcIntersect1",
            BatchMethod::Embree8Robust => "embree robust rtcIntersect8",
        }
    }
}

/// Reusable output buffers and thread pools.
pub struct BatchRunner {
    pools: Vec<rayon::ThreadPool>,
    hits: Vec<Option<RayHit>>,
    #[cfg_attr(not(feature = "embree"), allow(dead_code))]
    t: Vec<f32>,
    #[cfg_attr(not(feature = "embree"), allow(dead_code))]
    id: Vec<u32>,
}

impl BatchRunner {
    /// Pools of 1 ..= `max_threads` threads, buffers for `rays` rays.
    pub fn new(max_threads: usize, rays: usize) -> Self {
        let pools = (1..=max_threads)
            .map(|n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .expect("pool")
            })
            .collect();
        BatchRunner {
            pools,
            hits: vec![None; rays],
            t: vec![0.0; rays],
            id: vec![0; rays],
        }
    }

    /// Runs `m` over the scene's rays `range` on `threads` threads; how
    /// many rays hit.
    pub fn run(
        &mut self,
        m: BatchMethod,
        p: &Prepared<'_>,
        threads: usize,
        range: Range<usize>,
    ) -> usize {
        match m {
            BatchMethod::Own => self.sylcol(&p.own, p, threads, range),
            BatchMethod::Derived => self.sylcol(&p.derived, p, threads, range),
            BatchMethod::Bvh => self.sylcol(&p.bvh, p, threads, range),
            BatchMethod::Embree1
            | BatchMethod::Embree8
            | BatchMethod::Embree1Robust
            | BatchMethod::Embree8Robust => self.embree(p, m, threads, range),
        }
    }

    fn sylcol(
        &mut self,
        c: &Collider,
        p: &Prepared<'_>,
        threads: usize,
        range: Range<usize>,
    ) -> usize {
        let out = &mut self.hits[range.clone()];
        self.pools[threads - 1]
            .install(|| c.cast_rays_into(&p.scene.rays[range], f32::INFINITY, out))
            .expect("valid rays");
        out.iter().filter(|h| h.is_some()).count()
    }

    #[cfg(feature = "embree")]
    fn embree(
        &mut self,
        p: &Prepared<'_>,
        m: BatchMethod,
        threads: usize,
        range: Range<usize>,
    ) -> usize {
        use rayon::prelude::*;
        use sylcol::query::CHUNK;
        const { assert!(CHUNK.is_multiple_of(8), "whole packets of eight") };
        let rays = &p.scene.flat[range.clone()];
        let (t, id) = (&mut self.t[range.clone()], &mut self.id[range]);
        let packets = matches!(m, BatchMethod::Embree8 | BatchMethod::Embree8Robust);
        let scene = match m {
            BatchMethod::Embree1Robust | BatchMethod::Embree8Robust => &p.embree_robust,
            _ => &p.embree,
        };
        self.pools[threads - 1].install(|| {
            if threads == 1 {
                return scene.intersect(rays, packets, t, id);
            }
            rays.par_chunks(CHUNK)
                .zip(t.par_chunks_mut(CHUNK).zip(id.par_chunks_mut(CHUNK)))
                .for_each(|(rays, (t, id))| scene.intersect(rays, packets, t, id));
        });
        t.iter().filter(|t| t.is_finite()).count()
    }

    #[cfg(not(feature = "embree"))]
    fn embree(&mut self, _: &Prepared<'_>, _: BatchMethod, _: usize, _: Range<usize>) -> usize {
        unreachable!("built without Embree")
    }
}
