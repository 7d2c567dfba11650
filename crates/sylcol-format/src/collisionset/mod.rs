//! CollisionSet — the per-part collision-mesh library (spec: `docs/formats/collisionset.md`).
//!
//! A file is a bare sequence of variable-length records, no header, no
//! index, no padding between records. Byte order is not stated anywhere:
//! the record walk decides it (big-endian expected, little-endian accepted
//! only when the big-endian walk fails and the little-endian one succeeds).
//!
//! | record offset | size | field | status |
//! |---|---|---|---|
//! | +0 | 4 | u32 size: bytes after this 8-byte prefix = name_len + 8 + 12 nv + 12 nt | seed |
//! | +4 | 4 | u32 name_len: a non-zero multiple of 8 (16, 24, 32 seen) | seed |
//! | +8 | name_len | name, NUL-padded (the padding bytes are kept verbatim) | seed; padding rule **open** |
//! | +8 + name_len | 4 | u32 vertex count nv | seed |
//! | +12 + name_len | 4 | u32 triangle count nt | seed |
//! | +16 + name_len | 12 nv | vertices `f32[3]` | seed |
//! | ... | 12 nt | triangles `u32[3]`, each index < nv | seed |
//!
//! The next record starts at offset + 8 + size; the last one ends exactly at
//! the end of the file. Every byte of a valid file is covered by a field, so
//! [`encode`] of a [`decode`]d library reproduces it byte for byte.
//!
//! The parts are declared once for both byte orders ([`RecordHead`],
//! [`RecordCounts`], [`Vertex`], [`Triangle`], generic over [`Order`]);
//! the reader and the writer both go through them.

mod name;
mod raw;
mod read;
mod write;

pub use name::{Family, FamilyCounts, NameReading, PartKind, padded_name_len};
pub use raw::{Order, RecordCounts, RecordHead, Triangle, Vertex};
pub use read::{decode, decode_as, first_record_error, looks_like, may_start};
pub use write::{encode, encoded_len};

use crate::error::EncodeError;

/// Byte order of a library, as decided by the record walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Big-endian (the Xbox 360's order; expected).
    #[default]
    Big,
    /// Little-endian (accepted when only this walk consumes the file).
    Little,
}

impl Endian {
    /// `"big"` or `"little"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Endian::Big => "big",
            Endian::Little => "little",
        }
    }
}

/// A decoded CollisionSet library: its byte order and records, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CollisionSet {
    /// Byte order of every word in the file.
    pub endian: Endian,
    /// The records, in file order.
    pub records: Vec<Record>,
}

/// One record: a named triangle mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The name field exactly as stored: the name, then padding (NUL in every
    /// seen file) up to a multiple of 8 bytes.
    pub name_field: Vec<u8>,
    /// Vertex positions.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

/// Size of a record's fixed part: size, name_len, vertex and triangle counts.
pub const RECORD_FIXED: u64 = 16;

impl Record {
    /// A new record named `name`, with the name field NUL-padded to
    /// [`padded_name_len`]. Refuses names that are empty, hold a NUL, or are
    /// not printable ASCII (the game's names are plain identifiers).
    pub fn new(
        name: &str,
        vertices: Vec<[f32; 3]>,
        triangles: Vec<[u32; 3]>,
    ) -> Result<Record, EncodeError> {
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_graphic()) {
            return Err(EncodeError::CollisionSetRecordName { name: name.into() });
        }
        let mut name_field = name.as_bytes().to_vec();
        name_field.resize(padded_name_len(name.len()), 0);
        Ok(Record {
            name_field,
            vertices,
            triangles,
        })
    }

    /// The name: the name field up to its first NUL, as text (bytes that are
    /// not UTF-8 are shown as U+FFFD).
    pub fn name(&self) -> String {
        let end = self
            .name_field
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(self.name_field.len());
        String::from_utf8_lossy(&self.name_field[..end]).into_owned()
    }

    /// Bytes this record occupies in the file.
    pub fn encoded_len(&self) -> u64 {
        RECORD_FIXED
            + self.name_field.len() as u64
            + 12 * self.vertices.len() as u64
            + 12 * self.triangles.len() as u64
    }

    /// How the name reads as a game resource id (see [`NameReading`]).
    pub fn reading(&self) -> NameReading {
        NameReading::parse(&self.name())
    }
}

impl CollisionSet {
    /// Byte offset of each record, in file order.
    pub fn offsets(&self) -> Vec<u64> {
        let mut at = 0;
        self.records
            .iter()
            .map(|r| {
                let here = at;
                at += r.encoded_len();
                here
            })
            .collect()
    }

    /// Total vertex count over every record.
    pub fn vertex_count(&self) -> usize {
        self.records.iter().map(|r| r.vertices.len()).sum()
    }

    /// Total triangle count over every record.
    pub fn triangle_count(&self) -> usize {
        self.records.iter().map(|r| r.triangles.len()).sum()
    }

    /// The index of the first record whose name is `name` — or, when none
    /// is, whose name is `name` + `_cmesh` (so `rou_e101_bdy` finds the
    /// stored `rou_e101_bdy_cmesh`).
    pub fn position(&self, name: &str) -> Option<usize> {
        let suffixed = format!("{name}_cmesh");
        self.records
            .iter()
            .position(|r| r.name() == name)
            .or_else(|| self.records.iter().position(|r| r.name() == suffixed))
    }

    /// The first record whose name is `name`.
    pub fn get(&self, name: &str) -> Option<&Record> {
        self.position(name).map(|i| &self.records[i])
    }

    /// How many records fall in each name family.
    pub fn families(&self) -> FamilyCounts {
        let mut counts = FamilyCounts::default();
        for r in &self.records {
            counts.add(r.reading().family);
        }
        counts
    }
}

#[cfg(test)]
mod tests;
