//! `info` of an IDXD / IXUD string table: the records and pairs with their
//! strings, and the pool (docs/formats/idxd.md).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::idxd::{Lookup, NO_STRING, Pool, StringTable};
use sylcol_format::ipfb::make_entry_id;

/// The summary of a string table (`format` says `IDXD` or `IXUD`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct StringTableInfo {
    /// The input as named.
    pub path: String,
    /// The object's length.
    pub bytes: usize,
    /// How the pool size word counts: `bytes` or `units` (2-byte, IXUD).
    pub pool_size_unit: &'static str,
    /// Where the pool starts.
    pub pool_offset: u64,
    /// The pool's length in bytes.
    pub pool_bytes: usize,
    /// Bytes after the pool (0 in a table that passes `verify`).
    pub trailer_bytes: usize,
    /// The pool's strings, in pool order.
    pub strings: Vec<TableString>,
    /// The records of the first kind, in file order.
    pub records: Vec<TableRecord>,
    /// The records of the second kind, in file order.
    pub pairs: Vec<TablePair>,
}

/// One string of the pool.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TableString {
    /// Its offset in the table's unit (what records store).
    pub offset: u32,
    /// Its text (invalid sequences replaced).
    pub text: String,
}

/// A record: hash, string, two open words.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TableRecord {
    /// The hash word, eight hex digits.
    pub hash: String,
    /// The string offset (none for -1).
    pub string: Option<u32>,
    /// The string's text, when the offset starts one.
    pub text: Option<String>,
    /// Whether the hash is MakeEntryID of the text.
    pub hash_is_name: bool,
    /// Third word (open).
    pub p1: u32,
    /// Fourth word (open).
    pub p2: u32,
}

/// A pair: hash and two strings.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TablePair {
    /// The hash word, eight hex digits.
    pub hash: String,
    /// First offset (none for -1).
    pub first: Option<u32>,
    /// Its text.
    pub first_text: Option<String>,
    /// Second offset (none for -1).
    pub second: Option<u32>,
    /// Its text.
    pub second_text: Option<String>,
}

fn offset(o: u32) -> Option<u32> {
    (o != NO_STRING).then_some(o)
}

fn text(pool: &Pool, o: u32) -> Option<String> {
    match pool.lookup(o) {
        Lookup::String(i) => Some(pool.text(i)),
        _ => None,
    }
}

impl StringTableInfo {
    /// The summary of a decoded table of `bytes` bytes.
    pub fn of(path: &str, bytes: usize, t: &StringTable) -> Self {
        let pool = t.pool();
        let records = (t.records.iter())
            .map(|r| {
                let text = text(&pool, r.string);
                TableRecord {
                    hash: format!("{:08X}", r.hash),
                    string: offset(r.string),
                    hash_is_name: text.as_deref().is_some_and(|s| make_entry_id(s) == r.hash),
                    text,
                    p1: r.p1,
                    p2: r.p2,
                }
            })
            .collect();
        let pairs = (t.pairs.iter())
            .map(|p| TablePair {
                hash: format!("{:08X}", p.hash),
                first: offset(p.first),
                first_text: text(&pool, p.first),
                second: offset(p.second),
                second_text: text(&pool, p.second),
            })
            .collect();
        StringTableInfo {
            path: path.to_string(),
            bytes,
            pool_size_unit: t.pool_size_unit.as_str(),
            pool_offset: t.pool_offset(),
            pool_bytes: t.pool.len(),
            trailer_bytes: t.trailer.len(),
            strings: (0..pool.strings.len())
                .map(|i| TableString {
                    offset: pool.strings[i].offset,
                    text: pool.text(i),
                })
                .collect(),
            records,
            pairs,
        }
    }

    /// The human-readable form, under the heading `format`.
    pub fn text(&self, format: &str) -> String {
        let encoding = if format == "IXUD" {
            "UTF-16BE"
        } else {
            "UTF-8"
        };
        let mut t = format!(
            "{}: {format} string table ({encoding})\n\
             \x20 size          {} bytes; pool at {:#x}, {} bytes (size word counts {}); {} bytes after it\n\
             \x20 contents      {} records, {} pairs, {} strings\n\n\
             \x20   hash      string  p1        p2        text\n",
            self.path,
            self.bytes,
            self.pool_offset,
            self.pool_bytes,
            self.pool_size_unit,
            self.trailer_bytes,
            self.records.len(),
            self.pairs.len(),
            self.strings.len(),
        );
        let at = |o: Option<u32>| o.map_or("-".to_string(), |o| format!("{o:#x}"));
        for r in &self.records {
            let _ = writeln!(
                t,
                "  {}  {:>6}  {:08x}  {:08x}  {}",
                r.hash,
                at(r.string),
                r.p1,
                r.p2,
                r.text
                    .as_deref()
                    .map_or("(none)".to_string(), |s| format!("{s:?}"))
            );
        }
        for p in &self.pairs {
            let show =
                |s: &Option<String>| s.as_deref().map_or("-".to_string(), |s| format!("{s:?}"));
            let _ = writeln!(
                t,
                "  pair {}  {} {}  {} {}",
                p.hash,
                at(p.first),
                show(&p.first_text),
                at(p.second),
                show(&p.second_text)
            );
        }
        t
    }
}
