//! sylcol-format's tests, one module per area, in one test binary
//! (ripgrep's layout: one link instead of one per file).

#![forbid(unsafe_code)]

mod error_text;
mod ipfb;
mod ipfb_idxd_errors;
mod mcol_errors;
mod mcol_fixtures;
mod mcol_seed_dump;
mod regn_idxd_fixtures;
mod sniff;
