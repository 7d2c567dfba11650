//! Compiles the Embree shim and links `libembree3` only with the `embree`
//! feature; without it the harness builds (and runs its other methods)
//! on a machine without Embree.

fn main() {
    println!("cargo:rerun-if-changed=src/embree_shim.c");
    if std::env::var_os("CARGO_FEATURE_EMBREE").is_none() {
        return;
    }
    cc::Build::new()
        .file("src/embree_shim.c")
        .opt_level(3)
        .warnings(true)
        .compile("sylcol_embree_shim");
    println!("cargo:rustc-link-lib=embree3");
}
