//! IDXD / IXUD — the game's string tables (spec: `docs/formats/idxd.md`).
//!
//! All words big-endian u32. `IDXD` holds UTF-8 strings and counts string
//! offsets in bytes; `IXUD` holds UTF-16BE strings and counts them in 2-byte
//! code units. Marks: **public** (the ProjectSylpheed unpacker's
//! description, as issue 14 quotes it), **derived**, **open**.
//!
//! | offset | size | field | mark |
//! |---|---|---|---|
//! | 0 | 4 | magic `IDXD` / `IXUD` | public |
//! | 4 | 4 | n1 | public |
//! | 8 | 16 n1 | records {hash, string offset, p1, p2} | public; p1, p2 **open** (raw) |
//! | 8 + 16 n1 | 4 | n2 | public |
//! | 12 + 16 n1 | 12 n2 | pairs {hash, offset 1, offset 2} | public; hash meaning **open** |
//! | 12 + 16 n1 + 12 n2 | 4 | pool size | public; its unit in IXUD **open** |
//! | 16 + 16 n1 + 12 n2 | pool | NUL-terminated strings | public |
//! | after the pool | | anything (kept; `verify` fails) | **open** |
//!
//! A string offset counts from the pool start in the flavour's unit;
//! `0xFFFFFFFF` means no string (public). A valid offset starts a string:
//! the first unit of the pool, or the one right after a terminator
//! (derived). The file is exactly `16 + 16 n1 + 12 n2 + pool bytes` long
//! (derived; checked by `verify`, not required by the decoder).
//!
//! The decoded [`StringTable`] keeps every offset as its raw word and the
//! pool as bytes, so [`encode`] of a [`decode`]d table reproduces it, and
//! strings stay shared exactly as the file shares them. [`text`] gives the
//! line form `export` writes and `build` reads.

mod pool;
mod raw;
mod read;
pub mod text;
mod write;

pub use pool::{Lookup, Pool, PoolString, decode_lossy};
pub use raw::{HeadRaw, PAIR_SIZE, PairRaw, RECORD_SIZE, RecordRaw};
pub use read::decode;
pub use write::{encode, encoded_len};

/// The offset value that means "no string".
pub const NO_STRING: u32 = u32::MAX;

/// Which of the two flavours a table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// `IDXD`: UTF-8 strings, offsets in bytes.
    Idxd,
    /// `IXUD`: UTF-16BE strings, offsets in 2-byte code units.
    Ixud,
}

impl Flavour {
    /// The four magic bytes.
    pub fn magic(self) -> &'static [u8; 4] {
        match self {
            Flavour::Idxd => b"IDXD",
            Flavour::Ixud => b"IXUD",
        }
    }

    /// The magic as text.
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Idxd => "IDXD",
            Flavour::Ixud => "IXUD",
        }
    }

    /// The flavour a magic names.
    pub fn from_magic(magic: &[u8]) -> Option<Flavour> {
        match magic {
            b"IDXD" => Some(Flavour::Idxd),
            b"IXUD" => Some(Flavour::Ixud),
            _ => None,
        }
    }

    /// Bytes per offset unit (and per terminator): 1 or 2.
    pub fn unit(self) -> usize {
        match self {
            Flavour::Idxd => 1,
            Flavour::Ixud => 2,
        }
    }
}

/// How the pool size word counts the pool (open for IXUD; always bytes for
/// IDXD, whose unit is a byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolSizeUnit {
    /// The word is the pool's length in bytes.
    Bytes,
    /// The word is the pool's length in 2-byte code units (IXUD only).
    Units,
}

impl PoolSizeUnit {
    /// `"bytes"` or `"units"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PoolSizeUnit::Bytes => "bytes",
            PoolSizeUnit::Units => "units",
        }
    }
}

/// A record of the first kind: a hash, a string offset and two open words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Record {
    /// The hash word.
    pub hash: u32,
    /// String offset in units, or [`NO_STRING`].
    pub string: u32,
    /// Third word (open).
    pub p1: u32,
    /// Fourth word (open).
    pub p2: u32,
}

/// A record of the second kind: a hash and two string offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The hash word (meaning open).
    pub hash: u32,
    /// First string offset, or [`NO_STRING`].
    pub first: u32,
    /// Second string offset, or [`NO_STRING`].
    pub second: u32,
}

/// A decoded string table: every word and byte of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringTable {
    /// `IDXD` or `IXUD`.
    pub flavour: Flavour,
    /// The records of the first kind, in file order.
    pub records: Vec<Record>,
    /// The records of the second kind, in file order.
    pub pairs: Vec<Pair>,
    /// How the pool size word counts (see [`PoolSizeUnit`]).
    pub pool_size_unit: PoolSizeUnit,
    /// The pool's bytes (an even number for IXUD).
    pub pool: Vec<u8>,
    /// Bytes after the pool, to the end of the input (none in a table that
    /// passes `verify`).
    pub trailer: Vec<u8>,
}

impl StringTable {
    /// An empty table of a flavour (pool size counted in bytes).
    pub fn new(flavour: Flavour) -> Self {
        StringTable {
            flavour,
            records: Vec::new(),
            pairs: Vec::new(),
            pool_size_unit: PoolSizeUnit::Bytes,
            pool: Vec::new(),
            trailer: Vec::new(),
        }
    }

    /// File offset of the pool's first byte.
    pub fn pool_offset(&self) -> u64 {
        16 + (RECORD_SIZE * self.records.len() + PAIR_SIZE * self.pairs.len()) as u64
    }

    /// File offset of record `i`'s string word.
    pub fn record_string_offset(&self, i: usize) -> u64 {
        8 + (RECORD_SIZE * i) as u64 + 4
    }

    /// File offset of pair `i`'s first (`k` = 0) or second (`k` = 1) offset word.
    pub fn pair_offset_word(&self, i: usize, k: usize) -> u64 {
        12 + (RECORD_SIZE * self.records.len() + PAIR_SIZE * i) as u64 + 4 + 4 * k as u64
    }

    /// Every string offset word of the file: (file offset of the word, value),
    /// records first, then both words of each pair.
    pub fn offset_words(&self) -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = (self.records.iter().enumerate())
            .map(|(i, r)| (self.record_string_offset(i), r.string))
            .collect();
        for (i, p) in self.pairs.iter().enumerate() {
            out.push((self.pair_offset_word(i, 0), p.first));
            out.push((self.pair_offset_word(i, 1), p.second));
        }
        out
    }

    /// The pool split into its strings, for lookups (see [`Pool`]).
    pub fn pool(&self) -> Pool<'_> {
        Pool::new(&self.pool, self.flavour)
    }
}

#[cfg(test)]
mod tests;
