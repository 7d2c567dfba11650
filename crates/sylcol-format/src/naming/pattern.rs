//! Name patterns for `sylcol names guess`: brace alternatives
//! (`{col,rgn}`, nestable) and numeric ranges (`{01..16}`, zero-padded when
//! a bound is), expanded lazily and hashed prefix by prefix.
//!
//! `\` is a path separator, not an escape, and `/` is read as `\` (as
//! everywhere an inner name is given). A brace group with neither a comma
//! nor a range is literal text, braces included.

use crate::ipfb::{EntryIdPiece, EntryIdState};

/// Most alternatives one brace group may expand to (nested groups multiply).
pub const MAX_GROUP: usize = 1 << 20;

/// Most candidates a whole pattern may expand to (its groups multiply):
/// 2^20. Past it, chance matches swamp the real ones (2^20 candidates
/// against the 4 096 entries of a disc give one match by chance, as each
/// hash is one of 2^32), and the list without `--archive` is a million
/// lines.
pub const MAX_CANDIDATES: u128 = 1 << 20;

/// A pattern that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern, at character {at}: {message}")]
pub struct PatternError {
    /// Byte position in the pattern.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

/// A parsed pattern: a sequence of parts, each a list of alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    parts: Vec<Vec<Vec<u8>>>,
    /// Each alternative prepared for hashing, parallel to `parts`.
    pieces: Vec<Vec<EntryIdPiece>>,
}

