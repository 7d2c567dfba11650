//! Finding entry names: the game stores only MakeEntryID hashes, so names
//! are recovered from strings found elsewhere on the disc (`sylcol names
//! harvest`) or from hypotheses (`sylcol names guess`). Spec:
//! `docs/names.md`.
//!
//! - [`Scanner`]: ASCII and UTF-16BE string runs in a byte stream, constant memory;
//! - [`for_each_candidate`]: the inner paths a found string may stand for;
//! - [`Pattern`]: brace / range patterns, hashed prefix by prefix;
//! - [`Harvester`]: strings in, hashes matched against a [`Targets`] set,
//!   hits (name, where it was found) out.

mod pattern;
mod scan;
mod variants;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read};

pub use pattern::{Pattern, PatternError};
pub use scan::{Encoding, Scanner};
pub use variants::{Candidate, for_each_candidate};

/// A hasher for keys that are already hashes: one multiply.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The entry hashes names are matched against.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    set: HashSet<u32, BuildHasherDefault<IdHasher>>,
}

impl Targets {
    /// A set of the given hashes.
    pub fn new(hashes: impl IntoIterator<Item = u32>) -> Self {
        Targets {
            set: hashes.into_iter().collect(),
        }
    }

    /// Whether `hash` is one of them.
    #[inline]
    pub fn contains(&self, hash: u32) -> bool {
        self.set.contains(&hash)
    }

    /// How many hashes.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

/// A name that hashes to a target, and where it was first found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The entry hash it names.
    pub hash: u32,
    /// The name (the candidate that hashed to it).
    pub name: String,
    /// The string found on the disc it was derived from.
    pub found: String,
    /// The caller's number for the file the string was in.
    pub source: usize,
    /// Byte offset of the string in that file.
    pub offset: u64,
    /// Whether the name is the found string itself (not a variant).
    pub exact: bool,
    /// How many times a string gave this name.
    pub occurrences: u64,
}

/// What a harvest went through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes scanned.
    pub bytes: u64,
    /// Strings found (runs and table strings).
    pub strings: u64,
    /// Candidates hashed.
    pub candidates: u64,
}

impl Stats {
    fn add(&mut self, other: Stats) {
        self.bytes += other.bytes;
        self.strings += other.strings;
        self.candidates += other.candidates;
    }
}

/// Collects hits from strings: every string found becomes its candidates
/// ([`for_each_candidate`]), each hashed and looked up in the targets.
#[derive(Debug)]
pub struct Harvester<'t> {
    scanner: Scanner,
    sink: Sink<'t>,
}

/// Where strings go: hashed, matched, remembered.
#[derive(Debug)]
struct Sink<'t> {
    targets: &'t Targets,
    scratch: [Vec<u8>; 2],
    hits: HashMap<(u32, String), Hit>,
    stats: Stats,
}

impl<'t> Harvester<'t> {
    /// A harvester matching against `targets`.
    pub fn new(targets: &'t Targets) -> Self {
        Harvester {
            scanner: Scanner::new(),
            sink: Sink {
                targets,
                scratch: Default::default(),
                hits: HashMap::new(),
                stats: Stats::default(),
            },
        }
    }

    /// What was scanned and hashed so far.
    pub fn stats(&self) -> Stats {
        self.sink.stats
    }

    /// Counts bytes read other than by [`Harvester::feed`] (a table whose
    /// pool was offered string by string).
    pub fn count_bytes(&mut self, bytes: u64) {
        self.sink.stats.bytes += bytes;
    }

    /// Scans one file's bytes (read through `buf`) for string runs.
    pub fn scan(&mut self, source: usize, reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<()> {
        self.scanner = Scanner::new();
        loop {
            let n = match reader.read(buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.feed(source, &buf[..n]);
        }
        self.finish(source);
        Ok(())
    }

    /// Scans the next bytes of the current file.
    pub fn feed(&mut self, source: usize, bytes: &[u8]) {
        let Harvester { scanner, sink } = self;
        sink.stats.bytes += bytes.len() as u64;
        scanner.feed(bytes, &mut |run, offset, _| sink.offer(source, offset, run));
    }

    /// Ends the current file: the run still open is offered.
    pub fn finish(&mut self, source: usize) {
        let Harvester { scanner, sink } = self;
        scanner.finish(&mut |run, offset, _| sink.offer(source, offset, run));
    }

    /// Offers one whole string (a table string), found at `offset` in `source`.
    pub fn offer(&mut self, source: usize, offset: u64, string: &[u8]) {
        self.sink.offer(source, offset, string);
    }

    /// Adds another harvester's hits and figures (for one run on several threads).
    pub fn merge(&mut self, other: Harvester) {
        self.sink.stats.add(other.sink.stats);
        for (key, hit) in other.sink.hits {
            match self.sink.hits.get_mut(&key) {
                Some(mine) => merge_hit(mine, hit),
                None => {
                    self.sink.hits.insert(key, hit);
                }
            }
        }
    }

    /// The hits, by hash then name.
    pub fn into_hits(self) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self.sink.hits.into_values().collect();
        hits.sort_by(|a, b| (a.hash, &a.name).cmp(&(b.hash, &b.name)));
        hits
    }
}

impl Sink<'_> {
    /// Hashes every candidate of `string` and keeps those that are targets.
    fn offer(&mut self, source: usize, offset: u64, string: &[u8]) {
        let Sink {
            targets,
            scratch,
            hits,
            stats,
        } = self;
        stats.strings += 1;
        stats.candidates += for_each_candidate(string, scratch, &mut |c| {
            if !targets.contains(c.hash) {
                return;
            }
            let name = c.to_name();
            let hit = Hit {
                hash: c.hash,
                exact: name.as_bytes() == string,
                found: String::from_utf8_lossy(string).into_owned(),
                name: name.clone(),
                source,
                offset,
                occurrences: 1,
            };
            match hits.get_mut(&(c.hash, name)) {
                Some(mine) => merge_hit(mine, hit),
                None => {
                    hits.insert((hit.hash, hit.name.clone()), hit);
                }
            }
        });
    }
}

