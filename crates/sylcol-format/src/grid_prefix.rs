//! The 0x50-byte prefix that MCOL and REGN share: magic, data size and the
//! grid's space (box, extent, cell size), with the same open words in the
//! same places. Both headers embed [`GridPrefixRaw`] as their first field
//! and both models hold a [`GridPrefix`], so the prefix is read, written
//! and documented once.
//!
//! All values big-endian; offsets are chunk offsets.
//!
//! | offset | size | field | status |
//! |---|---|---|---|
//! | 0x00 | 4 | magic (`MCOL`, `REGN`) | known |
//! | 0x04 | 4 | data size; the POF0 table starts at 0x10 + data size | known |
//! | 0x08 | 8 | two words | **open**, kept |
//! | 0x10 | 16 | bbox min `f32[3]`, pad word (1.0 in every seen file) | known; pad kept raw |
//! | 0x20 | 16 | bbox max `f32[3]`, pad word (1.0) | known; pad kept raw |
//! | 0x30 | 16 | extent = max - min `f32[3]`, pad word (0.0) | known; pad kept raw |
//! | 0x40 | 12 | cell size `f32[3]` | known |
//! | 0x4C | 4 | word | **open**, kept |

use zerocopy::byteorder::big_endian::{F32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Size of the shared prefix.
pub const GRID_PREFIX_SIZE: usize = 0x50;

/// Chunk offsets of the three pad words (after bbox min, bbox max, extent).
pub const PAD_OFFSETS: [u64; 3] = [0x1C, 0x2C, 0x3C];

/// The prefix as stored (see the module's layout table).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct GridPrefixRaw {
    /// 0x00 the format's magic.
    pub magic: [u8; 4],
    /// 0x04 data size: the POF0 table starts at 0x10 + this.
    pub data_size: U32,
    /// 0x08, 0x0C: open.
    pub word_08: [U32; 2],
    /// 0x10 bbox min xyz.
    pub bbox_min: [F32; 3],
    /// 0x1C pad word, raw bits.
    pub pad_min: U32,
    /// 0x20 bbox max xyz.
    pub bbox_max: [F32; 3],
    /// 0x2C pad word, raw bits.
    pub pad_max: U32,
    /// 0x30 extent xyz.
    pub extent: [F32; 3],
    /// 0x3C pad word, raw bits.
    pub pad_extent: U32,
    /// 0x40 cell size xyz.
    pub cell_size: [F32; 3],
    /// 0x4C open.
    pub word_4c: U32,
}

const _: () = assert!(size_of::<GridPrefixRaw>() == GRID_PREFIX_SIZE);

/// The prefix's fields, less the magic and the data size (each format's
/// encoder writes those).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPrefix {
    /// 0x08, 0x0C (open).
    pub word_08: [u32; 2],
    /// 0x10 bbox min.
    pub bbox_min: [f32; 3],
    /// 0x20 bbox max.
    pub bbox_max: [f32; 3],
    /// 0x30 extent (max - min).
    pub extent: [f32; 3],
    /// Raw bits of the pad words at 0x1C, 0x2C, 0x3C (1.0, 1.0, 0.0 seen).
    pub pads: [u32; 3],
    /// 0x40 cell size per axis.
    pub cell_size: [f32; 3],
    /// 0x4C (open).
    pub word_4c: u32,
}

impl GridPrefix {
    /// The prefix of a file written afresh for the box `min..max` with
    /// cells of `cell_size`: the pad words every seen file has (1.0, 1.0,
    /// 0.0), extent = max - min, the open words zero.
    pub fn new(min: [f32; 3], max: [f32; 3], cell_size: [f32; 3]) -> Self {
        GridPrefix {
            word_08: [0; 2],
            bbox_min: min,
            bbox_max: max,
            extent: std::array::from_fn(|k| max[k] - min[k]),
            pads: [1f32.to_bits(), 1f32.to_bits(), 0],
            cell_size,
            word_4c: 0,
        }
    }

