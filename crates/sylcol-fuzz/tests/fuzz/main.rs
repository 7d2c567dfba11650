//! sylcol-fuzz's tests (the fuzz targets' found inputs, replays of the
//! corpora, mutation tallies), one module per area, in one test binary.

#![forbid(unsafe_code)]

mod found;
mod mutations;
mod replay;
