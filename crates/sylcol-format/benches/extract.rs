//! Extraction throughput of a ~1 GB synthetic IPFB archive against plain
//! zlib-rs inflate of the same streams, with peak memory.
//!
//! Run: `cargo bench -p sylcol-format --bench extract` (size in MiB via
//! `SYLCOL_BENCH_MB`, default 1024). The archive is built in a temporary
//! folder and removed afterwards (or kept in `SYLCOL_BENCH_KEEP`). Prints MB/s for
//! (a) flate2 `ZlibDecoder` over each entry's zlib stream held in memory,
//! (b) sylcol streaming every entry out of the part files into a sink (and
//!     once to files on disk), all checks on,
//! interleaved entry by entry over several rounds (the machine is shared),
//! the ratio b / a, and VmHWM (peak resident memory) after each step.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sylcol_format::ipfb::{Archive, ArchiveWriter, EntryKey, IndexEntry, WriteOptions};

const BUF: usize = 256 * 1024;
/// Rounds of (a) + (b); the first only warms the page cache.
const ROUNDS: usize = 4;

/// A collision-like entry: a noisy height-field mesh (f32 vertices, u16
/// triangles, big-endian) followed by a text table naming parts.
fn entry_bytes(rng: &mut ChaCha8Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 4096);
    out.extend_from_slice(b"MESH");
    let side = 64u16;
    while out.len() < target * 3 / 4 {
        let (ox, oy) = (
            rng.random_range(-1e5f32..1e5),
            rng.random_range(-1e5f32..1e5),
        );
        for y in 0..side {
            for x in 0..side {
                let (fx, fy) = (f32::from(x) * 250.0 + ox, f32::from(y) * 250.0 + oy);
                let h = (fx * 0.001).sin() * 800.0
                    + (fy * 0.0007).cos() * 500.0
                    + rng.random_range(-2.0f32..2.0);
                for v in [fx, fy, h] {
                    out.extend_from_slice(&v.to_be_bytes());
                }
            }
        }
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let i = y * side + x;
                for t in [i, i + 1, i + side, i + 1, i + side + 1, i + side] {
                    out.extend_from_slice(&t.to_be_bytes());
                }
            }
        }
    }
    let families = ["rou", "mob", "rob", "asteroid"];
    let parts = ["bdy", "brg", "eng", "wep", "sld"];
    while out.len() < target {
        let line = format!(
            "{}_{:04}_{}_cmesh vertices {} triangles {} radius {}\n",
            families[rng.random_range(0..4)],
            rng.random_range(0..3000),
            parts[rng.random_range(0..5)],
            rng.random_range(8..4000),
            rng.random_range(4..8000),
            rng.random_range(1.0f32..5000.0)
        );
        out.extend_from_slice(line.as_bytes());
    }
    out.truncate(target);
    out
}

fn build(pak: &Path, total: u64) -> (usize, u64, u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5C01);
    let mut writer = ArchiveWriter::create(
        pak,
        WriteOptions {
            level: 6,
            ..WriteOptions::default()
        },
    );
    let (mut count, mut raw, mut stored) = (0usize, 0u64, 0u64);
    while raw < total {
        let size = rng.random_range(256 * 1024..2 * 1024 * 1024);
        let bytes = entry_bytes(&mut rng, size);
        let e = writer
            .add(
                &EntryKey::Name(format!("bench\\entry_{count:05}.bin")),
                &bytes,
                true,
            )
            .expect("add");
        count += 1;
        raw += bytes.len() as u64;
        stored += u64::from(e.stored_size);
    }
    writer.finish().expect("finish");
    (count, raw, stored)
}

fn drain(r: &mut impl Read, buf: &mut [u8]) -> u64 {
    let mut n = 0u64;
    loop {
        match r.read(buf).expect("read") {
            0 => return n,
            k => n += k as u64,
        }
    }
}

/// (a) for one entry: its zlib stream read into memory (untimed), then
/// inflated by a plain `ZlibDecoder` into a sink (timed).
fn plain_inflate(archive: &Archive, e: &IndexEntry, buf: &mut [u8]) -> (u64, Duration) {
    let part = archive.path().with_file_name(archive.part_name(e.part));
    let mut f = std::fs::File::open(part).expect("part");
    f.seek(SeekFrom::Start(u64::from(e.offset) + 10))
        .expect("seek");
    let mut stream = Vec::with_capacity(e.stored_size as usize);
    f.take(u64::from(e.stored_size) - 10)
        .read_to_end(&mut stream)
        .expect("read");
    let start = Instant::now();
    let n = drain(&mut flate2::read::ZlibDecoder::new(&stream[..]), buf);
    (n, start.elapsed())
}

