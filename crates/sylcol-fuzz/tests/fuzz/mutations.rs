//! Mutated inputs for every format, without a fuzzer: the inputs of each
//! target's kept corpus (`fuzz/corpus/<target>/`) that decode are mutated
//! the way a fuzzer's first stage does (bit flips, interesting bytes and
//! words, cuts, inserts, deletions, copies, splices with another input),
//! from a fixed seed, and every result goes through the target's checks.
//! None may panic; the outcomes are tallied (decoded, or refused by error
//! kind) and printed (`cargo test -p sylcol-fuzz --test fuzz mutations --
//! --nocapture`); the figures are in benches/fuzzing.md.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol_fuzz::{Outcome, Target, files_in};

/// Mutated inputs tried per target.
const MUTANTS: usize = 4000;

const INTERESTING_BYTES: [u8; 6] = [0x00, 0x01, 0x7F, 0x80, 0xFF, b'0'];
const INTERESTING_WORDS: [u32; 8] = [0, 1, 8, 0x10, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF];

/// One mutation of `data`, in place; `other` is another corpus input.
fn mutate_once(rng: &mut ChaCha8Rng, data: &mut Vec<u8>, other: &[u8]) {
    if data.is_empty() {
        data.push(rng.random());
        return;
    }
    let at = rng.random_range(0..data.len());
    match rng.random_range(0..8) {
        0 => data[at] ^= 1 << rng.random_range(0..8),
        1 => data[at] = INTERESTING_BYTES[rng.random_range(0..INTERESTING_BYTES.len())],
        2 => {
            // An interesting u32 at an aligned offset, in either byte order.
            let word = INTERESTING_WORDS[rng.random_range(0..INTERESTING_WORDS.len())];
            let bytes = if rng.random() {
                word.to_be_bytes()
            } else {
                word.to_le_bytes()
            };
            let at = at & !3;
            let end = (at + 4).min(data.len());
            data[at..end].copy_from_slice(&bytes[..end - at]);
        }
        3 => data.truncate(at),
        4 => {
            let n = rng.random_range(1..=16);
            let fill: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            data.splice(at..at, fill);
        }
        5 => {
            let end = (at + rng.random_range(1..=64)).min(data.len());
            data.drain(at..end);
        }
        6 => {
            // Copy a run of the input over another place of it.
            let from = rng.random_range(0..data.len());
            let n = rng
                .random_range(1..=32)
                .min(data.len() - from)
                .min(data.len() - at);
            let run = data[from..from + n].to_vec();
            data[at..at + n].copy_from_slice(&run);
        }
        _ => {
            // Splice: this input's head, another input's tail.
            let from = rng.random_range(0..=other.len());
            data.truncate(at);
            data.extend_from_slice(&other[from..]);
        }
    }
}

/// Runs `MUTANTS` mutated corpus inputs through `target`; panics listing
/// any that panicked (with how to rebuild them), returns the tally.
fn tally_mutants(target: Target) -> BTreeMap<Outcome, usize> {
    let corpus: Vec<Vec<u8>> = files_in(&target.corpus_dir())
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    // Mutants start from the inputs that decode (the structure); splices
    // take their tails from any corpus input.
    let valid: Vec<&Vec<u8>> = corpus
        .iter()
        .filter(|d| target.check(d) == Outcome::Decoded)
        .collect();
    assert!(
        !valid.is_empty(),
        "{}: nothing in the corpus decodes",
        target.name()
    );
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0000 + target as u64);
    let mut tally = BTreeMap::new();
    let mut panicked = Vec::new();
    for n in 0..MUTANTS {
        let mut data = valid[rng.random_range(0..valid.len())].clone();
        let other = &corpus[rng.random_range(0..corpus.len())];
        for _ in 0..rng.random_range(1..=4) {
            mutate_once(&mut rng, &mut data, other);
        }
        match catch_unwind(AssertUnwindSafe(|| target.check(&data))) {
            Ok(outcome) => *tally.entry(outcome).or_insert(0) += 1,
            Err(_) => panicked.push((n, data)),
        }
    }
    if let Some((n, data)) = panicked.first() {
        let keep = std::env::temp_dir().join(format!("sylcol-mutant-{}-{n}", target.name()));
        std::fs::write(&keep, data).unwrap();
        panic!(
            "{}: {} of {MUTANTS} mutants panicked; the first (mutant {n}) is saved as {}",
            target.name(),
            panicked.len(),
            keep.display()
        );
    }
    tally
}

fn report(target: Target) {
    let tally = tally_mutants(target);
    let total: usize = tally.values().sum();
    assert_eq!(total, MUTANTS);
    let cells: Vec<String> = tally.iter().map(|(o, n)| format!("{o:?} {n}")).collect();
    eprintln!("{}: {MUTANTS} mutants: {}", target.name(), cells.join(", "));
    // The mutants reach both sides: some still decode, some are refused.
    assert!(
        tally.contains_key(&Outcome::Decoded),
        "{}: no mutant decodes",
        target.name()
    );
    assert!(tally.len() > 1, "{}: no mutant is refused", target.name());
}

sylcol_fuzz::test_per_target!(report);
