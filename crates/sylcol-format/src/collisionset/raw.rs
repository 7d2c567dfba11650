//! A CollisionSet record's on-disk parts as zerocopy views, one declaration
//! for both byte orders (`O` is [`BigEndian`] or [`LittleEndian`], as the
//! record walk decides; see [`Order`]).
//!
//! A record is [`RecordHead`], the name field (`name_len` bytes),
//! [`RecordCounts`], then `vertex_count` [`Vertex`]es and `triangle_count`
//! [`Triangle`]s: its fixed part is the head and the counts, 16 bytes
//! ([`super::RECORD_FIXED`]), split by the name.

use zerocopy::byteorder::{BigEndian, ByteOrder, F32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::{Endian, RECORD_FIXED};

/// The first 8 bytes of a record (+0).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RecordHead<O: ByteOrder> {
    /// +0 u32 size: the bytes after this 8-byte head, which must be
    /// name_len + 8 + 12 vertex_count + 12 triangle_count; the next record
    /// starts at the record's offset + 8 + size.
    pub size: U32<O>,
    /// +4 u32 name_len: the name field's length, a non-zero multiple of 8
    /// (16, 24, 32 seen); the field is the name, NUL-padded.
    pub name_len: U32<O>,
}

/// The two counts after the name field (+8 + name_len).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RecordCounts<O: ByteOrder> {
    /// +8 + name_len: u32 vertex count nv.
    pub vertex_count: U32<O>,
    /// +12 + name_len: u32 triangle count nt.
    pub triangle_count: U32<O>,
}

/// A vertex (from +16 + name_len, 12 bytes each): position `f32[3]`.
pub type Vertex<O> = [F32<O>; 3];

/// A triangle (after the vertices, 12 bytes each): `u32[3]` vertex
/// indices, each below the record's vertex count.
pub type Triangle<O> = [U32<O>; 3];

/// A byte order a library can be in, tied to its [`Endian`] name.
pub trait Order: ByteOrder {
    /// The library's byte order.
    const ENDIAN: Endian;
}

impl Order for BigEndian {
    const ENDIAN: Endian = Endian::Big;
}

impl Order for LittleEndian {
    const ENDIAN: Endian = Endian::Little;
}

const _: () = assert!(size_of::<RecordHead<BigEndian>>() == 8);
const _: () = assert!(size_of::<RecordCounts<BigEndian>>() == 8);
const _: () = assert!(
    (size_of::<RecordHead<BigEndian>>() + size_of::<RecordCounts<BigEndian>>()) as u64
        == RECORD_FIXED
);
const _: () = assert!(size_of::<Vertex<BigEndian>>() == 12);
const _: () = assert!(size_of::<Triangle<LittleEndian>>() == 12);
