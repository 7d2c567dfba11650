//! Rewriting an archive around the layout it has: every stored byte that
//! is not replaced stays where it was.
//!
//! A [`Plan`] lists the new index in its order. Each entry either keeps
//! the stored bytes it has in the source parts ([`Placement::Kept`], the
//! same part, offset and size: entries sharing one stored copy keep
//! sharing it) or points at new stored bytes ([`Placement::New`]; several
//! entries may point at one). The new parts start as byte-for-byte copies
//! of the source parts (up to the length the plan names, so bytes between
//! and after entries are kept too), the stored copies no entry keeps any
//! more ([`Plan::vacated`]) are zero-filled, and each new stored copy is
//! written
//!
//! - into the span it replaces ([`NewStored::vacates`]) when it fits
//!   there: it may use the whole room up to the next stored bytes of the
//!   part (or, as the last in its part, grow the part), so a copy that
//!   grows past its alignment gap is moved instead of pushing the others
//!   (a part whose last copy was vacated ends after its last bytes kept
//!   or written);
//! - else after the last part's end, on the archive's alignment, in a new
//!   part when it would pass the part limit.
//!
//! The index keeps the source's header words (alignment, part size, the
//! count of slots it declares beyond the entries) and the bytes after its
//! entry table. All files are written under temporary names and put in
//! place together ([`ArchiveWriter::finish`](super::ArchiveWriter::finish)'s
//! commit: the earlier archive kept until the new one is whole), so the
//! source may be the archive being replaced.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use zerocopy::IntoBytes;

use crate::bytes::align_up;
use crate::error::EncodeError;
use sylcol_atomic::TempFile;

use super::index::IndexEntry;
use super::raw::IndexHeaderRaw;
use super::write::{Finished, WriteError, commit, io_error};
use super::{ALIGNMENT, MAGIC, MAX_PARTS, OFFSET_MASK, PART_SIZE, part_file_name};

/// A run of stored bytes in one part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Part number.
    pub part: u8,
    /// Byte offset in the part.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

impl Span {
    /// The span an index entry's stored bytes take.
    pub fn of(e: &IndexEntry) -> Span {
        Span {
            part: e.part,
            offset: e.offset,
            len: e.stored_size,
        }
    }

    fn range(&self) -> (u64, u64) {
        let start = u64::from(self.offset);
        (start, start + u64::from(self.len))
    }
}

/// Where an entry of the rewritten archive has its stored bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Where they are in the source parts: the same span.
    Kept(Span),
    /// The new stored bytes `Plan::stored[n]`.
    New(usize),
}

/// One entry of the new index, in index order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEntry {
    /// The entry's hash.
    pub hash: u32,
    /// Where its stored bytes are.
    pub placement: Placement,
}

/// New stored bytes (a Z1 stream or raw bytes, as the index stores them).
#[derive(Debug, Clone)]
pub struct NewStored {
    /// The entry (or entries) it is for, as messages name it.
    pub name: String,
    /// The stored bytes.
    pub bytes: Vec<u8>,
    /// The stored copy it replaces, written over when it fits there.
    pub vacates: Option<Span>,
}

/// What the new index keeps of the source's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexWords {
    /// Alignment word (new stored bytes start on it when it is a power of
    /// two; else on 0x800).
    pub alignment: u32,
    /// Part size word.
    pub part_size: u32,
    /// Slots the header declares beyond the entries listed (a zero hash
    /// and what follows it).
    pub unlisted: u32,
    /// The bytes after the entry table.
    pub tail: Vec<u8>,
}

impl Default for IndexWords {
    fn default() -> Self {
        IndexWords {
            alignment: ALIGNMENT,
            part_size: PART_SIZE,
            unlisted: 0,
            tail: Vec::new(),
        }
    }
}

