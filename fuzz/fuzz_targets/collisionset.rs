#![no_main]
//! Fuzz target `collisionset`: `sylcol_fuzz::Target::CollisionSet` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::CollisionSet.check(data);
});
