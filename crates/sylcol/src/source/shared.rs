//! Index rows that point at one stored stream (same part, offset and
//! stored size: the disc's eighteen CollisionSet rows, or a hostile
//! index's many rows at one bomb) read it once in a walk of the archive:
//! the first row's read is kept, within [`KEPT`] bytes, until the last row
//! of that stream has been walked.

use std::collections::HashMap;
use std::sync::Arc;

use crate::errors::ObjectError;
use sylcol_format::AnyError;
use sylcol_format::budget::MAX_OBJECT;
use sylcol_format::ipfb::IndexEntry;

use super::item::{Input, Item};

/// The most bytes kept for later rows at once, besides the object being
/// read: one object's budget.
pub const KEPT: u64 = MAX_OBJECT;

/// Where an entry's bytes are stored: part, offset and stored size.
type Stream = (u8, u32, u32);

fn stream(e: &IndexEntry) -> Stream {
    (e.part, e.offset, e.stored_size)
}

/// What reading a stream gave, kept for its later rows.
enum Kept {
    /// The object's bytes.
    Bytes(Arc<Vec<u8>>),
    /// Why it was not held (its format, or its size).
    Refused(AnyError),
}

/// The streams of an archive that several rows point at.
pub struct Streams {
    /// Rows not yet walked, per stream that more than one row points at.
    left: HashMap<Stream, usize>,
    /// What an earlier row of a stream read.
    kept: HashMap<Stream, Kept>,
    /// The bytes in `kept`.
    bytes: u64,
}

impl Streams {
    /// The streams more than one of `entries` points at.
    pub fn of(entries: &[IndexEntry]) -> Streams {
        let mut left = HashMap::new();
        for e in entries {
            *left.entry(stream(e)).or_insert(0usize) += 1;
        }
        left.retain(|_, n| *n > 1);
        Streams {
            left,
            kept: HashMap::new(),
            bytes: 0,
        }
    }

    /// What an earlier row of `entry`'s stream read, as this row's item
    /// (named `name`); `None` when nothing was kept.
    pub fn earlier(&mut self, entry: &IndexEntry, name: &str) -> Option<Item> {
        let s = stream(entry);
        let item = match self.kept.get(&s)? {
            Kept::Bytes(bytes) => Item::Whole(Input {
                name: name.to_string(),
                bytes: bytes.clone(),
            }),
            Kept::Refused(error) => Item::Other(ObjectError {
                path: name.to_string(),
                error: error.clone(),
            }),
        };
        self.walked(s);
        Some(item)
    }

    /// Records that `entry` was read (`item`: what it gave, `None` when it
    /// failed), keeping it for the later rows of its stream.
    pub fn read(&mut self, entry: &IndexEntry, item: Option<&Item>) {
        let s = stream(entry);
        if !self.left.contains_key(&s) {
            return;
        }
        let kept = match item {
            Some(Item::Whole(input)) if self.bytes + input.bytes.len() as u64 <= KEPT => {
                self.bytes += input.bytes.len() as u64;
                Some(Kept::Bytes(input.bytes.clone()))
            }
            Some(Item::Other(e)) => Some(Kept::Refused(e.error.clone())),
            _ => None,
        };
        if let Some(kept) = kept {
            self.kept.insert(s, kept);
        }
        self.walked(s);
    }

    /// One more row of `s` walked; after its last, what was kept goes.
    fn walked(&mut self, s: Stream) {
        let Some(n) = self.left.get_mut(&s) else {
            return;
        };
        *n -= 1;
        if *n == 0 {
            self.left.remove(&s);
            if let Some(Kept::Bytes(b)) = self.kept.remove(&s) {
                self.bytes -= b.len() as u64;
            }
        }
    }

    /// The bytes kept for later rows.
    #[cfg(test)]
    pub fn kept_bytes(&self) -> u64 {
        self.bytes
    }
}
