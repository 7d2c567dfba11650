//! With the `tinybvh` feature, compiles the C++ program
//! `tinybvh/sylcol_tinybvh.cpp` (tinybvh's single header behind a file
//! interface) into `OUT_DIR` and hands its path to the crate as
//! `SYLCOL_TINYBVH`; the harness runs it as a process of its own, so no
//! foreign code is linked into the crate. Without the feature nothing is
//! built, and the harness builds on a machine without tinybvh.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::Command;

/// The tinybvh-rs release whose source carries the `tiny_bvh.h` used
/// (tinybvh 1.6.8).
const TINYBVH_RS: &str = "tinybvh-rs-0.1.0-beta.3";
/// The program's source.
const SOURCE: &str = "tinybvh/sylcol_tinybvh.cpp";

fn main() {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-env-changed=TINYBVH_INCLUDE");
    println!("cargo:rerun-if-env-changed=CXX");
    if std::env::var_os("CARGO_FEATURE_TINYBVH").is_none() {
        return;
    }
    let include = tinybvh_include();
    println!(
        "cargo:rerun-if-changed={}",
        include.join("tiny_bvh.h").display()
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let program = out.join("sylcol_tinybvh");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    // -march=native: tinybvh picks its SIMD paths (SSE, AVX, AVX2 with FMA
    // for BVH8_CPU) from the compiler's target, as tinybvh-rs builds it.
    // The header's own warnings are silenced (-isystem), not the program's.
    let run = Command::new(&cxx)
        .args(["-O3", "-march=native", "-std=c++20", "-Wall", "-Wextra"])
        .arg("-isystem")
        .arg(&include)
        .arg(SOURCE)
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap_or_else(|e| panic!("the `tinybvh` feature needs a C++ compiler: {cxx}: {e}"));
    assert!(
        run.status.success(),
        "{cxx} could not compile {SOURCE} ({}):\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    for line in String::from_utf8_lossy(&run.stderr).lines() {
        println!("cargo:warning={line}");
    }
    println!("cargo:rustc-env=SYLCOL_TINYBVH={}", program.display());
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
