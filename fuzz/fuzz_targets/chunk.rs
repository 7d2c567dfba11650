#![no_main]
//! Fuzz target `chunk`: `sylcol_fuzz::Target::Chunk` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Chunk.check(data);
});