/// A rewrite: the new index and where its stored bytes come from.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The index header words and tail.
    pub index: IndexWords,
    /// The source parts the new ones start from: part `n`'s file and how
    /// many of its bytes to copy. Empty for a fresh layout.
    pub base: Vec<Option<(PathBuf, u64)>>,
    /// Stored copies of the source that no entry keeps: zero-filled
    /// (except where a kept span overlaps them).
    pub vacated: Vec<Span>,
    /// The new index, in order.
    pub entries: Vec<PlannedEntry>,
    /// New stored bytes, placed in this order.
    pub stored: Vec<NewStored>,
}

/// Where [`rewrite`] put one [`NewStored`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// Its span in the new parts.
    pub span: Span,
    /// Whether it went into the span it replaces (else it was appended).
    pub reused: bool,
}

/// What [`rewrite`] did.
#[derive(Debug)]
pub struct Rewritten {
    /// The archive put in place.
    pub finished: Finished,
    /// Where each [`Plan::stored`] went, in order.
    pub placed: Vec<Placed>,
}

/// The bytes each part holds: the kept and placed spans.
struct Occupancy {
    busy: Vec<Vec<(u64, u64)>>,
    ends: Vec<u64>,
}

impl Occupancy {
    fn end(&self, part: usize) -> u64 {
        self.ends.get(part).copied().unwrap_or(0)
    }

    fn take(&mut self, part: usize, start: u64, end: u64) {
        if self.busy.len() <= part {
            self.busy.resize(part + 1, Vec::new());
            self.ends.resize(part + 1, 0);
        }
        self.busy[part].push((start, end));
        self.ends[part] = self.ends[part].max(end);
    }

    /// The room from `start` to the next busy byte of `part` (`limit`
    /// when none follows); `None` when `start` is busy.
    fn room_at(&self, part: usize, start: u64, limit: u64) -> Option<u64> {
        let spans = self.busy.get(part).map_or(&[][..], Vec::as_slice);
        if spans.iter().any(|&(s, e)| s <= start && start < e) {
            return None;
        }
        let next = spans.iter().map(|&(s, _)| s).filter(|&s| s > start).min();
        Some(next.unwrap_or(limit).saturating_sub(start))
    }
}

/// Writes the archive `plan` describes to `pak` (parts beside it) and puts
/// it in place: see the module docs. `part_limit` caps a part's size.
pub fn rewrite(pak: &Path, plan: &Plan, part_limit: u64) -> Result<Rewritten, WriteError> {
    let limit = part_limit.min(u64::from(OFFSET_MASK) + 1);
    let align = if plan.index.alignment.is_power_of_two() {
        u64::from(plan.index.alignment)
    } else {
        u64::from(ALIGNMENT)
    };
    let mut occupancy = Occupancy {
        busy: Vec::new(),
        ends: Vec::new(),
    };
    for (n, base) in plan.base.iter().enumerate() {
        // A part's end, not a busy span: the last stored copy of a part
        // may grow past it.
        occupancy.take(n, 0, 0);
        occupancy.busy[n].clear();
        occupancy.ends[n] = base.as_ref().map_or(0, |(_, len)| *len);
    }
    let kept = kept_spans(plan)?;
    for s in &kept {
        let (start, end) = s.range();
        occupancy.take(usize::from(s.part), start, end);
    }
    let mut placed = Vec::with_capacity(plan.stored.len());
    for stored in &plan.stored {
        let p = place(&mut occupancy, stored, align, limit)?;
        placed.push(p);
    }
    let parts = write_parts(pak, plan, &kept, &placed, &occupancy.ends)?;
    let entries = index_entries(plan, &placed);
    let index = encode_index(&plan.index, &entries);
    let used = occupancy.ends.len().max(plan.base.len());
    let finished = commit(pak, parts, used, &index, entries)?;
    Ok(Rewritten { finished, placed })
}

