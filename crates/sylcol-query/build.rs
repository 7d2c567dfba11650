//! Tells the tests whether this machine runs the AVX2 kernels: `cfg
//! avx2_tests` where the CPU that builds (and, building natively, runs) the
//! tests has AVX and AVX2. The tests of those kernels are ignored with
//! that reason elsewhere, instead of passing without running.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(avx2_tests)");
    println!("cargo::rustc-check-cfg=cfg(avx512_tests)");
    println!("cargo::rerun-if-changed=build.rs");
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    if native && avx2_here() {
        println!("cargo::rustc-cfg=avx2_tests");
        if avx512_here() {
            println!("cargo::rustc-cfg=avx512_tests");
        }
    }
}

/// Whether the CPU running this script has AVX and AVX2.
fn avx2_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
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
