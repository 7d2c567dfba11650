//! On-disk structures of MCOL, as zerocopy big-endian views.

use zerocopy::byteorder::big_endian::{F32, U16, U32};

use crate::grid_prefix::GridPrefixRaw;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Size of the header.
pub const HEADER_SIZE: usize = 0x80;
/// Size of a cell record (array A).
pub const CELL_SIZE: usize = 32;
/// Size of a list record (array B).
pub const RECORD_SIZE: usize = 32;

/// The 0x80-byte header (see the module's layout table).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct HeaderRaw {
    /// 0x00..0x50 the prefix MCOL and REGN share (magic `MCOL`).
    pub prefix: GridPrefixRaw,
    /// 0x50 vertex count.
    pub vertex_count: U16,
    /// 0x52 triangle count.
    pub triangle_count: U16,
    /// 0x54 -> vertices.
    pub vertices: U32,
    /// 0x58 -> triangles.
    pub triangles: U32,
    /// 0x5C -> spheres.
    pub spheres: U32,
    /// 0x60..0x70 open.
    pub words_60: [U32; 4],
    /// 0x70 grid bytes (nx, ny, nz, 1).
    pub grid: [u8; 4],
    /// 0x74 -> cell array A.
    pub cells: U32,
    /// 0x78, 0x7C open.
    pub words_78: [U32; 2],
}

/// A cell record of array A.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct CellRaw {
    /// (x, y, z, 1).
    pub index: [u8; 4],
    /// Number of B records.
    pub count: U32,
    /// -> first B record (relocated when occupied).
    pub link: U32,
    /// Open.
    pub word3: U32,
    /// Bounding sphere centre xyz, radius.
    pub sphere: [F32; 4],
}

/// A list record of array B.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RecordRaw {
    /// Number of u16 entries.
    pub count: U32,
    /// -> `u16[count]`.
    pub list: U32,
    /// Bytes 8..32, open.
    pub tail: [u8; 24],
}

const _: () = assert!(size_of::<HeaderRaw>() == HEADER_SIZE);
const _: () = assert!(size_of::<CellRaw>() == CELL_SIZE);
const _: () = assert!(size_of::<RecordRaw>() == RECORD_SIZE);
