#![no_main]
//! Fuzz target `pof0`: `sylcol_fuzz::Target::Pof0` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Pof0.check(data);
});
