//! Replacing some entries of an archive, every other stored byte where it
//! was: `sylcol pak replace` and Python's `replace_entries` (the Blender
//! add-on's "Save into archive"). A [`super::rewrite::Plan`] whose entries
//! keep their spans except the ones replaced; entries that share one
//! stored copy keep sharing it.
//!
//! An entry whose stored copy other entries share (the disc stores its
//! CollisionSet library once for eighteen names) is replaced as
//! [`Aliases`] says: refused unless its sharers are replaced too, every
//! sharer given the new content, or the entry split off with a copy of
//! its own.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::rewrite::{IndexWords, NewStored, Placed, Placement, Plan, PlannedEntry, Span, rewrite};
use super::write::{Finished, WriteError};
use super::z1::{compress, is_z1};
use super::{Archive, ArchiveError, IndexEntry, MAX_PARTS, PART_SIZE};

/// What to do when a replaced entry shares its stored copy with entries
/// that are not replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Aliases {
    /// Refuse ([`ReplaceError::Shared`]).
    #[default]
    Refuse,
    /// Give every entry sharing the copy the new content.
    All,
    /// Give the entry a copy of its own; the others keep theirs.
    Split,
}

/// How [`replace_entries`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplaceOptions {
    /// Entries sharing a replaced entry's stored copy.
    pub aliases: Aliases,
    /// zlib level of the new Z1 streams (9 gives the game's `78 DA`).
    pub level: u32,
    /// Largest part file in bytes.
    pub part_limit: u64,
}

impl Default for ReplaceOptions {
    fn default() -> Self {
        ReplaceOptions {
            aliases: Aliases::Refuse,
            level: 9,
            part_limit: u64::from(PART_SIZE),
        }
    }
}

/// New content for one entry of the archive.
#[derive(Debug, Clone)]
pub struct NewContent {
    /// The entry ([`find_entry`]).
    pub entry: IndexEntry,
    /// Its new (uncompressed) bytes; stored Z1-compressed when the entry
    /// was.
    pub content: Vec<u8>,
}

/// One new stored copy [`replace_entries`] wrote, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCopy {
    /// The entries of the new index that point at it (the one replaced,
    /// or with [`Aliases::All`] every one that shared its copy), in index
    /// order.
    pub entries: Vec<IndexEntry>,
    /// Where it went.
    pub placed: Placed,
    /// Whether it is Z1-compressed.
    pub compressed: bool,
}

/// What [`replace_entries`] did.
#[derive(Debug)]
pub struct Replaced {
    /// The archive put in place.
    pub finished: Finished,
    /// Each new stored copy, in the order the contents were given.
    pub copies: Vec<NewCopy>,
}

/// Why entries cannot be replaced.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// No entry has the hash of the name given.
    #[error("no entry {name} (hash {hash:08X}) in the archive")]
    NoEntry {
        /// The name as given.
        name: String,
        /// Its hash.
        hash: u32,
    },
    /// Several index slots hold the hash (a broken index).
    #[error(
        "{name}: {count} entries of the archive have its hash {hash:08X} (an index problem); replace cannot tell which"
    )]
    AmbiguousHash {
        /// The name as given.
        name: String,
        /// Its hash.
        hash: u32,
        /// How many slots hold it.
        count: usize,
    },
    /// One entry given new content twice.
    #[error("{0}: named twice")]
    NamedTwice(String),
    /// A replaced entry shares its stored copy with entries not replaced,
    /// under [`Aliases::Refuse`].
    #[error(
        "{name}: shares its stored bytes ({part} at {offset:#x}) with {} other entries: {}",
        others.len(),
        others.join(", ")
    )]
    Shared {
        /// The entry.
        name: String,
        /// Its part file's name.
        part: String,
        /// The copy's offset in it.
        offset: u32,
        /// The entries sharing the copy, as the archive shows them.
        others: Vec<String>,
    },
    /// The archive cannot be read.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The new archive cannot be written.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The one index entry `name` (a name or `$XXXXXXXX`) hashes to.
pub fn find_entry(archive: &Archive, name: &str) -> Result<IndexEntry, ReplaceError> {
    let hash = super::names::inner_hash(name);
    let slots: Vec<&IndexEntry> = (archive.entries().iter())
        .filter(|e| e.hash == hash)
        .collect();
    match slots[..] {
        [e] => Ok(*e),
        [] => Err(ReplaceError::NoEntry {
            name: name.into(),
            hash,
        }),
        _ => Err(ReplaceError::AmbiguousHash {
            name: name.into(),
            hash,
            count: slots.len(),
        }),
    }
}

/// Refuses, under [`Aliases::Refuse`], an entry of `replaced` whose stored
/// copy entries not in `replaced` share; refuses an entry given twice.
pub fn check_aliases(
    archive: &Archive,
    replaced: &[IndexEntry],
    aliases: Aliases,
) -> Result<(), ReplaceError> {
    let mut named = HashSet::new();
    if let Some(twice) = replaced.iter().find(|e| !named.insert(e.slot)) {
        return Err(ReplaceError::NamedTwice(archive.short_display(twice)));
    }
    if aliases != Aliases::Refuse {
        return Ok(());
    }
    for e in replaced {
        let span = Span::of(e);
        let others: Vec<String> = (archive.entries().iter())
            .filter(|o| Span::of(o) == span && !named.contains(&o.slot))
            .map(|o| archive.short_display(o))
            .collect();
        if !others.is_empty() {
            return Err(ReplaceError::Shared {
                name: archive.short_display(e),
                part: archive.part_name(span.part),
                offset: span.offset,
                others,
            });
        }
    }
    Ok(())
}

