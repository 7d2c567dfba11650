//! The forms a file name takes: a string found on the disc becomes every
//! candidate inner path it may stand for, each hashed with MakeEntryID.
//!
//! From a string `S`: the part after its last `+` (a `pak+inner` name);
//! each of those with `/` and `\` exchanged both ways; each path with its
//! folder prefixes removed one at a time (after `\`, `/` or `:`); each name
//! split into stem and extension; the stem as is, with a `_wp` / `_cmesh`
//! suffix removed (when it has one) or added (when it has none); the
//! extension as is and replaced by (or, without one, given) each of `.col
//! .rgn .bin .tbl .xbg`.

use crate::ipfb::{EntryIdPiece, EntryIdState};

/// Extensions seen on the disc, tried on every stem.
pub const EXTENSIONS: [&[u8]; 5] = [b".col", b".rgn", b".bin", b".tbl", b".xbg"];
/// Stem suffixes removed or added.
pub const SUFFIXES: [&[u8]; 2] = [b"_wp", b"_cmesh"];

/// [`EXTENSIONS`] prepared for hashing.
const EXTENSION_PIECES: [EntryIdPiece; 5] = [
    EntryIdPiece::new(EXTENSIONS[0]),
    EntryIdPiece::new(EXTENSIONS[1]),
    EntryIdPiece::new(EXTENSIONS[2]),
    EntryIdPiece::new(EXTENSIONS[3]),
    EntryIdPiece::new(EXTENSIONS[4]),
];
/// [`SUFFIXES`] prepared for hashing.
const SUFFIX_PIECES: [EntryIdPiece; 2] = [
    EntryIdPiece::new(SUFFIXES[0]),
    EntryIdPiece::new(SUFFIXES[1]),
];

/// One candidate: the pieces that make it (a stem, a suffix to append
/// after the stem, an extension) and its hash. The candidate's bytes are
/// `stem ++ suffix ++ extension`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate<'a> {
    /// Everything up to the suffix.
    pub stem: &'a [u8],
    /// A suffix added to the stem (empty when none).
    pub suffix: &'a [u8],
    /// The extension, dot included (may be empty).
    pub extension: &'a [u8],
    /// MakeEntryID of the whole candidate.
    pub hash: u32,
}

impl Candidate<'_> {
    /// The candidate as text.
    pub fn to_name(&self) -> String {
        let mut v = Vec::with_capacity(self.stem.len() + self.suffix.len() + self.extension.len());
        v.extend_from_slice(self.stem);
        v.extend_from_slice(self.suffix);
        v.extend_from_slice(self.extension);
        String::from_utf8_lossy(&v).into_owned()
    }
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'\\' | b'/' | b':')
}

/// Calls `f` with every candidate of `found`; returns how many there were.
/// `scratch` holds the exchanged-separator copies (reused between calls).
pub fn for_each_candidate(
    found: &[u8],
    scratch: &mut [Vec<u8>; 2],
    f: &mut impl FnMut(Candidate),
) -> u64 {
    let mut n = for_path_forms(found, scratch, f);
    if let Some(plus) = found.iter().rposition(|&b| b == b'+')
        && plus + 1 < found.len()
    {
        n += for_path_forms(&found[plus + 1..], scratch, f);
    }
    n
}

fn for_path_forms(path: &[u8], scratch: &mut [Vec<u8>; 2], f: &mut impl FnMut(Candidate)) -> u64 {
    let mut n = for_folder_suffixes(path, f);
    for (k, (from, to)) in [(b'/', b'\\'), (b'\\', b'/')].into_iter().enumerate() {
        if path.contains(&from) {
            let swapped = &mut scratch[k];
            swapped.clear();
            swapped.extend(path.iter().map(|&b| if b == from { to } else { b }));
            n += for_folder_suffixes(swapped, f);
        }
    }
    n
}

fn for_folder_suffixes(path: &[u8], f: &mut impl FnMut(Candidate)) -> u64 {
    let mut n = for_name(path, f);
    for (i, _) in path.iter().enumerate().filter(|(_, b)| is_separator(**b)) {
        if i + 1 < path.len() {
            n += for_name(&path[i + 1..], f);
        }
    }
    n
}