impl Pattern {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let bytes: Vec<u8> = text
            .bytes()
            .map(|b| if b == b'/' { b'\\' } else { b })
            .collect();
        let mut parts = Vec::new();
        let mut literal = Vec::new();
        let mut at = 0;
        let mut count: u128 = 1;
        while at < bytes.len() {
            if bytes[at] == b'{' {
                let end = closing(&bytes, at)?;
                match group(&bytes[at + 1..end], at + 1)? {
                    Some(alternatives) => {
                        count = count.saturating_mul(alternatives.len() as u128);
                        if count > MAX_CANDIDATES {
                            return Err(PatternError {
                                at,
                                message: format!(
                                    "with this group the pattern expands to more than \
                                     {MAX_CANDIDATES} candidates (2^20; the limit: past it \
                                     chance matches swamp the real ones): split it"
                                ),
                            });
                        }
                        if !literal.is_empty() {
                            parts.push(vec![std::mem::take(&mut literal)]);
                        }
                        parts.push(alternatives);
                    }
                    None => literal.extend_from_slice(&bytes[at..=end]),
                }
                at = end + 1;
            } else if bytes[at] == b'}' {
                return Err(PatternError {
                    at,
                    message: "`}` without its `{`".into(),
                });
            } else {
                literal.push(bytes[at]);
                at += 1;
            }
        }
        if !literal.is_empty() || parts.is_empty() {
            parts.push(vec![literal]);
        }
        let pieces = parts
            .iter()
            .map(|p| p.iter().map(|a| EntryIdPiece::new(a)).collect())
            .collect();
        Ok(Pattern { parts, pieces })
    }

    /// How many candidates the pattern expands to.
    pub fn count(&self) -> u128 {
        self.parts.iter().map(|p| p.len() as u128).product()
    }

    /// Calls `f(choice, hash)` for every candidate, in order; `choice`
    /// picks one alternative per part ([`Pattern::render`] spells it).
    /// Each prefix is hashed once for all the candidates that share it,
    /// and each alternative is appended in one step ([`EntryIdPiece`]).
    pub fn for_each(&self, mut f: impl FnMut(&[usize], u32)) {
        let n = self.parts.len();
        let mut choice = vec![0usize; n];
        let mut states = vec![EntryIdState::new(); n + 1];
        for k in 0..n {
            states[k + 1] = states[k].append(&self.pieces[k][0]);
        }
        loop {
            f(&choice, states[n].finish());
            let mut k = n;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                choice[k] += 1;
                if choice[k] < self.parts[k].len() {
                    break;
                }
                choice[k] = 0;
            }
            for j in k..n {
                states[j + 1] = states[j].append(&self.pieces[j][choice[j]]);
            }
        }
    }

    /// The candidate a choice spells.
    pub fn render(&self, choice: &[usize]) -> String {
        let bytes: Vec<u8> = (self.parts.iter().zip(choice))
            .flat_map(|(p, &i)| p[i].iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// The index of the `}` closing the `{` at `open`.
fn closing(bytes: &[u8], open: usize) -> Result<usize, PatternError> {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err(PatternError {
        at: open,
        message: "`{` without its `}`".into(),
    })
}

/// A group's alternatives, or `None` when the group is literal text.
fn group(inner: &[u8], at: usize) -> Result<Option<Vec<Vec<u8>>>, PatternError> {
    if let Some(range) = numeric_range(inner) {
        return range
            .map(Some)
            .map_err(|message| PatternError { at, message });
    }
    let pieces = top_level_split(inner);
    if pieces.len() < 2 {
        return Ok(None);
    }
    let mut out = Vec::new();
    for (offset, piece) in pieces {
        let text = String::from_utf8_lossy(piece);
        let sub = Pattern::parse(&text).map_err(|e| PatternError {
            at: at + offset + e.at,
            message: e.message,
        })?;
        if out.len() as u128 + sub.count() > MAX_GROUP as u128 {
            return Err(PatternError {
                at,
                message: format!("a brace group expands to more than {MAX_GROUP} alternatives"),
            });
        }
        sub.for_each(|choice, _| out.push(sub.render(choice).into_bytes()));
    }
    Ok(Some(out))
}

/// Splits at commas outside nested braces: (offset, piece).
fn top_level_split(inner: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, &b) in inner.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push((start, &inner[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, &inner[start..]));
    out
}

/// `A..B` with decimal A, B: the numbers from A to B (either direction),
/// zero-padded to the longer bound's width when a bound has a leading zero.
fn numeric_range(inner: &[u8]) -> Option<Result<Vec<Vec<u8>>, String>> {
    let text = std::str::from_utf8(inner).ok()?;
    let (a, b) = text.split_once("..")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) {
        return None;
    }
    let parse = |s: &str| s.parse::<u64>().map_err(|_| format!("{s} is too large"));
    let (lo, hi) = match (parse(a), parse(b)) {
        (Ok(lo), Ok(hi)) => (lo, hi),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    if lo.abs_diff(hi) >= MAX_GROUP as u64 {
        return Some(Err(format!("{{{text}}} has more than {MAX_GROUP} numbers")));
    }
    let padded = |s: &str| s.len() > 1 && s.starts_with('0');
    let width = if padded(a) || padded(b) {
        a.len().max(b.len())
    } else {
        0
    };
    let numbers: Vec<u64> = if lo <= hi {
        (lo..=hi).collect()
    } else {
        (hi..=lo).rev().collect()
    };
    Some(Ok(numbers
        .into_iter()
        .map(|n| format!("{n:0width$}").into_bytes())
        .collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipfb::make_entry_id;

    fn expand(p: &str) -> Vec<String> {
        let pattern = Pattern::parse(p).unwrap();
        let mut out = Vec::new();
        pattern.for_each(|choice, hash| {
            let name = pattern.render(choice);
            assert_eq!(hash, make_entry_id(&name), "{name}");
            out.push(name);
        });
        assert_eq!(out.len() as u128, pattern.count());
        out
    }

    #[test]
    fn the_issue_example() {
        let v = expand("S{01..16}_AsteroidVolume_wp.{col,rgn}");
        assert_eq!(v.len(), 32);
        assert_eq!(v[0], "S01_AsteroidVolume_wp.col");
        assert_eq!(v[1], "S01_AsteroidVolume_wp.rgn");
        assert_eq!(v[31], "S16_AsteroidVolume_wp.rgn");
    }

    #[test]
    fn ranges_alternatives_and_nesting() {
        assert_eq!(expand("{8..11}"), ["8", "9", "10", "11"]);
        assert_eq!(expand("{3..1}"), ["3", "2", "1"]);
        assert_eq!(expand("x{009..10}"), ["x009", "x010"]);
        assert_eq!(expand("{a,b{c,d},}e"), ["ae", "bce", "bde", "e"]);
        assert_eq!(expand("plain"), ["plain"]);
        assert_eq!(expand(""), [""]);
        assert_eq!(expand("{x}"), ["{x}"]);
        assert_eq!(
            expand("dat/stage\\{S01,S02}.tbl"),
            ["dat\\stage\\S01.tbl", "dat\\stage\\S02.tbl"]
        );
    }

    #[test]
    fn bad_patterns_name_the_place() {
        assert_eq!(Pattern::parse("ab{c,d").unwrap_err().at, 2);
        assert_eq!(Pattern::parse("ab}").unwrap_err().at, 2);
        assert!(Pattern::parse("{0..99999999}").is_err());
        assert!(Pattern::parse("{0..99999999999999999999999}").is_err());
        let big = Pattern::parse("{0..999}{0..999}").unwrap();
        assert_eq!(big.count(), 1_000_000);
        let err = Pattern::parse("{0..999}{0..999}{0..999}").unwrap_err();
        assert_eq!(err.at, 16);
        assert!(
            err.message.contains("more than 1048576 candidates"),
            "{err}"
        );
        // Thirty two-way groups: 2^30 candidates, refused before any is made.
        let err = Pattern::parse(&"{a,b}".repeat(30)).unwrap_err();
        assert_eq!(err.at, 5 * 20);
        assert!(Pattern::parse(&"{a,b}".repeat(20)).is_ok());
    }
}
