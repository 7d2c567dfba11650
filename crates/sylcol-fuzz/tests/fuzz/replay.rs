//! Replays every kept fuzz input through its target's checks, without a
//! fuzzer: the minimised corpus (`fuzz/corpus/<target>/`) and every crasher
//! found so far (`fuzz/regressions/<target>/`). Each must decode with its
//! round trips intact or be refused with a typed error; none may panic.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use sylcol_fuzz::{Outcome, Target, files_in};

/// Runs `target` on each file; returns the outcome tally and the files that panicked.
fn replay(target: Target, files: &[PathBuf]) -> (BTreeMap<Outcome, usize>, Vec<String>) {
    let mut tally = BTreeMap::new();
    let mut panicked = Vec::new();
    for file in files {
        let data = std::fs::read(file).unwrap();
        match catch_unwind(AssertUnwindSafe(|| target.check(&data))) {
            Ok(outcome) => *tally.entry(outcome).or_insert(0) += 1,
            Err(_) => panicked.push(file.display().to_string()),
        }
    }
    (tally, panicked)
}

fn replay_target(target: Target) {
    let corpus = files_in(&target.corpus_dir());
    let regressions = files_in(&target.regressions_dir());
    assert!(
        !corpus.is_empty(),
        "{}: the kept corpus is missing",
        target.corpus_dir().display()
    );
    for (what, files) in [("corpus", &corpus), ("regressions", &regressions)] {
        let (tally, panicked) = replay(target, files);
        eprintln!("{} {what}: {} files, {tally:?}", target.name(), files.len());
        assert!(
            panicked.is_empty(),
            "{} {what}: panicked on {panicked:#?}",
            target.name()
        );
    }
    // The corpus reaches past the decoder's first checks: some of it decodes.
    let (tally, _) = replay(target, &corpus);
    assert!(
        tally.contains_key(&Outcome::Decoded),
        "{}: nothing in the corpus decodes",
        target.name()
    );
}

sylcol_fuzz::test_per_target!(replay_target);

#[test]
fn every_target_has_a_fuzz_binary() {
    for target in Target::ALL {
        let source = sylcol_fuzz::fuzz_dir().join(format!("fuzz_targets/{}.rs", target.name()));
        assert!(source.is_file(), "{} has no fuzz target", target.name());
    }
}
