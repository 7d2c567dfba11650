//! On-disk structures of IDXD / IXUD, as zerocopy big-endian views.

use zerocopy::byteorder::big_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Size of a record of the first kind.
pub const RECORD_SIZE: usize = 16;
/// Size of a record of the second kind.
pub const PAIR_SIZE: usize = 12;

/// The first 8 bytes: magic and the first count.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct HeadRaw {
    /// `IDXD` or `IXUD`.
    pub magic: [u8; 4],
    /// n1, the number of records.
    pub count: U32,
}

/// A record: hash, string offset, two open words.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RecordRaw {
    /// Hash.
    pub hash: U32,
    /// String offset in units (0xFFFFFFFF: none).
    pub string: U32,
    /// Open.
    pub p1: U32,
    /// Open.
    pub p2: U32,
}

/// A pair: hash and two string offsets.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct PairRaw {
    /// Hash (meaning open).
    pub hash: U32,
    /// First string offset.
    pub first: U32,
    /// Second string offset.
    pub second: U32,
}

const _: () = assert!(size_of::<HeadRaw>() == 8);
const _: () = assert!(size_of::<RecordRaw>() == RECORD_SIZE);
const _: () = assert!(size_of::<PairRaw>() == PAIR_SIZE);