/// Keeps the earliest place (exact strings before variants), adds the counts.
fn merge_hit(mine: &mut Hit, other: Hit) {
    let occurrences = mine.occurrences + other.occurrences;
    let rank = |h: &Hit| (!h.exact, h.source, h.offset);
    if rank(&other) < rank(mine) {
        *mine = other;
    }
    mine.occurrences = occurrences;
}

/// The name to give each hash: exact finds first, then the most often
/// found, then the earliest; the other names of the same hash (ignoring
/// letter case, which the hash ignores) are returned as rivals.
pub fn best_names(hits: &[Hit]) -> Vec<(&Hit, Vec<&Hit>)> {
    let mut by_hash: HashMap<u32, Vec<&Hit>> = HashMap::new();
    for h in hits {
        by_hash.entry(h.hash).or_default().push(h);
    }
    let mut out: Vec<(&Hit, Vec<&Hit>)> = by_hash
        .into_values()
        .map(|mut v| {
            v.sort_by_key(|h| {
                (
                    !h.exact,
                    std::cmp::Reverse(h.occurrences),
                    h.source,
                    h.offset,
                )
            });
            let best = v[0];
            let rivals = v[1..]
                .iter()
                .copied()
                .filter(|h| !h.name.eq_ignore_ascii_case(&best.name))
                .collect();
            (best, rivals)
        })
        .collect();
    out.sort_by_key(|(h, _)| h.hash);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipfb::make_entry_id;

    #[test]
    fn harvests_runs_and_table_strings() {
        let col = make_entry_id("mapmesh_box_500km.col");
        let rgn = make_entry_id("mapmesh_box_500km.rgn");
        let wp = make_entry_id("dat\\S01_AsteroidVolume_wp.col");
        let targets = Targets::new([col, rgn, wp, 0x1234_5678]);
        let mut h = Harvester::new(&targets);
        let data = b"\x00\x01mapmesh_box_500km.col\x00junk\x00dat/S01_AsteroidVolume.col\x00";
        h.scan(7, &mut &data[..], &mut [0u8; 5]).unwrap();
        h.offer(8, 100, b"mapmesh_box_500km.rgn");
        assert_eq!(h.stats().bytes, data.len() as u64);
        assert_eq!(h.stats().strings, 4);
        let hits = h.into_hits();
        let names: Vec<(&str, bool, usize, u64)> = hits
            .iter()
            .map(|h| (h.name.as_str(), h.exact, h.source, h.offset))
            .collect();
        assert!(
            names.contains(&("mapmesh_box_500km.col", true, 7, 2)),
            "{names:?}"
        );
        assert!(
            names.contains(&("mapmesh_box_500km.rgn", true, 8, 100)),
            "{names:?}"
        );
        assert!(
            names.contains(&("dat\\S01_AsteroidVolume_wp.col", false, 7, 29)),
            "{names:?}"
        );
        // The .rgn was also derived from the .col string, but the exact find wins.
        let best = best_names(&hits);
        assert_eq!(best.len(), 3);
        let rgn_best = best.iter().find(|(h, _)| h.hash == rgn).unwrap();
        assert_eq!((rgn_best.0.source, rgn_best.0.occurrences), (8, 2));
    }

    #[test]
    fn merging_keeps_the_earliest_and_counts_all() {
        let targets = Targets::new([make_entry_id("abcd.col")]);
        let (mut a, mut b) = (Harvester::new(&targets), Harvester::new(&targets));
        a.offer(3, 50, b"abcd.col");
        b.offer(1, 90, b"abcd.col");
        b.offer(2, 10, b"abcd");
        a.merge(b);
        let hits = a.into_hits();
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].source, hits[0].offset, hits[0].occurrences),
            (1, 90, 3)
        );
    }

    #[test]
    fn rivals_are_names_that_differ_beyond_case() {
        let hit = |name: &str, exact| Hit {
            hash: 1,
            name: name.into(),
            found: name.into(),
            source: 0,
            offset: 0,
            exact,
            occurrences: 1,
        };
        let hits = [hit("A.col", false), hit("a.col", true), hit("zz", false)];
        let best = best_names(&hits);
        assert_eq!(best[0].0.name, "a.col");
        assert_eq!(best[0].1.len(), 1);
        assert_eq!(best[0].1[0].name, "zz");
    }
}
