//! Timing on a shared, loaded machine: the rays are cut into chunks (of
//! [`CHUNK`] for single rays); every round times each method on each chunk
//! (interleaved), and a method's figure is the sum over chunks of its
//! fastest time on that chunk. A burst of load (another process taking
//! the core) spoils one chunk of one round, not the figure.
//!
//! The methods do not take a chunk one after another. A core's branch
//! predictors learn a chunk's rays: six back-to-back runs of the file's
//! own grid over one 4 096-ray chunk of map 2cf7eb47 took 123, 111, 101,
//! 91, 81 and 75 ns a ray, so whichever method came after another on the
//! same chunk timed rays the predictors had just seen, and small meshes
//! (whose walks are short and all alike) gained the most. At step `s`,
//! method `m` runs chunk `(s + m * apart) % chunks` instead, with the
//! methods `chunks / methods` chunks apart: every method still runs every
//! chunk once a round, and between two runs of one chunk the core sees
//! `apart` other chunks (staggered, the same 2cf7eb47 chunk took 121–122
//! ns on every run). The order of the answers, the call site and an
//! untimed warm-up run were tried and changed nothing, or flattered every
//! method alike.

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
    run: impl FnMut(usize, std::ops::Range<usize>),
) -> Vec<f64> {
    per_item(&chunk_times(methods, n, rounds, chunk, run), n)
}

/// Each method's fastest time (ns) on each chunk over `rounds` rounds, a
/// row a method: what [`interleaved`] sums. `peers` keeps these across its
/// rounds to fold in the rounds that the tinybvh program times itself, in
/// the same order.
pub fn chunk_times(
    methods: usize,
    n: usize,
    rounds: usize,
    chunk: usize,
    mut run: impl FnMut(usize, std::ops::Range<usize>),
) -> Vec<Vec<f64>> {
    let chunks = n.div_ceil(chunk);
    let apart = (chunks / methods.max(1)).max(1);
    let mut best = vec![vec![f64::INFINITY; chunks]; methods];
    for _ in 0..rounds {
        for step in 0..chunks {
            for (m, b) in best.iter_mut().enumerate() {
                let c = (step + m * apart) % chunks;
                let range = c * chunk..((c + 1) * chunk).min(n);
                let start = Instant::now();
                run(m, range);
                b[c] = b[c].min(start.elapsed().as_nanos() as f64);
            }
        }
    }
    best
}

/// ns per item from each method's chunk times over `n` items.
pub fn per_item(best: &[Vec<f64>], n: usize) -> Vec<f64> {
    best.iter()
        .map(|b| b.iter().sum::<f64>() / n.max(1) as f64)
        .collect()
}

/// Keeps in `best` the faster of its time and `round`'s on each chunk.
pub fn keep_fastest(best: &mut [f64], round: &[f64]) {
    for (b, r) in best.iter_mut().zip(round) {
        *b = b.min(*r);
    }
}

#[cfg(test)]
mod tests {
    use super::interleaved;

    #[test]
    fn every_method_times_every_chunk_once_a_round_and_never_two_in_a_row() {
        let (methods, n, chunk) = (3, 10 * 4 + 1, 4);
        let mut runs: Vec<(usize, usize)> = Vec::new();
        interleaved(methods, n, 2, chunk, |m, r| runs.push((m, r.start / chunk)));
        let chunks = n.div_ceil(chunk);
        assert_eq!(runs.len(), 2 * chunks * methods);
        for round in runs.chunks(chunks * methods) {
            for m in 0..methods {
                let mut seen: Vec<usize> = round.iter().filter(|r| r.0 == m).map(|r| r.1).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..chunks).collect::<Vec<_>>(), "method {m}");
            }
        }
        assert!(runs.windows(2).all(|w| w[0].1 != w[1].1), "{runs:?}");
    }

    #[test]
    fn one_chunk_and_more_methods_than_chunks_still_time_everything() {
        let mut runs = Vec::new();
        let ns = interleaved(4, 3, 1, 4096, |m, r| runs.push((m, r)));
        assert_eq!(runs, (0..4).map(|m| (m, 0..3)).collect::<Vec<_>>());
        assert_eq!(ns.len(), 4);
    }
}
