//! The eleven synthetic REGN objects, one beside each map, built from what
//! the write-ups state about REGN and nothing more: MCOL's header prefix
//! (the partner's bbox, pads, extent and cell size), grid dimensions at
//! 0x50, six u16 counts at 0x60, six relocated section pointers at 0x70,
//! sections cell -> item -> refs -> geometry (tetrahedra, 12-byte vertices),
//! one item per occupied cell. Every other choice is invented (listed in
//! samples/README.md): the order of the six sections, the record layouts,
//! the grid stored as `u32[3]`, which cells are occupied (the partner MCOL's).

use std::collections::HashMap;

use anyhow::Context;
use sylcol_format::ipfb::EntryKey;
use sylcol_format::mcol::Mcol;
use sylcol_format::regn::{self, GridPrefix, Header, NewSection};

/// Each map's REGN entry key, and the MCOL's name when known: `(seed id,
/// REGN key, MCOL name)`. The MCOL is stored under the seed's id; a name
/// given here hashes (MakeEntryID) to exactly that id. `mapmesh_box_500km`
/// is the seed's own; the eight `S.._AsteroidVolume_wp.col` were found by
/// `sylcol names guess 'S{01..16}{,_p1,_p2}_AsteroidVolume_wp.col'` (the
/// issue's own hypothesis): each hashes to a seed id (docs/names.md). The
/// REGN of a named map is keyed by the same stem with `.rgn`, as the seed
/// saw for the box map; the two maps no name is known for get invented
/// REGN keys.
pub const MAP_NAMES: [(u32, RegnKey, Option<&str>); 11] = [
    (0x2CF7EB47, RegnKey::Hash(0x3CF7_EB47), None),
    (
        0xCBB99D34,
        RegnKey::Name("mapmesh_box_500km.rgn"),
        Some("mapmesh_box_500km.col"),
    ),
    (
        0xD84A95FB,
        RegnKey::Name("S01_AsteroidVolume_wp.rgn"),
        Some("S01_AsteroidVolume_wp.col"),
    ),
    (
        0xDB066592,
        RegnKey::Name("S04_AsteroidVolume_wp.rgn"),
        Some("S04_AsteroidVolume_wp.col"),
    ),
    (
        0xDB61C506,
        RegnKey::Name("S13_AsteroidVolume_wp.rgn"),
        Some("S13_AsteroidVolume_wp.col"),
    ),
    (
        0xDC44FE0C,
        RegnKey::Name("S05_AsteroidVolume_wp.rgn"),
        Some("S05_AsteroidVolume_wp.col"),
    ),
    (
        0xDC4B0896,
        RegnKey::Name("S14_p1_AsteroidVolume_wp.rgn"),
        Some("S14_p1_AsteroidVolume_wp.col"),
    ),
    (
        0xDD89A110,
        RegnKey::Name("S14_p2_AsteroidVolume_wp.rgn"),
        Some("S14_p2_AsteroidVolume_wp.col"),
    ),
    (
        0xDF4628C2,
        RegnKey::Name("S08_p1_AsteroidVolume_wp.rgn"),
        Some("S08_p1_AsteroidVolume_wp.col"),
    ),
    (
        0xE084C13C,
        RegnKey::Name("S08_p2_AsteroidVolume_wp.rgn"),
        Some("S08_p2_AsteroidVolume_wp.col"),
    ),
    (0xE16460CF, RegnKey::Hash(0xF164_60CF), None),
];

/// How a REGN entry is keyed in the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegnKey {
    /// Under the hash of this name.
    Name(&'static str),
    /// Under an invented hash (no name is known for the map).
    Hash(u32),
}

/// The archive key of the REGN beside the map with seed id `id`.
pub fn regn_key(id: u32) -> Option<EntryKey> {
    MAP_NAMES.iter().find(|m| m.0 == id).map(|m| match m.1 {
        RegnKey::Name(n) => EntryKey::Name(n.to_string()),
        RegnKey::Hash(h) => EntryKey::Hash(h),
    })
}

