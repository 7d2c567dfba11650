//! What the benches share: the sample archive's maps.

use std::path::Path;

use sylcol::format::ipfb::Archive;
use sylcol::format::mcol::Mcol;

/// Every MCOL map of `samples/MiscBin.pak`, in index order, with its
/// entry hash.
pub fn sample_mcols() -> Vec<(u32, Mcol)> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive = Archive::open(Path::new(pak)).expect("samples/MiscBin.pak");
    archive
        .read_with_magic("MCOL")
        .map(|object| {
            let (info, bytes) = object.expect("sample entry");
            let map = sylcol::format::mcol::decode(&bytes).expect("sample map");
            (info.entry.hash, map)
        })
        .collect()
}