/// The distinct kept spans, each checked to lie inside its base part.
fn kept_spans(plan: &Plan) -> Result<Vec<Span>, WriteError> {
    let mut spans: Vec<Span> = plan
        .entries
        .iter()
        .filter_map(|e| match e.placement {
            Placement::Kept(s) => Some(s),
            Placement::New(_) => None,
        })
        .collect();
    spans.sort();
    spans.dedup();
    for s in &spans {
        let base = plan.base.get(usize::from(s.part)).and_then(Option::as_ref);
        if base.is_none_or(|(_, len)| s.range().1 > *len) {
            return Err(WriteError::Encode {
                entry: format!("at part {} offset {:#x}", s.part, s.offset),
                error: EncodeError::KeptSpanInPart { len: s.len },
            });
        }
    }
    Ok(spans)
}

/// Chooses where `stored` goes: its vacated span when it fits there, else
/// after the last part's end (a new part when it would pass `limit`).
fn place(
    occupancy: &mut Occupancy,
    stored: &NewStored,
    align: u64,
    limit: u64,
) -> Result<Placed, WriteError> {
    let len = stored.bytes.len() as u64;
    let too_large = |what, value, limit| WriteError::Encode {
        entry: stored.name.clone(),
        error: EncodeError::TooLarge { what, value, limit },
    };
    let len32 = u32::try_from(len).map_err(|_| too_large("stored size", len, u32::MAX.into()))?;
    if let Some(v) = stored.vacates {
        let (part, start) = (usize::from(v.part), u64::from(v.offset));
        if occupancy
            .room_at(part, start, limit)
            .is_some_and(|room| room >= len)
        {
            occupancy.take(part, start, start + len);
            return Ok(Placed {
                span: Span { len: len32, ..v },
                reused: true,
            });
        }
    }
    let mut part = occupancy.ends.len().saturating_sub(1);
    let mut offset = align_up(occupancy.end(part), align);
    if occupancy.end(part) > 0 && offset + len > limit {
        part += 1;
        offset = 0;
    }
    if part >= MAX_PARTS {
        return Err(too_large("part count", part as u64 + 1, MAX_PARTS as u64));
    }
    if offset + len > limit && offset > 0 {
        return Err(too_large("part offset", offset + len, limit));
    }
    occupancy.take(part, offset, offset + len);
    Ok(Placed {
        span: Span {
            part: part as u8,
            offset: offset as u32,
            len: len32,
        },
        reused: false,
    })
}

/// Writes each part: the base copied, vacated spans zero-filled (but for
/// kept bytes), the new stored bytes written at their places.
fn write_parts(
    pak: &Path,
    plan: &Plan,
    kept: &[Span],
    placed: &[Placed],
    ends: &[u64],
) -> Result<Vec<(TempFile, PathBuf)>, WriteError> {
    let stem = pak
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let count = ends.len().max(plan.base.len());
    let mut out = Vec::with_capacity(count);
    for n in 0..count {
        let base = plan.base.get(n).and_then(Option::as_ref);
        let new_here: Vec<(&Placed, &NewStored)> = placed
            .iter()
            .zip(&plan.stored)
            .filter(|(p, _)| usize::from(p.span.part) == n)
            .collect();
        if base.is_none() && new_here.is_empty() {
            continue;
        }
        let path = pak.with_file_name(part_file_name(&stem, n as u8));
        let err = |cause| io_error(&path, cause);
        let mut file = TempFile::beside(&path).map_err(err)?;
        if let Some((source, len)) = base {
            copy_prefix(source, *len, &mut file).map_err(|cause| io_error(source, cause))?;
        }
        let kept_here: Vec<(u64, u64)> = (kept.iter())
            .filter(|s| usize::from(s.part) == n)
            .map(Span::range)
            .collect();
        for v in plan.vacated.iter().filter(|v| usize::from(v.part) == n) {
            for (start, end) in subtract(v.range(), &kept_here) {
                write_at(&mut file, start, &vec![0; (end - start) as usize]).map_err(err)?;
            }
        }
        let mut end = kept_here.iter().map(|&(_, e)| e).max().unwrap_or(0);
        for (p, stored) in new_here {
            write_at(&mut file, u64::from(p.span.offset), &stored.bytes).map_err(err)?;
            end = end.max(p.span.range().1);
        }
        if let Some((_, len)) = base
            && plan
                .vacated
                .iter()
                .any(|v| usize::from(v.part) == n && v.range().1 == *len)
        {
            // The old copy that ended the part is gone: so are its zeros.
            file.set_len(end).map_err(err)?;
        }
        out.push((file, path));
    }
    Ok(out)
}

