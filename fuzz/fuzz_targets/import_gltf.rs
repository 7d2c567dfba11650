#![no_main]
//! Fuzz target `import_gltf`: `sylcol_fuzz::Target::Gltf` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Gltf.check(data);
});
