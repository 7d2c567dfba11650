//! What the benches share: the sample archive's maps.

use std::path::Path;

use sylcol::format::ipfb::Archive;
use sylcol::format::mcol::Mcol;

/// Every MCOL map of `samples/MiscBin.pak`, in index order, with its
/// entry hash.
pub fn sample_mcols() -> Vec<(u32, Mcol)> {
    let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/MiscBin.pak");
    let archive = Archive::open(Path::new(pak)).expect("samples/MiscBin.pak");
    let mut maps = Vec::new();
    for e in archive.entries() {
        let info = archive.probe(e).expect("probe");
        if info.magic.as_deref() != Some("MCOL") {
            continue;
        }
        let bytes = archive.read_entry(&info).expect("read entry");
        maps.push((
            e.hash,
            sylcol::format::mcol::decode(&bytes).expect("sample map"),
        ));
    }
    maps
}
