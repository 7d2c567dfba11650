//! Timing on a shared, loaded machine: the rays are cut into chunks (of
//! [`CHUNK`] for single rays); every round times each method on each chunk in turn
//! (interleaved), and a method's figure is the sum over chunks of its
//! fastest time on that chunk. A burst of load (another process taking
//! the core) spoils one chunk of one round, not the figure.

use std::time::Instant;

/// Rays per timed chunk (about a millisecond of work).
pub const CHUNK: usize = 4096;
/// Rays per timed chunk of a batch (enough to share out over threads).
pub const BATCH_CHUNK: usize = 65_536;

/// ns per item of each of `methods` methods over `n` items in chunks of
/// `chunk`: `run(m, range)` does method m's work on the items of `range`.
pub fn interleaved(
    methods: usize,
    n: usize,
    rounds: usize,
    chunk: usize,
    mut run: impl FnMut(usize, std::ops::Range<usize>),
) -> Vec<f64> {
    let chunks = n.div_ceil(chunk);
    let mut best = vec![vec![f64::INFINITY; chunks]; methods];
    for _ in 0..rounds {
        for c in 0..chunks {
            let range = c * chunk..((c + 1) * chunk).min(n);
            for (m, b) in best.iter_mut().enumerate() {
                let start = Instant::now();
                run(m, range.clone());
                b[c] = b[c].min(start.elapsed().as_nanos() as f64);
            }
        }
    }
    best.iter()
        .map(|b| b.iter().sum::<f64>() / n.max(1) as f64)
        .collect()
}
