//! The `.pak` index: header and 12-byte entries.

use core::mem::offset_of;

use zerocopy::{FromBytes, IntoBytes};

use crate::bytes::slice;
use crate::error::{DecodeError, DecodeErrorKind};

use super::raw::{IndexEntryRaw, IndexHeaderRaw};
use super::{ALIGNMENT, ENTRY_SIZE, HEADER_SIZE, MAGIC, OFFSET_MASK, PART_SHIFT, PART_SIZE};

/// One index entry: where an entry's stored bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    /// Position in the index (0-based).
    pub slot: usize,
    /// MakeEntryID of the entry's name.
    pub hash: u32,
    /// Part number (`location >> 28`): file `<base>.pNN`.
    pub part: u8,
    /// Byte offset in the part (`location & 0x0FFFFFFF`).
    pub offset: u32,
    /// Stored (possibly compressed) size in bytes.
    pub stored_size: u32,
}

impl IndexEntry {
    /// The packed location word.
    pub fn location(&self) -> u32 {
        (u32::from(self.part) << PART_SHIFT) | self.offset
    }

    /// Byte offset of this entry's record in the index file.
    pub fn index_offset(&self) -> u64 {
        HEADER_SIZE + self.slot as u64 * ENTRY_SIZE
    }
}

/// A parsed index, with what it breaks that does not stop reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// Entry count as the header states it.
    pub declared_count: u32,
    /// Alignment word (0x800 in the game's archives).
    pub alignment: u32,
    /// Part size word (0x10000000 in the game's archives).
    pub part_size: u32,
    /// Entries read, up to a zero hash or the end of the file.
    pub entries: Vec<IndexEntry>,
    /// Problems found that leave the entries usable (truncation, order).
    pub problems: Vec<DecodeError>,
    /// Whether hashes are strictly increasing (binary search is valid).
    pub sorted: bool,
}

impl Index {
    /// Parses an index file. Fails only on a missing or bad header; a
    /// truncated entry table keeps the complete entries and records a problem.
    pub fn parse(data: &[u8]) -> Result<Index, DecodeError> {
        let magic = slice(data, 0, 4, "IPFB header")?;
        if magic != MAGIC {
            return Err(DecodeError::new(
                0,
                DecodeErrorKind::BadMagic {
                    expected: "IPFB".into(),
                    found: crate::bytes::show_magic(magic),
                },
            ));
        }
        let Ok((header, table)) = IndexHeaderRaw::ref_from_prefix(data) else {
            return Err(DecodeError::new(
                0,
                DecodeErrorKind::Truncated {
                    what: "IPFB header",
                    needed: HEADER_SIZE,
                    available: data.len() as u64,
                },
            ));
        };
        let declared_count = header.count.get();
        let (alignment, part_size) = (header.alignment.get(), header.part_size.get());
        let mut problems = header_problems(alignment, part_size);
        let room = table.len() as u64 / ENTRY_SIZE;
        let readable = u64::from(declared_count).min(room);
        if readable < u64::from(declared_count) {
            problems.push(DecodeError::new(
                HEADER_SIZE + readable * ENTRY_SIZE,
                DecodeErrorKind::Truncated {
                    what: "IPFB entry table",
                    needed: u64::from(declared_count) * ENTRY_SIZE,
                    available: table.len() as u64,
                },
            ));
        }
        // `readable` is bounded by the file length, so the view fits (an
        // error, never a panic, if it did not) and the allocation below is
        // bounded too.
        let (raw, _) = <[IndexEntryRaw]>::ref_from_prefix_with_elems(table, readable as usize)
            .map_err(|_| {
                DecodeError::new(
                    HEADER_SIZE,
                    DecodeErrorKind::Truncated {
                        what: "IPFB entry table",
                        needed: readable * ENTRY_SIZE,
                        available: table.len() as u64,
                    },
                )
            })?;
        let mut entries = Vec::with_capacity(raw.len());
        for (slot, e) in raw.iter().enumerate() {
            let hash = e.hash.get();
            if hash == 0 {
                problems.extend(hidden_after_zero(raw, slot, declared_count));
                break;
            }
            let location = e.location.get();
            entries.push(IndexEntry {
                slot,
                hash,
                part: (location >> PART_SHIFT) as u8,
                offset: location & OFFSET_MASK,
                stored_size: e.stored_size.get(),
            });
        }
        let sorted = check_order(&entries, &mut problems);
        Ok(Index {
            declared_count,
            alignment,
            part_size,
            entries,
            problems,
            sorted,
        })
    }

    /// The entry with `hash` (binary search when sorted, else a scan).
    pub fn find(&self, hash: u32) -> Option<&IndexEntry> {
        if self.sorted {
            let i = self.entries.binary_search_by_key(&hash, |e| e.hash).ok()?;
            Some(&self.entries[i])
        } else {
            self.entries.iter().find(|e| e.hash == hash)
        }
    }

    /// Encodes an index for `entries` (sorted by the caller).
    pub fn encode(entries: &[IndexEntry]) -> Vec<u8> {
        let header = IndexHeaderRaw {
            magic: *MAGIC,
            count: (entries.len() as u32).into(),
            alignment: ALIGNMENT.into(),
            part_size: PART_SIZE.into(),
        };
        let mut out = header.as_bytes().to_vec();
        out.extend_from_slice(&Index::encode_entries(entries));
        out
    }

