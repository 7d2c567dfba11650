#![no_main]
//! Fuzz target `mcol`: `sylcol_fuzz::Target::Mcol` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Mcol.check(data);
});
