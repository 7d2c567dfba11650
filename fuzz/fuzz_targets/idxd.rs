#![no_main]
//! Fuzz target `idxd`: `sylcol_fuzz::Target::Idxd` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Idxd.check(data);
});