    /// Encodes the entry table alone: `entries` in the order given.
    pub fn encode_entries(entries: &[IndexEntry]) -> Vec<u8> {
        let mut out = Vec::with_capacity(entries.len() * ENTRY_SIZE as usize);
        for e in entries {
            let raw = IndexEntryRaw {
                hash: e.hash.into(),
                location: e.location().into(),
                stored_size: e.stored_size.into(),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        out
    }
}

/// The table ends at the zero hash in `slot`, as the game reads it; a
/// problem when a slot after it (of the `readable` ones) still holds a
/// hash: entries the header counts that no reader ever sees.
fn hidden_after_zero(table: &[IndexEntryRaw], slot: usize, declared: u32) -> Option<DecodeError> {
    let hidden = table[slot + 1..]
        .iter()
        .filter(|e| e.hash.get() != 0)
        .count();
    (hidden > 0).then(|| {
        DecodeError::new(
            HEADER_SIZE + slot as u64 * ENTRY_SIZE,
            DecodeErrorKind::IndexEndsAtZeroHash {
                slot: slot as u64,
                hidden: hidden as u64,
                declared,
            },
        )
    })
}

fn header_problems(alignment: u32, part_size: u32) -> Vec<DecodeError> {
    let mut problems = Vec::new();
    if alignment != ALIGNMENT {
        problems.push(DecodeError::new(
            offset_of!(IndexHeaderRaw, alignment) as u64,
            DecodeErrorKind::IndexAlignmentWord { found: alignment },
        ));
    }
    if part_size != PART_SIZE {
        problems.push(DecodeError::new(
            offset_of!(IndexHeaderRaw, part_size) as u64,
            DecodeErrorKind::IndexPartSizeWord { found: part_size },
        ));
    }
    problems
}

/// Records the first place hashes stop increasing; returns whether sorted.
fn check_order(entries: &[IndexEntry], problems: &mut Vec<DecodeError>) -> bool {
    let Some(w) = entries.windows(2).find(|w| w[0].hash >= w[1].hash) else {
        return true;
    };
    let (previous, hash) = (w[0].hash, w[1].hash);
    let kind = if previous == hash {
        DecodeErrorKind::IndexHashUnique { hash }
    } else {
        DecodeErrorKind::IndexHashOrder { previous, hash }
    };
    problems.push(DecodeError::new(w[1].index_offset(), kind));
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(slot: usize, hash: u32, part: u8, offset: u32, size: u32) -> IndexEntry {
        IndexEntry {
            slot,
            hash,
            part,
            offset,
            stored_size: size,
        }
    }

    #[test]
    fn round_trip_and_find() {
        let es = [entry(0, 5, 0, 0, 10), entry(1, 9, 3, 0x800, 7)];
        let bytes = Index::encode(&es);
        assert_eq!(&bytes[..4], b"IPFB");
        let idx = Index::parse(&bytes).unwrap();
        assert_eq!(idx.entries, es);
        assert!(idx.problems.is_empty() && idx.sorted);
        assert_eq!(idx.find(9).unwrap().location(), 0x3000_0800);
        assert!(idx.find(6).is_none());
    }

    #[test]
    fn truncated_table_keeps_complete_entries() {
        let es = [entry(0, 5, 0, 0, 10), entry(1, 9, 0, 0x800, 7)];
        let bytes = Index::encode(&es);
        let idx = Index::parse(&bytes[..bytes.len() - 5]).unwrap();
        assert_eq!(idx.entries.len(), 1);
        assert_eq!(idx.problems[0].offset, 0x1C);
        assert!(Index::parse(&bytes[..10]).is_err());
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(Index::parse(&bad).is_err());
    }

    #[test]
    fn zero_hash_ends_and_order_is_checked() {
        let es = [
            entry(0, 9, 0, 0, 1),
            entry(1, 5, 0, 0x800, 1),
            entry(2, 0, 0, 0, 0),
            entry(3, 12, 0, 0, 0),
        ];
        let idx = Index::parse(&Index::encode(&es)).unwrap();
        assert_eq!(idx.entries.len(), 2);
        assert!(!idx.sorted);
        // The hidden entry (slot 3, after the zero in slot 2 at 0x28),
        // then the order (slot 1 at 0x1C).
        let offsets: Vec<u64> = idx.problems.iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0x28, 0x1C]);
        let hidden = idx.problems[0].to_string();
        assert!(
            hidden.contains("slot 2 ends the table") && hidden.contains("1 of the 4"),
            "{hidden}"
        );
        let kinds: Vec<_> = idx.problems.iter().map(|p| p.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                DecodeErrorKind::IndexEndsAtZeroHash {
                    slot: 2,
                    hidden: 1,
                    declared: 4
                },
                DecodeErrorKind::IndexHashOrder {
                    previous: 9,
                    hash: 5
                },
            ]
        );
        assert_eq!(idx.find(5).unwrap().slot, 1);
        // Zeros to the end of the declared table hide nothing.
        let padded = [
            entry(0, 5, 0, 0, 1),
            entry(1, 0, 0, 0, 0),
            entry(2, 0, 0, 0, 0),
        ];
        let idx = Index::parse(&Index::encode(&padded)).unwrap();
        assert_eq!((idx.entries.len(), idx.problems.len()), (1, 0));
    }

    #[test]
    fn huge_count_does_not_allocate() {
        let mut bytes = Index::encode(&[]);
        bytes[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
        let idx = Index::parse(&bytes).unwrap();
        assert!(idx.entries.is_empty());
        assert_eq!(idx.problems.len(), 1);
    }
}