    /// The fields of a stored prefix.
    pub fn from_raw(r: &GridPrefixRaw) -> Self {
        GridPrefix {
            word_08: r.word_08.map(|w| w.get()),
            bbox_min: r.bbox_min.map(|f| f.get()),
            bbox_max: r.bbox_max.map(|f| f.get()),
            extent: r.extent.map(|f| f.get()),
            pads: [r.pad_min.get(), r.pad_max.get(), r.pad_extent.get()],
            cell_size: r.cell_size.map(|f| f.get()),
            word_4c: r.word_4c.get(),
        }
    }

    /// The prefix as stored, with the format's `magic` and `data_size`.
    pub fn to_raw(&self, magic: [u8; 4], data_size: u32) -> GridPrefixRaw {
        GridPrefixRaw {
            magic,
            data_size: U32::new(data_size),
            word_08: self.word_08.map(U32::new),
            bbox_min: self.bbox_min.map(F32::new),
            pad_min: U32::new(self.pads[0]),
            bbox_max: self.bbox_max.map(F32::new),
            pad_max: U32::new(self.pads[1]),
            extent: self.extent.map(F32::new),
            pad_extent: U32::new(self.pads[2]),
            cell_size: self.cell_size.map(F32::new),
            word_4c: U32::new(self.word_4c),
        }
    }

    /// Cells per axis implied by the box and the cell size,
    /// ceil((max - min) / cell size) ([`crate::chunk::axis_cells`]; `None`
    /// where that is not a count).
    pub fn implied_cells(&self) -> [Option<u64>; 3] {
        std::array::from_fn(|k| {
            crate::chunk::axis_cells(self.bbox_min[k], self.bbox_max[k], self.cell_size[k])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::FromZeros;

    #[test]
    fn a_prefix_round_trips_through_its_raw_form_bit_for_bit() {
        let p = GridPrefix {
            word_08: [0xDEAD_BEEF, 7],
            bbox_min: [-1.5, f32::from_bits(0x8000_0001), 3.0],
            bbox_max: [1.5, 2.0, f32::NAN],
            extent: [3.0, 2.0, 0.25],
            pads: [0x3F80_0000, 0x3F80_0001, 0xFFFF_FFFF],
            cell_size: [0.5, 0.5, 1.0],
            word_4c: 0x0102_0304,
        };
        let raw = p.to_raw(*b"REGN", 0x1234);
        let bytes = raw.as_bytes();
        assert_eq!(&bytes[..4], b"REGN");
        assert_eq!(&bytes[4..8], &[0, 0, 0x12, 0x34]);
        assert_eq!(&bytes[0x2C..0x30], &[0x3F, 0x80, 0, 1]);
        assert_eq!(&bytes[0x4C..0x50], &[1, 2, 3, 4]);
        let back = GridPrefix::from_raw(&GridPrefixRaw::read_from_bytes(bytes).unwrap());
        // Compare bits: NaN is not equal to itself.
        assert_eq!(
            back.bbox_max.map(f32::to_bits),
            p.bbox_max.map(f32::to_bits)
        );
        assert_eq!(
            back.bbox_min.map(f32::to_bits),
            p.bbox_min.map(f32::to_bits)
        );
        assert_eq!(back.to_raw(*b"REGN", 0x1234).as_bytes(), bytes);
    }

    #[test]
    fn implied_cells_are_the_ceiling_of_the_box_over_the_cell() {
        let mut p = GridPrefix::from_raw(&GridPrefixRaw::new_zeroed());
        p.bbox_min = [0.0, 0.0, 0.0];
        p.bbox_max = [10.0, 9.5, 1.0];
        p.cell_size = [1.0, 1.0, 0.0];
        assert_eq!(p.implied_cells()[..2], [Some(10), Some(10)]);
        assert_eq!(p.implied_cells()[2], None);
    }
}
