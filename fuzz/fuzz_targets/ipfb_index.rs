#![no_main]
//! Fuzz target `ipfb_index`: `sylcol_fuzz::Target::IpfbIndex` on every input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sylcol_fuzz::Target::IpfbIndex.check(data);
});
