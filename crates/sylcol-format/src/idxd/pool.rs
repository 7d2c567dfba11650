//! The string pool: split at its terminators, looked up by offset.

use super::{Flavour, NO_STRING};

/// One NUL-terminated string of the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolString {
    /// Its offset in units (what a record stores to address it).
    pub offset: u32,
    /// Byte range in the pool, terminator excluded.
    pub start: usize,
    /// End of the string's bytes (the terminator starts here).
    pub end: usize,
}

impl PoolString {
    /// The string's bytes (terminator excluded).
    pub fn bytes<'a>(&self, pool: &'a [u8]) -> &'a [u8] {
        &pool[self.start..self.end]
    }
}

/// Where a string offset leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// `0xFFFFFFFF`: no string.
    None,
    /// The start of string `index` (in pool order).
    String(usize),
    /// Inside the pool but not on a string start (mid-string, on a
    /// terminator, or in the unterminated tail).
    NotAStart,
    /// At or past the end of the pool.
    Outside,
}

/// A pool and its strings in pool order.
#[derive(Debug, Clone)]
pub struct Pool<'a> {
    /// The pool's bytes.
    pub bytes: &'a [u8],
    /// The flavour (unit size and encoding).
    pub flavour: Flavour,
    /// Every terminated string, in pool order.
    pub strings: Vec<PoolString>,
    /// Byte offset where the unterminated tail starts (= the pool length
    /// when there is none).
    pub tail_start: usize,
}

impl<'a> Pool<'a> {
    /// Splits `bytes` at its terminators (one zero byte for IDXD, one zero
    /// code unit at an even offset for IXUD).
    pub fn new(bytes: &'a [u8], flavour: Flavour) -> Self {
        let unit = flavour.unit();
        let mut strings = Vec::new();
        let mut start = 0;
        let mut at = 0;
        while at + unit <= bytes.len() {
            if bytes[at..at + unit].iter().all(|&b| b == 0) {
                strings.push(PoolString {
                    offset: (start / unit) as u32,
                    start,
                    end: at,
                });
                start = at + unit;
            }
            at += unit;
        }
        Pool {
            bytes,
            flavour,
            strings,
            tail_start: start,
        }
    }

    /// The bytes after the last terminator.
    pub fn tail(&self) -> &'a [u8] {
        &self.bytes[self.tail_start..]
    }

    /// The pool's length in units.
    pub fn units(&self) -> u64 {
        (self.bytes.len() / self.flavour.unit()) as u64
    }

    /// Where `offset` (in units) leads.
    pub fn lookup(&self, offset: u32) -> Lookup {
        if offset == NO_STRING {
            return Lookup::None;
        }
        if u64::from(offset) >= self.units() {
            return Lookup::Outside;
        }
        match self.strings.binary_search_by_key(&offset, |s| s.offset) {
            Ok(i) => Lookup::String(i),
            Err(_) => Lookup::NotAStart,
        }
    }

    /// The text of string `index`, decoded (invalid sequences replaced).
    pub fn text(&self, index: usize) -> String {
        decode_lossy(self.strings[index].bytes(self.bytes), self.flavour)
    }

    /// The text at `offset`, when it starts a string.
    pub fn text_at(&self, offset: u32) -> Option<String> {
        match self.lookup(offset) {
            Lookup::String(i) => Some(self.text(i)),
            _ => None,
        }
    }
}

/// Decodes a string's bytes, replacing invalid sequences with U+FFFD.
pub fn decode_lossy(bytes: &[u8], flavour: Flavour) -> String {
    match flavour {
        Flavour::Idxd => String::from_utf8_lossy(bytes).into_owned(),
        Flavour::Ixud => char::decode_utf16(units(bytes))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    }
}

/// The big-endian code units of `bytes` (a trailing odd byte is dropped).
pub fn units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    bytes
        .chunks_exact(2)
        .map(|u| u16::from_be_bytes([u[0], u[1]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_looks_up_utf8() {
        let pool = Pool::new(b"ab\0\0cd\0ef", Flavour::Idxd);
        let offsets: Vec<u32> = pool.strings.iter().map(|s| s.offset).collect();
        assert_eq!(offsets, [0, 3, 4]);
        assert_eq!(pool.text(2), "cd");
        assert_eq!(pool.text(1), "");
        assert_eq!(pool.tail(), b"ef");
        assert_eq!(pool.lookup(4), Lookup::String(2));
        assert_eq!(pool.lookup(1), Lookup::NotAStart);
        assert_eq!(
            pool.lookup(7),
            Lookup::NotAStart,
            "the tail starts no string"
        );
        assert_eq!(pool.lookup(9), Lookup::Outside);
        assert_eq!(pool.lookup(NO_STRING), Lookup::None);
    }

    #[test]
    fn splits_utf16_on_even_zero_units_only() {
        // "A" then U+0100 (bytes 01 00: a zero byte that is no terminator), "é".
        let bytes = [0, 0x41, 0, 0, 0x01, 0x00, 0, 0, 0, 0xE9, 0, 0];
        let pool = Pool::new(&bytes, Flavour::Ixud);
        let offsets: Vec<u32> = pool.strings.iter().map(|s| s.offset).collect();
        assert_eq!(offsets, [0, 2, 4]);
        assert_eq!(pool.text(0), "A");
        assert_eq!(pool.text(1), "\u{100}");
        assert_eq!(pool.text(2), "é");
        assert!(pool.tail().is_empty());
        assert_eq!(pool.lookup(1), Lookup::NotAStart);
        assert_eq!(pool.lookup(6), Lookup::Outside);
        assert_eq!(decode_lossy(&[0xD8, 0x00], Flavour::Ixud), "\u{FFFD}");
    }
}
