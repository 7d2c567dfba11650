#![no_main]
//! Fuzz target `import_obj`: `sylcol_fuzz::Target::Obj` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::Obj.check(data);
});
