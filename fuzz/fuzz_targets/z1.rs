#![no_main]
//! Fuzz target `z1`: `sylcol_fuzz::Target::Z1` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Z1.check(data);
});
