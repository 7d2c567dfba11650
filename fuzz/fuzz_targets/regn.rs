#![no_main]
//! Fuzz target `regn`: `sylcol_fuzz::Target::Regn` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Regn.check(data);
});
