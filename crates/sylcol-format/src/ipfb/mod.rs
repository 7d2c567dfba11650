//! IPFB archives: `.pak` index, `.pNN` parts, Z1 compression and entry names
//! (spec: `docs/formats/ipfb.md`).
//!
//! Index file (`<base>.pak`), big-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 4 | magic `IPFB` |
//! | 0x04 | 4 | entry count |
//! | 0x08 | 4 | alignment of entries in a part (0x800) |
//! | 0x0C | 4 | part size (0x10000000): `location = part << 28 \| offset` |
//! | 0x10 + 12 i | 4 | entry i: MakeEntryID hash of the inner name (sorted, unsigned; 0 ends) |
//! | 0x14 + 12 i | 4 | entry i: location (part number in the top 4 bits) |
//! | 0x18 + 12 i | 4 | entry i: stored size in bytes |
//!
//! Part files (`<base>.p00`, `<base>.p01`, ...) hold the entries' stored
//! bytes, each starting on a 2048-byte boundary, zero-filled between. A
//! stored entry starting with `Z1` is compressed:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 2 | `Z1` |
//! | 0x02 | 4 | uncompressed size |
//! | 0x06 | 4 | Adler-32 of the uncompressed bytes |
//! | 0x0A | .. | zlib stream: `78 DA`, raw deflate, big-endian Adler-32 |
//!
//! Any other entry is stored raw. The private `raw` module declares the
//! index header, an index entry and the Z1 header as zerocopy structs (the
//! sizes and offsets above are asserted there). [`Archive`] reads
//! (streaming), [`ArchiveWriter`] writes, [`names`] hashes and shows names.

mod index;
pub mod names;
mod raw;
mod read;
pub mod replace;
pub mod rewrite;
mod write;
mod write_stream;
pub mod z1;

pub use index::{Index, IndexEntry};
pub use names::{EntryIdPiece, EntryIdState, NameBook, make_entry_id};
pub use read::{Archive, ArchiveError, EntryInfo, EntryReader, StoredBytes, split_archive_path};
pub use write::{
    ArchiveWriter, EntryKey, Finished, LeftBehind, NewEntry, WriteError, WriteOptions,
    build_archive,
};

/// Index magic.
pub const MAGIC: &[u8; 4] = b"IPFB";
/// Index header size; entries start here.
pub const HEADER_SIZE: u64 = size_of::<raw::IndexHeaderRaw>() as u64;
/// Size of one index entry.
pub const ENTRY_SIZE: u64 = size_of::<raw::IndexEntryRaw>() as u64;
/// Entry alignment inside a part.
pub const ALIGNMENT: u32 = 0x800;
/// The part size word: a location's part number is `location >> 28`.
pub const PART_SIZE: u32 = 0x1000_0000;
/// Shift of the part number in a location.
pub const PART_SHIFT: u32 = 28;
/// Mask of the in-part offset in a location.
pub const OFFSET_MASK: u32 = 0x0FFF_FFFF;
/// Number of part files a location can address (4 bits).
pub const MAX_PARTS: usize = 16;

/// The file name of part `n` for an index whose file stem is `stem`.
pub fn part_file_name(stem: &str, n: u8) -> String {
    format!("{stem}.p{n:02}")
}

/// The part number of `file_name` if it is `<stem>.pNN` (any letter case,
/// NN below [`MAX_PARTS`]).
pub fn part_number(stem: &str, file_name: &str) -> Option<u8> {
    let file_name = file_name.to_lowercase();
    let stem = stem.to_lowercase();
    (0..MAX_PARTS as u8).find(|&n| part_file_name(&stem, n) == file_name)
}
