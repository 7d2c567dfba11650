//! Query batches on every core, over the library's batch API
//! (`sylcol::query`, `batch.rs` there).
//!
//! The collider calls [`Collider::cast_rays`], [`Collider::inside_many`]
//! and [`Collider::closest_many`] directly; segments and moving spheres,
//! which have no batch function of their own, go through
//! [`Collider::answer_many`] here. Each runs a batch on rayon's pool in
//! chunks (serially when small), and each answer is exactly the single
//! query's — what `sylcol query FILE batch` prints. [`in_blocks`] feeds
//! them a long batch a block at a time.

use glam::Vec3;
use sylcol::query::{Answer, BatchError, Collider, Query, QueryError, RayHit};

/// Rows handed to the batch functions at a time by [`in_blocks`]: the
/// queries and answers of one block stay in cache-sized buffers instead of
/// arrays as long as the whole batch.
pub const BLOCK: usize = 1 << 16;

/// Answers `n` queries block by block: `make(i)` builds query i into a
/// reused buffer, `answer` answers a block (on every core), `keep` takes
/// each answer in order. Errors carry the query's index in the batch.
pub fn in_blocks<Q, A>(
    n: usize,
    make: impl Fn(usize) -> Q,
    mut answer: impl FnMut(&[Q]) -> Result<Vec<A>, BatchError>,
    mut keep: impl FnMut(A),
) -> Result<(), BatchError> {
    let mut block = Vec::with_capacity(n.min(BLOCK));
    for start in (0..n).step_by(BLOCK) {
        block.clear();
        block.extend((start..n.min(start + BLOCK)).map(&make));
        let answers = answer(&block).map_err(|e| BatchError {
            index: start + e.index,
            error: e.error,
        })?;
        answers.into_iter().for_each(&mut keep);
    }
    Ok(())
}

/// [`Collider::cast_segment`] for every (from, to) pair.
pub fn cast_segments(
    c: &Collider,
    segments: &[(Vec3, Vec3)],
) -> Result<Vec<Option<RayHit>>, BatchError> {
    let queries: Vec<Query> = segments
        .iter()
        .map(|&(from, to)| Query::Segment { from, to })
        .collect();
    hits(c.answer_many(&queries))
}

/// [`Collider::sweep_sphere`] for every (centre, radius, motion), its
/// contact as a [`RayHit`] (time of impact the fraction of the motion,
/// normal from the contact towards the centre).
pub fn sweep_spheres(
    c: &Collider,
    spheres: &[(Vec3, f32, Vec3)],
) -> Result<Vec<Option<RayHit>>, BatchError> {
    let queries: Vec<Query> = spheres
        .iter()
        .map(|&(centre, radius, motion)| Query::Sphere {
            centre,
            radius,
            motion,
        })
        .collect();
    hits(c.answer_many(&queries))
}

/// The hits of answered segment or sphere queries; the first unusable
/// query is the batch's error.
fn hits(answers: Vec<Result<Answer, QueryError>>) -> Result<Vec<Option<RayHit>>, BatchError> {
    answers
        .into_iter()
        .enumerate()
        .map(|(index, a)| match a {
            Ok(a) => Ok(hit_of(&a)),
            Err(error) => Err(BatchError { index, error }),
        })
        .collect()
}

/// The contact an answer reports (all four fields are set on a hit).
fn hit_of(a: &Answer) -> Option<RayHit> {
    match (a.time_of_impact, a.point, a.normal, a.triangle) {
        (Some(time_of_impact), Some(point), Some(normal), Some(triangle)) => Some(RayHit {
            time_of_impact,
            point: Vec3::from_array(point),
            normal: Vec3::from_array(normal),
            triangle,
        }),
        _ => None,
    }
}
