//! The native side of the wasm benchmark (`node tests/web/wasm_bench.mjs`
//! runs it): the page's own work, natively, on the same files and rays —
//! open + verify of the dropped files ([`Session`]) and rays through the
//! largest map's collider on one thread. Prints one JSON line; writes the
//! rays (six f32 each, little-endian) to the file given, for the page to
//! cast the same ones.
//!
//! `cargo run --profile wasm -p sylcol-wasm --example native_bench -- RAYS.bin FILE...`

use std::time::Instant;

use glam::Vec3;
use sylcol::query::Ray;
use sylcol_wasm::{MemoryFolder, Session};

/// Rays cast per timing.
const RAYS: usize = 100_000;
/// Timings taken (the median is printed).
const ROUNDS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rays_out, paths) = args
        .split_first()
        .expect("usage: native_bench RAYS.bin FILE...");
    let mut files = MemoryFolder::new();
    for p in paths {
        files.add(p, std::fs::read(p).expect("a readable file"));
    }
    let open_verify = median(
        (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                let session = Session::open(&files);
                assert!(session.verify().ok);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let session = Session::open(&files);
    let catalog = session.catalog();
    let map = catalog
        .objects()
        .iter()
        .filter(|o| o.kind() == "map")
        .max_by_key(|o| o.info["triangles"].as_u64())
        .expect("a map");
    let lo = Vec3::from_array(serde_json::from_value(map.info["bbox_min"].clone()).unwrap());
    let hi = Vec3::from_array(serde_json::from_value(map.info["bbox_max"].clone()).unwrap());
    // xorshift32: the same rays on every run.
    let mut s = 0x9E37_79B9u32;
    let mut unit = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s as f32 / u32::MAX as f32
    };
    let rays: Vec<Ray> = (0..RAYS)
        .map(|_| {
            let o = lo + (hi - lo) * (Vec3::new(unit(), unit(), unit()) * 1.4 - 0.2);
            let d = Vec3::new(unit(), unit(), unit()) * 2.0 - 1.0;
            Ray::new(o, d)
        })
        .collect();
    let bytes: Vec<u8> = rays
        .iter()
        .flat_map(|r| [r.origin.to_array(), r.dir.to_array()].concat())
        .flat_map(f32::to_le_bytes)
        .collect();
    std::fs::write(rays_out, bytes).expect("the rays written");
    let collider = catalog.collider(map, None).expect("a collider");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut hits = 0;
    let ray_ms = median(
        (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                let h = one
                    .install(|| collider.cast_rays(&rays, f32::INFINITY))
                    .unwrap();
                hits = h.iter().flatten().count();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    println!(
        "{}",
        serde_json::json!({
            "open_verify_ms": open_verify,
            "map": map.name,
            "rays": RAYS,
            "hits": hits,
            "rays_per_s": RAYS as f64 / ray_ms * 1e3,
        })
    );
}
