//! What the benches share: the sample archive's maps, and the timing of
//! the benches that print their own tables.

#![allow(dead_code)] // each bench takes what it needs

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use sylcol::format::ipfb::Archive;
use sylcol::format::mcol::Mcol;

/// Every MCOL map of `samples/MiscBin.pak`, in index order, with its
/// entry hash.
pub fn sample_mcols() -> Vec<(u32, Mcol)> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive = Archive::open(Path::new(pak)).expect("samples/MiscBin.pak");
    archive
        .read_with_magic("MCOL")
        .map(|object| {
            let (info, bytes) = object.expect("sample entry");
            let map = sylcol::format::mcol::decode(&bytes).expect("sample map");
            (info.entry.hash, map)
        })
        .collect()
}

/// Nanoseconds per item of `f` over every item of `items`.
pub fn time_each<T, R>(items: &[T], mut f: impl FnMut(&T) -> R) -> f64 {
    let t = Instant::now();
    for item in items {
        black_box(f(item));
    }
    t.elapsed().as_secs_f64() * 1e9 / items.len().max(1) as f64
}

/// The environment variable `name` as a number, or `default`.
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
