//! The REGN header as a zerocopy big-endian view.

use zerocopy::byteorder::big_endian::{F32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Size of the header: the first byte after the six section pointers.
pub const HEADER_SIZE: usize = 0x88;

/// The 0x88-byte header (see the module's layout table). Open fields are
/// raw words.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct HeaderRaw {
    /// 0x00 `REGN`.
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
    /// 0x50 grid dimensions (encoding open) and what follows them.
    pub grid: [u8; 16],
    /// 0x60 six u16 counts.
    pub counts: [U16; 6],
    /// 0x6C open.
    pub word_6c: U32,
    /// 0x70 six section pointers.
    pub pointers: [U32; 6],
}

const _: () = assert!(size_of::<HeaderRaw>() == HEADER_SIZE);
const _: () = assert!(core::mem::offset_of!(HeaderRaw, grid) == 0x50);
const _: () = assert!(core::mem::offset_of!(HeaderRaw, counts) == 0x60);
const _: () = assert!(core::mem::offset_of!(HeaderRaw, pointers) == 0x70);