/// Writes `archive` with the entries of `new` replaced to `output` (an
/// index path, parts beside it; it may be the archive itself): every
/// other stored byte stays where it was, a new copy goes into the span it
/// replaces when it fits there, else after the last part's end (see
/// [`super::rewrite`]). All files are put in place together.
pub fn replace_entries(
    archive: &Archive,
    output: &Path,
    new: Vec<NewContent>,
    options: &ReplaceOptions,
) -> Result<Replaced, ReplaceError> {
    let targets: Vec<IndexEntry> = new.iter().map(|n| n.entry).collect();
    check_aliases(archive, &targets, options.aliases)?;
    let mut plan = Plan {
        index: IndexWords {
            alignment: archive.index.alignment,
            part_size: archive.index.part_size,
            unlisted: archive.index.declared_count - archive.entries().len() as u32,
            tail: archive.index_tail(1 << 20)?,
        },
        base: base_of(archive),
        ..Plan::default()
    };
    let mut compressed = Vec::with_capacity(new.len());
    for n in new {
        let name = archive.short_display(&n.entry);
        let was_z1 = archive.probe(&n.entry)?.compressed;
        let (bytes, z1) = stored_form(n.content, was_z1, options.level, &name)?;
        compressed.push(z1);
        plan.stored.push(NewStored {
            name,
            bytes,
            vacates: None,
        });
    }
    for e in archive.entries() {
        let direct = targets.iter().position(|t| t.slot == e.slot);
        let shared = || {
            (options.aliases == Aliases::All)
                .then(|| targets.iter().position(|t| Span::of(t) == Span::of(e)))
                .flatten()
        };
        let placement = match direct.or_else(shared) {
            Some(n) => Placement::New(n),
            None => Placement::Kept(Span::of(e)),
        };
        plan.entries.push(PlannedEntry {
            hash: e.hash,
            placement,
        });
    }
    let all: Vec<Span> = archive.entries().iter().map(Span::of).collect();
    let origins: Vec<Option<Span>> = targets.iter().map(|t| Some(Span::of(t))).collect();
    settle_vacated(&mut plan, &all, &origins);
    let done = rewrite(output, &plan, options.part_limit)?;
    let copies = (done.placed.iter().zip(compressed).enumerate())
        .map(|(n, (&placed, compressed))| NewCopy {
            entries: (plan.entries.iter().zip(archive.entries()))
                .filter(|(p, _)| p.placement == Placement::New(n))
                .map(|(_, e)| *e)
                .collect(),
            placed,
            compressed,
        })
        .collect();
    Ok(Replaced {
        finished: done.finished,
        copies,
    })
}

/// The stored form of `content`: a Z1 stream when `compressed`, else the
/// bytes themselves (content starting with `Z1` is compressed anyway: a
/// raw copy would read back as Z1). Returns it and whether it is Z1.
pub fn stored_form(
    content: Vec<u8>,
    compressed: bool,
    level: u32,
    name: &str,
) -> Result<(Vec<u8>, bool), WriteError> {
    if !compressed && !is_z1(&content) {
        return Ok((content, false));
    }
    let z1 = compress(&content, level).map_err(|error| WriteError::Encode {
        entry: name.into(),
        error,
    })?;
    Ok((z1, true))
}

/// Each part file of `archive`, whole: the base of a rewrite.
pub fn base_of(archive: &Archive) -> Vec<Option<(PathBuf, u64)>> {
    let mut base: Vec<Option<(PathBuf, u64)>> = (0..MAX_PARTS as u8)
        .map(|n| archive.part_file(n).map(|(p, len)| (p.to_path_buf(), len)))
        .collect();
    while base.last().is_some_and(Option::is_none) {
        base.pop();
    }
    base
}

/// The spans of `all` that no planned entry keeps (zero-filled by the
/// rewrite); each new stored copy whose `origins` span is among them,
/// and not claimed by an earlier one, is written there when it fits.
pub fn settle_vacated(plan: &mut Plan, all: &[Span], origins: &[Option<Span>]) {
    let kept: HashSet<Span> = (plan.entries.iter())
        .filter_map(|e| match e.placement {
            Placement::Kept(s) => Some(s),
            Placement::New(_) => None,
        })
        .collect();
    let mut vacated: Vec<Span> = all.iter().filter(|s| !kept.contains(s)).copied().collect();
    vacated.sort();
    vacated.dedup();
    let mut claimed = HashSet::new();
    for (stored, origin) in plan.stored.iter_mut().zip(origins) {
        stored.vacates = origin.filter(|s| vacated.contains(s) && claimed.insert(*s));
    }
    plan.vacated = vacated;
}
