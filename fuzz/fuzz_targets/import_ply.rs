#![no_main]
//! Fuzz target `import_ply`: `sylcol_fuzz::Target::Ply` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Ply.check(data);
});
