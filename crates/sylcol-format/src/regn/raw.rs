//! The REGN header as a zerocopy big-endian view.

use zerocopy::byteorder::big_endian::{U16, U32};

use crate::grid_prefix::GridPrefixRaw;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Size of the header: the first byte after the six section pointers.
pub const HEADER_SIZE: usize = 0x88;

/// The 0x88-byte header (see the module's layout table). Open fields are
/// raw words.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct HeaderRaw {
    /// 0x00..0x50 the prefix MCOL and REGN share (magic `REGN`).
    pub prefix: GridPrefixRaw,
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
