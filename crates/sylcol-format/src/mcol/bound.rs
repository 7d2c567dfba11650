//! The most bytes an MCOL can take, judged from its 0x80-byte header
//! alone: what lets a reader refuse an entry that declares more before it
//! inflates a byte of it (`docs/formats/mcol.md`, "Size bound").
//!
//! | part | bytes at most | from |
//! |---|---|---|
//! | header | 0x80 | seed |
//! | spheres | 16 nt | seed: one {centre, radius} per triangle |
//! | vertices, triangles | align16(12 nv), align16(6 nt) | seed |
//! | cell array A | 32 C, C = nx ny nz (grid bytes at 0x70) | seed / derived: dense |
//! | list records B | 32 C | seed: one record per occupied cell (`mcol.cells.one_record`) |
//! | lists | 2 nt C | a cell lists each triangle at most once |
//! | POF0 table | 8 + 4 (4 + 2 C) | seed: 4 header pointers + 2 per occupied cell, each entry at most 4 bytes |
//! | padding, bytes after the table | 16 + [`SLACK`] | open: alignment; nothing in sylcol's own files |
//!
//! The bound is loose on purpose (every cell occupied, every list holding
//! every triangle): the sample's copy of the seed's 5x5x5 map of 924
//! triangles (`$DC4B0896`) is 38 408 bytes against a bound of 270 632. It
//! is not a decode rule: it bounds the declared size of an object a
//! reader is about to hold ([`crate::budget::admit`]).

use zerocopy::FromBytes;

use super::raw::{CELL_SIZE, HEADER_SIZE, HeaderRaw, RECORD_SIZE};

/// Bytes allowed beyond the structures: padding between blocks and
/// whatever follows the POF0 table (open; sylcol's own files have none).
pub const SLACK: u64 = 4096;

/// What an MCOL header allows: its counts, its grid and the bytes they
/// can fill at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeBound {
    /// Vertex count (0x50).
    pub vertices: u16,
    /// Triangle count (0x52).
    pub triangles: u16,
    /// Grid dimensions (0x70..0x73).
    pub grid: [u8; 3],
    /// The most bytes an MCOL with this header can take.
    pub bytes: u64,
}

impl std::fmt::Display for SizeBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.grid;
        write!(
            f,
            "an MCOL of {} vertices, {} triangles and a {x} x {y} x {z} grid takes at most {} bytes",
            self.vertices, self.triangles, self.bytes
        )
    }
}

/// The bound of the MCOL whose first bytes are `head` (from its magic on);
/// `None` when `head` holds less than the 0x80-byte header or is no MCOL.
pub fn max_size(head: &[u8]) -> Option<SizeBound> {
    let (h, _) = HeaderRaw::ref_from_prefix(head).ok()?;
    if &h.prefix.magic != b"MCOL" {
        return None;
    }
    let nv = u64::from(h.vertex_count.get());
    let nt = u64::from(h.triangle_count.get());
    let [x, y, z, _] = h.grid;
    let cells = u64::from(x) * u64::from(y) * u64::from(z);
    let align16 = |n: u64| n.div_ceil(16) * 16;
    let blocks = HEADER_SIZE as u64 + 16 * nt + align16(12 * nv) + align16(6 * nt);
    let grid = (CELL_SIZE + RECORD_SIZE) as u64 * cells + 2 * nt * cells;
    let pof0 = 8 + 4 * (4 + 2 * cells);
    Some(SizeBound {
        vertices: h.vertex_count.get(),
        triangles: h.triangle_count.get(),
        grid: [x, y, z],
        bytes: blocks + grid + pof0 + 16 + SLACK,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let dir = env!("CARGO_MANIFEST_DIR");
        std::fs::read(format!("{dir}/../../tests/fixtures/{name}")).unwrap()
    }

    #[test]
    fn every_fixture_fits_its_bound() {
        for name in ["box.mcol", "twin.mcol", "quirks.mcol"] {
            let bytes = fixture(name);
            let bound = max_size(&bytes).unwrap();
            assert!(bound.bytes >= bytes.len() as u64, "{name}: {bound}");
        }
    }

    #[test]
    fn the_bound_reads_the_counts_and_the_grid() {
        let mut head = fixture("twin.mcol")[..0x80].to_vec();
        head[0x50..0x54].copy_from_slice(&[0, 0, 0, 0]);
        head[0x70..0x73].copy_from_slice(&[0, 0, 0]);
        let empty = max_size(&head).unwrap();
        assert_eq!(empty.bytes, 0x80 + 8 + 16 + 16 + SLACK);
        head[0x50..0x54].copy_from_slice(&[0xFF; 4]);
        head[0x70..0x73].copy_from_slice(&[0xFF; 3]);
        let full = max_size(&head).unwrap();
        let cells = 255u64.pow(3);
        assert!(full.bytes > 2 * 65_535 * cells, "{full}");
        assert!(
            full.to_string()
                .contains("65535 triangles and a 255 x 255 x 255 grid")
        );
        assert_eq!(max_size(&head[..0x7F]), None);
        head[0] = b'X';
        assert_eq!(max_size(&head), None);
    }
}
