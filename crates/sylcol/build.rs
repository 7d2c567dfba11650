//! Tells the watertight suite whether this machine runs the AVX-512
//! kernels: `cfg avx512_tests` where the CPU that builds (and, building
//! natively, runs) the tests has AVX-512 F, BW, DQ and VL. Elsewhere the
//! suite's stand-in test for that path is ignored with the reason.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(avx512_tests)");
    println!("cargo::rerun-if-changed=build.rs");
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    if native && avx512_here() {
        println!("cargo::rustc-cfg=avx512_tests");
    }
}

/// Whether the CPU running this script has AVX-512 F, BW, DQ and VL.
fn avx512_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
