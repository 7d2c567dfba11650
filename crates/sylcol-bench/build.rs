//! Compiles the Embree shim and links `libembree3` only with the `embree`
//! feature, and tinybvh's single header behind its shim only with the
//! `tinybvh` feature; without them the harness builds (and runs its other
//! methods) on a machine with neither.

use std::path::PathBuf;

/// The tinybvh-rs release whose source carries the `tiny_bvh.h` used
/// (tinybvh 1.6.8).
const TINYBVH_RS: &str = "tinybvh-rs-0.1.0-beta.3";

fn main() {
    println!("cargo:rerun-if-changed=src/embree_shim.c");
    println!("cargo:rerun-if-changed=src/tinybvh_shim.cpp");
    println!("cargo:rerun-if-env-changed=TINYBVH_INCLUDE");
    if std::env::var_os("CARGO_FEATURE_EMBREE").is_some() {
        cc::Build::new()
            .file("src/embree_shim.c")
            .opt_level(3)
            .warnings(true)
            .compile("sylcol_embree_shim");
        println!("cargo:rustc-link-lib=embree3");
    }
    if std::env::var_os("CARGO_FEATURE_TINYBVH").is_some() {
        let include = tinybvh_include();
        println!(
            "cargo:rerun-if-changed={}",
            include.join("tiny_bvh.h").display()
        );
        // -march=native: tinybvh picks its SIMD paths (SSE, AVX, AVX2 with
        // FMA for BVH8_CPU) from the compiler's target, as tinybvh-rs
        // builds it.
        cc::Build::new()
            .cpp(true)
            .file("src/tinybvh_shim.cpp")
            .include(&include)
            .std("c++20")
            .opt_level(3)
            .flag("-march=native")
            .flag("-w")
            .compile("sylcol_tinybvh_shim");
    }
}

/// The folder holding `tiny_bvh.h`: `TINYBVH_INCLUDE`, or the copy inside
/// tinybvh-rs' source in Cargo's registry (`benches/embree.sh` fetches it).
fn tinybvh_include() -> PathBuf {
    if let Some(dir) = std::env::var_os("TINYBVH_INCLUDE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    let registry = home.join("registry/src");
    let found = std::fs::read_dir(&registry).ok().and_then(|dirs| {
        dirs.flatten()
            .map(|d| d.path().join(TINYBVH_RS).join("ffi/tinybvh"))
            .find(|p| p.join("tiny_bvh.h").is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "the `tinybvh` feature needs tiny_bvh.h: set TINYBVH_INCLUDE to its folder, or let \
             benches/embree.sh fetch {TINYBVH_RS} into {} (`cargo fetch` of a manifest naming it)",
            registry.display()
        )
    })
}