/// Stems and extensions of one name.
fn for_name(name: &[u8], f: &mut impl FnMut(Candidate)) -> u64 {
    let last_sep = name
        .iter()
        .rposition(|&b| is_separator(b))
        .map_or(0, |i| i + 1);
    let dot = name[last_sep..]
        .iter()
        .rposition(|&b| b == b'.')
        .map(|i| last_sep + i);
    let (stem, extension) = name.split_at(dot.unwrap_or(name.len()));
    let mut n = 0;
    let own = EntryIdPiece::new(extension);
    let mut with_stem = |stem: &[u8], state: EntryIdState, suffix: &[u8]| {
        let mut emit = |ext: &[u8], piece: &EntryIdPiece| {
            f(Candidate {
                stem,
                suffix,
                extension: ext,
                hash: state.append(piece).finish(),
            });
            n += 1;
        };
        emit(extension, &own);
        for (ext, piece) in EXTENSIONS.iter().zip(&EXTENSION_PIECES) {
            if !ext.eq_ignore_ascii_case(extension) {
                emit(ext, piece);
            }
        }
    };
    let has = SUFFIXES
        .iter()
        .find(|s| stem.len() > s.len() && stem[stem.len() - s.len()..].eq_ignore_ascii_case(s));
    match has {
        Some(s) => {
            let bare = &stem[..stem.len() - s.len()];
            let state = EntryIdState::new().feed(bare);
            with_stem(stem, state.feed(&stem[bare.len()..]), b"");
            with_stem(bare, state, b"");
        }
        None => {
            let state = EntryIdState::new().feed(stem);
            with_stem(stem, state, b"");
            for (s, piece) in SUFFIXES.iter().zip(&SUFFIX_PIECES) {
                with_stem(stem, state.append(piece), s);
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipfb::make_entry_id;

    fn all(found: &str) -> Vec<String> {
        let mut out = Vec::new();
        let n = for_each_candidate(found.as_bytes(), &mut Default::default(), &mut |c| {
            assert_eq!(c.hash, make_entry_id(&c.to_name()), "{}", c.to_name());
            out.push(c.to_name());
        });
        assert_eq!(n as usize, out.len());
        out
    }

    #[test]
    fn a_bare_name_gets_extensions_and_suffixes() {
        let v = all("S01_AsteroidVolume_wp.col");
        for want in [
            "S01_AsteroidVolume_wp.col",
            "S01_AsteroidVolume_wp.rgn",
            "S01_AsteroidVolume.col",
            "S01_AsteroidVolume.xbg",
        ] {
            assert!(v.contains(&want.to_string()), "{want} in {v:?}");
        }
        assert_eq!(v.len(), 10, "{v:?}");
        let v = all("mapmesh_box_500km");
        assert!(v.contains(&"mapmesh_box_500km.rgn".to_string()));
        assert!(v.contains(&"mapmesh_box_500km_cmesh.bin".to_string()));
        assert!(v.contains(&"mapmesh_box_500km".to_string()));
        assert_eq!(v.len(), 18);
    }

    #[test]
    fn folders_separators_and_pak_prefixes() {
        let v = all("game:\\dat/stage\\S01.tbl");
        for want in [
            "game:\\dat/stage\\S01.tbl",
            "dat\\stage\\S01.tbl",
            "dat/stage/S01.tbl",
            "stage\\S01.rgn",
            "S01.tbl",
            "S01_wp.col",
        ] {
            assert!(v.contains(&want.to_string()), "{want}");
        }
        let v = all("hidden\\MiscBin.pak+mapmesh_box_500km.col");
        assert!(v.contains(&"mapmesh_box_500km.col".to_string()));
        assert!(v.contains(&"mapmesh_box_500km.rgn".to_string()));
    }

    #[test]
    fn a_dot_in_a_folder_is_no_extension() {
        let v = all("v1.2\\name");
        assert!(v.contains(&"v1.2\\name.col".to_string()), "{v:?}");
    }
}
