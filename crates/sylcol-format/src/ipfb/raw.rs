//! The IPFB index's header and entries and the Z1 header as zerocopy
//! big-endian views (layout: the tables in [`super`]). The readers and
//! writers take their sizes and offsets from these structs.

use zerocopy::byteorder::big_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The index's 16-byte header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct IndexHeaderRaw {
    /// 0x00 magic `IPFB`.
    pub magic: [u8; 4],
    /// 0x04 entry count.
    pub count: U32,
    /// 0x08 alignment of entries in a part (0x800).
    pub alignment: U32,
    /// 0x0C part size (0x10000000): `location = part << 28 | offset`.
    pub part_size: U32,
}

/// One 12-byte index entry.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct IndexEntryRaw {
    /// +0 MakeEntryID hash of the inner name (sorted, unsigned; 0 ends
    /// the table).
    pub hash: U32,
    /// +4 location: the part number in the top 4 bits, the offset in the
    /// part below.
    pub location: U32,
    /// +8 stored size in bytes.
    pub stored_size: U32,
}

/// The fixed 10 bytes before a Z1 entry's zlib stream.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Z1HeaderRaw {
    /// 0x00 magic `Z1` ([`Z1_MAGIC`]).
    pub magic: [u8; 2],
    /// 0x02 uncompressed size.
    pub size: U32,
    /// 0x06 Adler-32 of the uncompressed bytes.
    pub adler: U32,
}

/// A Z1 entry's magic.
pub const Z1_MAGIC: [u8; 2] = *b"Z1";

impl Z1HeaderRaw {
    /// The header of an entry of `size` uncompressed bytes whose Adler-32
    /// is `adler`.
    pub fn new(size: u32, adler: u32) -> Self {
        Z1HeaderRaw {
            magic: Z1_MAGIC,
            size: size.into(),
            adler: adler.into(),
        }
    }
}

const _: () = assert!(size_of::<IndexHeaderRaw>() == 0x10);
const _: () = assert!(core::mem::offset_of!(IndexHeaderRaw, count) == 0x04);
const _: () = assert!(core::mem::offset_of!(IndexHeaderRaw, alignment) == 0x08);
const _: () = assert!(core::mem::offset_of!(IndexHeaderRaw, part_size) == 0x0C);
const _: () = assert!(size_of::<IndexEntryRaw>() == 12);
const _: () = assert!(core::mem::offset_of!(IndexEntryRaw, location) == 4);
const _: () = assert!(core::mem::offset_of!(IndexEntryRaw, stored_size) == 8);
const _: () = assert!(size_of::<Z1HeaderRaw>() == 10);
const _: () = assert!(core::mem::offset_of!(Z1HeaderRaw, size) == 0x02);
const _: () = assert!(core::mem::offset_of!(Z1HeaderRaw, adler) == 0x06);
