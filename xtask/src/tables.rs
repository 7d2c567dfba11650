//! `samples/Tables.pak`: two string tables in the game's IDXD / IXUD
//! layout (docs/formats/idxd.md) that mention some of the maps' names, the
//! way a disc's tables do, among strings that name nothing.
//!
//! Invented (nothing says what the game's tables hold): every string, the
//! record hashes (MakeEntryID of the record's string, 0 without one), `p1`
//! / `p2` (a running number and a kind), the pairs (a map stem's hash and
//! its `.col` / `.rgn` strings), the IXUD pool size counted in 2-byte units.

use sylcol_format::idxd::{self, Flavour, NO_STRING, Pair, PoolSizeUnit, Record, StringTable};
use sylcol_format::ipfb::make_entry_id;

/// Entry name of the IDXD table (UTF-8).
pub const IDXD_NAME: &str = "files.tbl";
/// Entry name of the IXUD table (UTF-16BE).
pub const IXUD_NAME: &str = "eng\\MapNames.tbl";

/// The IDXD table's strings, in pool order.
const IDXD_STRINGS: &[&str] = &[
    "files.tbl",
    "eng\\MapNames.tbl",
    "mapmesh_box_500km.col",
    "mapmesh_box_500km.rgn",
    "S01_AsteroidVolume_wp.col",
    "S01_AsteroidVolume_wp.rgn",
    "S04_AsteroidVolume_wp.col",
    "S05_AsteroidVolume_wp.rgn",
    "CollisionSet_S01.bin",
    "CollisionSet_Tutorial.bin",
    "eng\\GP_TITLE.tbl",
    "texture\\sky_01.xpr",
    "stage\\S01\\event.bin",
];

/// The IXUD table's strings: path forms a harvest must take apart, and text.
const IXUD_STRINGS: &[&str] = &[
    "dat\\hidden\\MiscBin.pak+S13_AsteroidVolume_wp.col",
    "S08_p1_AsteroidVolume_wp.rgn",
    "game:\\hidden\\S14_p1_AsteroidVolume_wp.col",
    "S14_p2_AsteroidVolume",
    "Mission 04: the asteroid belt",
    "\u{5c0f}\u{60d1}\u{661f}\u{5e2f}",
    "sound/bgm/stage04.xwb",
];

/// A table of `strings`: one record per string (sharing string 2 once
/// more, plus a record without a string), and `pairs` of string indices.
fn table(flavour: Flavour, strings: &[&str], pairs: &[(usize, usize)]) -> StringTable {
    let mut t = StringTable::new(flavour);
    let unit = flavour.unit();
    let mut offsets = Vec::new();
    for s in strings {
        offsets.push((t.pool.len() / unit) as u32);
        match flavour {
            Flavour::Idxd => t.pool.extend_from_slice(s.as_bytes()),
            Flavour::Ixud => t.pool.extend(s.encode_utf16().flat_map(u16::to_be_bytes)),
        }
        t.pool.extend(std::iter::repeat_n(0, unit));
    }
    let record = |i: usize, kind: u32| Record {
        hash: make_entry_id(strings[i]),
        string: offsets[i],
        p1: i as u32,
        p2: kind,
    };
    t.records = (0..strings.len()).map(|i| record(i, 1)).collect();
    t.records.push(record(2, 2));
    t.records.push(Record {
        hash: 0,
        string: NO_STRING,
        p1: strings.len() as u32,
        p2: 0,
    });
    t.pairs = pairs
        .iter()
        .map(|&(a, b)| Pair {
            hash: make_entry_id(strings[a].rsplit_once('.').map_or(strings[a], |s| s.0)),
            first: offsets[a],
            second: offsets[b],
        })
        .collect();
    if flavour == Flavour::Ixud {
        t.pool_size_unit = PoolSizeUnit::Units;
    }
    t
}

/// The two tables: (entry name, encoded bytes).
pub fn tables() -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
    let idxd = table(Flavour::Idxd, IDXD_STRINGS, &[(2, 3), (4, 5)]);
    let ixud = table(Flavour::Ixud, IXUD_STRINGS, &[]);
    Ok(vec![
        (IDXD_NAME, idxd::encode(&idxd)?),
        (IXUD_NAME, idxd::encode(&ixud)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_decode_to_their_strings() {
        let tables = tables().unwrap();
        let mut texts = Vec::new();
        for (name, bytes) in &tables {
            let t = idxd::decode(bytes).unwrap();
            assert_eq!(idxd::encode(&t).unwrap(), *bytes, "{name}");
            assert!(t.trailer.is_empty());
            let pool = t.pool();
            for r in &t.records {
                match pool.text_at(r.string) {
                    Some(text) => assert_eq!(r.hash, make_entry_id(&text)),
                    None => assert_eq!((r.string, r.hash), (NO_STRING, 0)),
                }
            }
            texts.extend((0..pool.strings.len()).map(|i| pool.text(i)));
        }
        let all: Vec<&str> = IDXD_STRINGS.iter().chain(IXUD_STRINGS).copied().collect();
        assert_eq!(texts, all);
        let ixud = idxd::decode(&tables[1].1).unwrap();
        assert_eq!(
            (ixud.flavour, ixud.pool_size_unit),
            (Flavour::Ixud, PoolSizeUnit::Units)
        );
    }
}
