//! Name finding speed: the harvest core (string runs, variants, hashing,
//! matching) over synthetic disc-like bytes, and `names guess` pattern
//! expansion.
//!
//! Run: `cargo bench -p sylcol-format --bench names` (size in MiB via
//! `SYLCOL_BENCH_MB`, default 64). Prints, per round, scanned MB/s, strings
//! found per second and candidates hashed per second on one core; then
//! candidates per second for a 2-million-candidate guess pattern.
//! `SYLCOL_BENCH_KEEP=FOLDER` also writes the bytes as a Z1 archive
//! (`Disc.pak` + parts, 4 MiB entries) there, to time `sylcol names
//! harvest` end to end (inflate and both cores included).

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol_format::ipfb::{ArchiveWriter, EntryKey, WriteOptions, make_entry_id};
use sylcol_format::naming::{Harvester, Pattern, Targets};

const ROUNDS: usize = 3;
const ENTRY: usize = 4 << 20;

/// Disc-like bytes: float triples, u16 index runs, and NUL-separated text
/// with file names, a third each, in 64 KiB blocks.
fn disc_bytes(rng: &mut ChaCha8Rng, total: usize) -> Vec<u8> {
    let words = [
        "S01_AsteroidVolume_wp.col",
        "mapmesh_box_500km.rgn",
        "dat\\stage\\S14_p1.tbl",
        "texture_diffuse",
        "model",
        "eng\\GP_TITLE.tbl",
    ];
    let mut out = Vec::with_capacity(total);
    let mut block = 0usize;
    while out.len() < total {
        let end = (out.len() + (64 << 10)).min(total);
        match block % 3 {
            0 => {
                while out.len() + 12 <= end {
                    for _ in 0..3 {
                        out.extend_from_slice(&rng.random_range(-5e4f32..5e4).to_be_bytes());
                    }
                }
            }
            1 => {
                while out.len() + 2 <= end {
                    out.extend_from_slice(&rng.random_range(0u16..4000).to_be_bytes());
                }
            }
            _ => {
                while out.len() < end {
                    let w = words[rng.random_range(0..words.len())];
                    out.extend_from_slice(w.as_bytes());
                    out.extend_from_slice(format!("_{}", rng.random_range(0..1000)).as_bytes());
                    out.push(0);
                }
            }
        }
        out.resize(end, 0);
        block += 1;
    }
    out
}

fn main() {
    let mib: usize = std::env::var("SYLCOL_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_4A3E);
    let bytes = disc_bytes(&mut rng, mib << 20);
    let mut hashes: Vec<u32> = (0..4000).map(|_| rng.random()).collect();
    hashes.push(make_entry_id("mapmesh_box_500km.rgn"));
    let targets = Targets::new(hashes);
    if let Some(dir) = std::env::var_os("SYLCOL_BENCH_KEEP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = ArchiveWriter::create(&dir.join("Disc.pak"), WriteOptions::default());
        for (i, chunk) in bytes.chunks(ENTRY).enumerate() {
            w.add(&EntryKey::Hash(0x1000 + i as u32), chunk, true)
                .unwrap();
        }
        w.finish().unwrap();
        eprintln!("wrote {}/Disc.pak", dir.display());
    }
    println!("harvest core, one thread, {mib} MiB:");
    let mut buf = vec![0u8; 256 << 10];
    for round in 0..ROUNDS {
        let mut h = Harvester::new(&targets);
        let t = Instant::now();
        for chunk in bytes.chunks(ENTRY) {
            h.scan(0, &mut &chunk[..], &mut buf).unwrap();
        }
        let s = t.elapsed().as_secs_f64();
        let hits = h.stats();
        let found = h.into_hits().len();
        println!(
            "  round {round}: {:.0} MB/s scanned, {:.2} M strings/s, {:.1} M candidates/s ({} strings, {} candidates, {found} names) in {s:.2} s",
            bytes.len() as f64 / 1e6 / s,
            hits.strings as f64 / 1e6 / s,
            hits.candidates as f64 / 1e6 / s,
            hits.strings,
            hits.candidates,
        );
    }
    let pattern = Pattern::parse("S{00..99}_{0000..9999}_AsteroidVolume_wp.{col,rgn}").unwrap();
    println!("guess, {} candidates:", pattern.count());
    for round in 0..ROUNDS {
        let mut hits = 0u64;
        let t = Instant::now();
        pattern.for_each(|_, h| hits += u64::from(targets.contains(h)));
        let s = t.elapsed().max(Duration::from_nanos(1)).as_secs_f64();
        println!(
            "  round {round}: {:.1} M candidates/s ({hits} hits)",
            pattern.count() as f64 / 1e6 / s
        );
    }
}