fn be(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The REGN beside `mcol`: same bbox, pads, extent and cell size; a dense
/// 16-byte cell record per grid cell ((x, y, z, 1), count 1, item number,
/// 0; zeros for a cell the MCOL leaves empty); 8-byte items {first ref,
/// ref count 1}; u16 refs; one tetrahedron per occupied cell (4 u16 lattice
/// vertex indices: the cell's min corner and its three neighbours along
/// the axes); 12-byte vertices (`f32[3]` lattice points); 4-byte faces
/// {u16 tetrahedron, u16 face number}, four per tetrahedron.
pub fn regn(mcol: &Mcol) -> anyhow::Result<Vec<u8>> {
    let h = &mcol.header;
    let [nx, ny, nz] = h.dims();
    let mut lattice: HashMap<[usize; 3], u16> = HashMap::new();
    let mut vertices = Vec::new();
    let mut vertex = |p: [usize; 3]| -> anyhow::Result<u16> {
        if let Some(&i) = lattice.get(&p) {
            return Ok(i);
        }
        let i = u16::try_from(vertices.len() / 12).context("more than 65 535 vertices")?;
        for (k, &n) in p.iter().enumerate() {
            let c = h.prefix.bbox_min[k] + h.prefix.cell_size[k] * n as f32;
            vertices.extend_from_slice(&c.to_be_bytes());
        }
        lattice.insert(p, i);
        Ok(i)
    };
    let (mut cells, mut items, mut refs, mut tets, mut faces) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut item = 0u32;
    for (i, cell) in mcol.cells.iter().enumerate() {
        let (x, y, z) = (i % nx, i / nx % ny, i / (nx * ny));
        if cell.record().is_none() {
            cells.extend_from_slice(&[0; 16]);
            continue;
        }
        cells.extend_from_slice(&[x as u8, y as u8, z as u8, 1]);
        cells.extend(be(&[1, item, 0]));
        items.extend(be(&[item, 1]));
        refs.extend_from_slice(&(item as u16).to_be_bytes());
        for corner in [[x, y, z], [x + 1, y, z], [x, y + 1, z], [x, y, z + 1]] {
            tets.extend_from_slice(&vertex(corner)?.to_be_bytes());
        }
        for face in 0..4u16 {
            faces.extend_from_slice(&(item as u16).to_be_bytes());
            faces.extend_from_slice(&face.to_be_bytes());
        }
        item += 1;
    }
    let occupied = u16::try_from(item).context("too many occupied cells")?;
    let count = |n: usize| u16::try_from(n).context("a section count past u16");
    let sections = [
        NewSection {
            count: count(nx * ny * nz)?,
            bytes: cells,
        },
        NewSection {
            count: occupied,
            bytes: items,
        },
        NewSection {
            count: occupied,
            bytes: refs,
        },
        NewSection {
            count: occupied,
            bytes: tets,
        },
        NewSection {
            count: count(vertices.len() / 12)?,
            bytes: vertices,
        },
        NewSection {
            count: count(4 * item as usize)?,
            bytes: faces,
        },
    ];
    let mut grid = [0u8; 16];
    grid[..12].copy_from_slice(&be(&[nx as u32, ny as u32, nz as u32]));
    let header = Header {
        // The MCOL's space; its open words are not the REGN's.
        prefix: GridPrefix {
            word_08: [0; 2],
            word_4c: 0,
            ..h.prefix
        },
        grid,
        counts: [0; 6],
        word_6c: 0,
        pointers: [0; 6],
    };
    Ok(regn::encode(&regn::from_sections(header, sections)?)?)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use sylcol_format::ipfb::make_entry_id;
    use sylcol_format::regn::{Rule, assumptions, grid_reading};

    /// A sample REGN beside its MCOL: the same bbox, pads, extent, cell size
    /// and grid; every checked assumption holds; one cell record and one
    /// item per occupied MCOL cell; vertices inside the bbox.
    pub fn check_partner(mcol: &Mcol, bytes: &[u8]) {
        let r = regn::decode(bytes).unwrap();
        assert_eq!(regn::encode(&r).unwrap(), bytes);
        let (a, b) = (&r.header, &mcol.header);
        assert_eq!(
            (a.prefix.bbox_min, a.prefix.bbox_max, a.prefix.extent),
            (b.prefix.bbox_min, b.prefix.bbox_max, b.prefix.extent)
        );
        assert_eq!(
            (a.prefix.pads, a.prefix.cell_size),
            (b.prefix.pads, b.prefix.cell_size)
        );
        let dims = grid_reading(&r).unwrap().dims;
        assert_eq!(dims, b.dims().map(|n| n as u64));
        for check in assumptions(&r) {
            assert!(
                check.holds() && check.cases > 0,
                "{:?}: {:?}",
                check.rule,
                check.breaks
            );
        }
        let scan = regn::cell_scan(&r, dims);
        assert_eq!(scan[0].occupied.len(), mcol.occupied_cells());
        assert_eq!(usize::from(r.header.counts[1]), mcol.occupied_cells());
        let inside = |v: &[f32; 3]| {
            (0..3).all(|k| (a.prefix.bbox_min[k]..=a.prefix.bbox_max[k]).contains(&v[k]))
        };
        assert!(r.vertices().unwrap().iter().all(inside));
        assert_eq!(Rule::ALL.len(), assumptions(&r).len());
    }

    #[test]
    fn known_names_hash_to_the_seed_ids() {
        for (id, key, name) in MAP_NAMES {
            if let Some(name) = name {
                assert_eq!(make_entry_id(name), id, "{name}");
                let stem = name.strip_suffix(".col").unwrap();
                match key {
                    RegnKey::Name(regn) => assert_eq!(regn, format!("{stem}.rgn")),
                    RegnKey::Hash(_) => panic!("{name}: a named map's REGN is keyed by name"),
                }
            }
        }
        assert_eq!(MAP_NAMES.iter().filter(|m| m.2.is_some()).count(), 9);
    }
}