/// (b) for one entry: sylcol probes it and streams it out of its part file
/// (bounded read, inflate, size and both Adler-32 checks) into `out`.
fn sylcol_extract(archive: &Archive, e: &IndexEntry, out: &mut dyn Write) -> (u64, Duration) {
    let start = Instant::now();
    let info = archive.probe(e).expect("probe");
    let n = archive.copy_entry(&info, out).expect("extract");
    out.flush().expect("flush");
    (n, start.elapsed())
}

/// One round of (a) and (b), interleaved entry by entry so that load from
/// other processes affects both alike. Returns (bytes, time a, time b).
fn round(archive: &Archive) -> (u64, Duration, Duration) {
    let mut buf = vec![0u8; BUF];
    let (mut bytes, mut a, mut b) = (0u64, Duration::ZERO, Duration::ZERO);
    for (i, e) in archive.entries().iter().enumerate() {
        let ((na, ta), (nb, tb)) = if i % 2 == 0 {
            let pa = plain_inflate(archive, e, &mut buf);
            (pa, sylcol_extract(archive, e, &mut std::io::sink()))
        } else {
            let pb = sylcol_extract(archive, e, &mut std::io::sink());
            (plain_inflate(archive, e, &mut buf), pb)
        };
        assert_eq!(na, nb, "both inflate the same bytes");
        bytes += na;
        a += ta;
        b += tb;
    }
    (bytes, a, b)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

fn mbps(bytes: u64, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn main() {
    let mib: u64 = std::env::var("SYLCOL_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let dir = tempfile::tempdir().expect("temp dir");
    // SYLCOL_BENCH_KEEP=FOLDER keeps the archive there (to time `sylcol pak extract` on it).
    let keep = std::env::var_os("SYLCOL_BENCH_KEEP").map(std::path::PathBuf::from);
    let pak = keep.as_deref().unwrap_or(dir.path()).join("Bench.pak");
    let t = Instant::now();
    let (count, raw, stored) = build(&pak, mib << 20);
    println!(
        "built {count} entries, {:.1} MB -> {:.1} MB stored ({:.2}x) in {:.1} s; peak RSS {:.1} MiB",
        raw as f64 / 1e6,
        stored as f64 / 1e6,
        raw as f64 / stored as f64,
        t.elapsed().as_secs_f64(),
        peak_rss_mib()
    );
    let archive = Archive::open(&pak).expect("open");
    let rss_before = peak_rss_mib();
    let (mut bytes, mut total_a, mut total_b) = (0u64, Duration::ZERO, Duration::ZERO);
    for r in 0..ROUNDS {
        let (n, a, b) = round(&archive);
        println!(
            "round {r}: (a) plain ZlibDecoder {:.1} MB/s, (b) sylcol extract {:.1} MB/s, b/a {:.1} %",
            mbps(n, a),
            mbps(n, b),
            100.0 * a.as_secs_f64() / b.as_secs_f64()
        );
        if r > 0 {
            // round 0 warms the page cache
            (bytes, total_a, total_b) = (bytes + n, total_a + a, total_b + b);
        }
    }
    println!(
        "rounds 1-{}: (a) {:.1} MB/s, (b) {:.1} MB/s, ratio b/a = {:.1} %; peak RSS {:.1} MiB before, {:.1} MiB after",
        ROUNDS - 1,
        mbps(bytes, total_a),
        mbps(bytes, total_b),
        100.0 * total_a.as_secs_f64() / total_b.as_secs_f64(),
        rss_before,
        peak_rss_mib()
    );
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("bench")).expect("out dir");
    let start = Instant::now();
    let mut written = 0u64;
    for e in archive.entries() {
        let name = archive.probe(e).expect("probe").display.replace('\\', "/");
        let file = std::fs::File::create(out.join(name)).expect("create");
        written += sylcol_extract(
            &archive,
            e,
            &mut std::io::BufWriter::with_capacity(BUF, file),
        )
        .0;
    }
    let t = start.elapsed();
    println!(
        "sylcol extract -> files on disk: {:.1} MB/s ({:.2} s, {written} bytes); peak RSS {:.1} MiB",
        mbps(written, t),
        t.as_secs_f64(),
        peak_rss_mib()
    );
}