/// Copies the first `len` bytes of `source` into `out`; a file shorter
/// than that is an error.
fn copy_prefix(source: &Path, len: u64, out: &mut TempFile) -> io::Result<()> {
    let copied = io::copy(&mut File::open(source)?.take(len), out)?;
    if copied < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the part holds {copied} bytes, {len} were expected (did it change?)"),
        ));
    }
    Ok(())
}

fn write_at(file: &mut TempFile, offset: u64, bytes: &[u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

/// `range` minus every span of `holes`.
fn subtract(range: (u64, u64), holes: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut pieces = vec![range];
    for &(hs, he) in holes {
        pieces = pieces
            .into_iter()
            .flat_map(|(s, e)| {
                if he <= s || e <= hs {
                    return vec![(s, e)];
                }
                [(s, hs.max(s)), (he.min(e), e)]
                    .into_iter()
                    .filter(|(a, b)| a < b)
                    .collect()
            })
            .collect();
    }
    pieces
}

fn index_entries(plan: &Plan, placed: &[Placed]) -> Vec<IndexEntry> {
    (plan.entries.iter().enumerate())
        .map(|(slot, e)| {
            let span = match e.placement {
                Placement::Kept(s) => s,
                Placement::New(n) => placed[n].span,
            };
            IndexEntry {
                slot,
                hash: e.hash,
                part: span.part,
                offset: span.offset,
                stored_size: span.len,
            }
        })
        .collect()
}

/// The index: the kept header words, `entries` in order, then the tail.
fn encode_index(words: &IndexWords, entries: &[IndexEntry]) -> Vec<u8> {
    let count = (entries.len() as u32).saturating_add(words.unlisted);
    let header = IndexHeaderRaw {
        magic: *MAGIC,
        count: count.into(),
        alignment: words.alignment.into(),
        part_size: words.part_size.into(),
    };
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&super::index::Index::encode_entries(entries));
    out.extend_from_slice(&words.tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtract_leaves_the_pieces_outside_the_holes() {
        assert_eq!(subtract((0, 10), &[(2, 4), (8, 12)]), [(0, 2), (4, 8)]);
        assert_eq!(subtract((5, 6), &[(0, 10)]), []);
        assert_eq!(subtract((5, 6), &[]), [(5, 6)]);
    }

    #[test]
    fn a_copy_that_fits_reuses_its_span_else_it_is_appended() {
        let mut occ = Occupancy {
            busy: Vec::new(),
            ends: Vec::new(),
        };
        occ.take(0, 0, 100);
        occ.take(0, 0x800, 0x900);
        let stored = |n: usize| NewStored {
            name: "x".into(),
            bytes: vec![1; n],
            vacates: Some(Span {
                part: 0,
                offset: 0x1000,
                len: 10,
            }),
        };
        // The vacated span at 0x1000 is past every busy byte: room to the limit.
        let p = place(&mut occ, &stored(0x500), 0x800, 0x2000).unwrap();
        assert!(p.reused && p.span.offset == 0x1000);
        // Taken now: the next one is appended on the alignment.
        let p = place(&mut occ, &stored(0x10), 0x800, 0x2000).unwrap();
        assert_eq!((p.reused, p.span.part, p.span.offset), (false, 0, 0x1800));
        // Past the limit: a new part.
        let p = place(&mut occ, &stored(0x900), 0x800, 0x2000).unwrap();
        assert_eq!((p.span.part, p.span.offset), (1, 0));
    }
}
