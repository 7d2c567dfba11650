//! Entry names: the game's MakeEntryID hash, the built-in dictionary, user
//! name lists, and the `$XXXXXXXX[.MAGIC]` display of unknown entries.

use std::collections::HashMap;

/// The game's MakeEntryID: the hash an IPFB index stores for an inner path.
///
/// The name is lower-cased (ASCII) and hashed byte by byte; backslashes are
/// part of the name. Callers that accept `/` convert it first
/// ([`normalise_inner`]).
pub fn make_entry_id(name: &str) -> u32 {
    EntryIdState::new().feed(name.as_bytes()).finish()
}

/// The modulus of MakeEntryID's first accumulator.
const ENTRY_ID_MODULUS: u32 = 0x00FF_F9D7;

/// MakeEntryID part-way through a name: feed bytes in pieces, copy the
/// state to try several endings of one prefix (`names guess`, `names
/// harvest` hash millions of candidates that share prefixes).
///
/// From the empty state, `v2` stays below the modulus M = 0xFFF9D7 after
/// every byte (256 v2 + c < 2^32, and a value under 2^23 is under M, so the
/// conditional reduction is exactly `mod M`): MakeEntryID's `v2` is the
/// base-256 value of the lower-cased name mod M. A fixed string can
/// therefore be appended in one step ([`EntryIdPiece`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntryIdState {
    v2: u32,
    v3: u32,
}

/// A fixed string prepared for [`EntryIdState::append`]: 256^len mod M,
/// its base-256 value mod M, and its byte sum (all lower-cased).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryIdPiece {
    power: u32,
    value: u32,
    sum: u32,
}

impl EntryIdPiece {
    /// Prepares `bytes`.
    pub const fn new(bytes: &[u8]) -> Self {
        let m = ENTRY_ID_MODULUS as u64;
        let (mut power, mut value, mut sum) = (1u64, 0u64, 0u32);
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i].to_ascii_lowercase();
            power = power * 256 % m;
            value = (value * 256 + c as u64) % m;
            sum = sum.wrapping_add(c as u32);
            i += 1;
        }
        EntryIdPiece {
            power: power as u32,
            value: value as u32,
            sum,
        }
    }
}

impl EntryIdState {
    /// The state before the first byte.
    pub const fn new() -> Self {
        EntryIdState { v2: 0, v3: 0 }
    }

    /// The state after `bytes` more (lower-cased as ASCII).
    #[inline]
    pub fn feed(mut self, bytes: &[u8]) -> Self {
        for &b in bytes {
            let c = u32::from(b.to_ascii_lowercase());
            self.v3 = self.v3.wrapping_add(c);
            self.v2 = (self.v2 << 8).wrapping_add(c);
            if self.v2 & 0xFF80_0000 != 0 {
                self.v2 %= ENTRY_ID_MODULUS;
            }
        }
        self
    }

    /// The state after a prepared piece: the same as feeding its bytes,
    /// in one multiply and one remainder.
    #[inline]
    pub fn append(self, piece: &EntryIdPiece) -> Self {
        let v2 = (u64::from(self.v2) * u64::from(piece.power) + u64::from(piece.value))
            % u64::from(ENTRY_ID_MODULUS);
        EntryIdState {
            v2: v2 as u32,
            v3: self.v3.wrapping_add(piece.sum),
        }
    }

    /// The hash of everything fed.
    #[inline]
    pub fn finish(self) -> u32 {
        self.v2 | (self.v3 << 24)
    }
}

/// An inner path as the game writes it: `/` replaced by `\`.
pub fn normalise_inner(name: &str) -> String {
    name.replace('/', "\\")
}

/// Names the seeds give for `hidden\MiscBin.pak` entries.
pub const BUILTIN_NAMES: &[&str] = &[
    "CollisionSet_S01.bin",
    "CollisionSet_S02.bin",
    "CollisionSet_S03.bin",
    "CollisionSet_S04.bin",
    "CollisionSet_S05.bin",
    "CollisionSet_S06.bin",
    "CollisionSet_S07.bin",
    "CollisionSet_S08.bin",
    "CollisionSet_S09.bin",
    "CollisionSet_S10.bin",
    "CollisionSet_S11.bin",
    "CollisionSet_S12.bin",
    "CollisionSet_S13.bin",
    "CollisionSet_S14.bin",
    "CollisionSet_S15.bin",
    "CollisionSet_S16.bin",
    "CollisionSet_Tutorial.bin",
    "CollisionSet_test.bin",
    "mapmesh_box_500km.col",
    "mapmesh_box_500km.rgn",
];

/// A hash -> name dictionary.
#[derive(Debug, Clone, Default)]
pub struct NameBook {
    by_hash: HashMap<u32, String>,
}

impl NameBook {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self::default()
    }

    /// The dictionary of [`BUILTIN_NAMES`].
    pub fn builtin() -> Self {
        let mut book = Self::new();
        for name in BUILTIN_NAMES {
            book.insert(name);
        }
        book
    }

    /// Adds one inner name (`/` accepted as `\`); the first name given for a
    /// hash wins.
    pub fn insert(&mut self, name: &str) {
        let name = normalise_inner(name);
        self.by_hash.entry(make_entry_id(&name)).or_insert(name);
    }

    /// Adds the names of a user list: one a line, `pak+inner` or bare,
    /// blank lines and `#` comments ignored. Returns how many lines named
    /// something.
    pub fn add_list(&mut self, text: &str) -> usize {
        let mut added = 0;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let inner = line.split_once('+').map_or(line, |(_, inner)| inner);
            if !inner.is_empty() {
                self.insert(inner);
                added += 1;
            }
        }
        added
    }

    /// Adds the names of a list found beside an archive named `archive`
    /// (its file name, e.g. `MiscBin.pak`): bare lines, and `pak+inner`
    /// lines whose `pak` ends in that file name (any letter case, `\` or
    /// `/`); lines for other archives are skipped. Returns how many lines
    /// named something here.
    pub fn add_list_for(&mut self, text: &str, archive: &str) -> usize {
        let mut added = 0;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let inner = match line.split_once('+') {
                Some((pak, inner)) => {
                    let file = pak.rsplit(['\\', '/']).next().unwrap_or(pak);
                    if !file.eq_ignore_ascii_case(archive) {
                        continue;
                    }
                    inner
                }
                None => line,
            };
            if !inner.is_empty() {
                self.insert(inner);
                added += 1;
            }
        }
        added
    }

    /// Adds every name of `other` whose hash this dictionary does not
    /// name yet (the names already here win).
    pub fn merge(&mut self, other: &NameBook) {
        for (hash, name) in &other.by_hash {
            self.by_hash.entry(*hash).or_insert_with(|| name.clone());
        }
    }

    /// The known name of `hash`.
    pub fn get(&self, hash: u32) -> Option<&str> {
        self.by_hash.get(&hash).map(String::as_str)
    }

    /// How many names the dictionary holds.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// How to show an entry: its name when known, else `$XXXXXXXX` plus
    /// `.MAGIC` when the payload starts with a printable magic.
    pub fn display(&self, hash: u32, magic: Option<&str>) -> String {
        match self.get(hash) {
            Some(name) => name.to_string(),
            None => unknown_display(hash, magic),
        }
    }
}

/// `$XXXXXXXX` (upper-case hex) plus `.MAGIC` when a magic is given and
/// safe in a file name (ASCII letters, digits, `_`, `-`): the display name
/// is also the name `pak extract` writes, so a magic such as `a/..` is left
/// out rather than turned into a path.
pub fn unknown_display(hash: u32, magic: Option<&str>) -> String {
    let safe = |m: &&str| {
        m.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    };
    match magic.filter(safe) {
        Some(m) => format!("${hash:08X}.{m}"),
        None => format!("${hash:08X}"),
    }
}

/// The hash an inner reference means: `$XXXXXXXX` (optionally followed by
/// `.anything`) is that hash; anything else is a name, hashed with `/` read
/// as `\`.
pub fn inner_hash(inner: &str) -> u32 {
    parse_dollar_hash(inner).unwrap_or_else(|| make_entry_id(&normalise_inner(inner)))
}

/// The hash of a `$XXXXXXXX` or `$XXXXXXXX.suffix` reference.
pub fn parse_dollar_hash(s: &str) -> Option<u32> {
    let hex = s.strip_prefix('$')?;
    let digits = hex.get(..8)?;
    let rest = &hex[8..];
    if !(rest.is_empty() || rest.starts_with('.')) || !digits.bytes().all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_md_vectors() {
        assert_eq!(make_entry_id("files.tbl"), 0x8342_1153);
        assert_eq!(make_entry_id("GP_TITLE.tbl"), 0xC899_EBD9);
        assert_eq!(make_entry_id("eng\\GP_TITLE.tbl"), 0x5EE7_0E0A);
        assert_eq!(inner_hash("eng/GP_TITLE.tbl"), 0x5EE7_0E0A);
        assert_eq!(make_entry_id(""), 0);
        let eng = EntryIdState::new().feed(b"ENG\\");
        assert_eq!(eng.feed(b"gp_title.tbl").finish(), 0x5EE7_0E0A);
    }

    proptest::proptest! {
        #[test]
        fn appending_a_piece_is_feeding_its_bytes(
            head in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
        ) {
            let state = EntryIdState::new().feed(&head);
            proptest::prop_assert_eq!(
                state.append(&EntryIdPiece::new(&tail)),
                state.feed(&tail)
            );
        }
    }

    #[test]
    fn dollar_references() {
        assert_eq!(parse_dollar_hash("$2CF7EB47"), Some(0x2CF7_EB47));
        assert_eq!(parse_dollar_hash("$2cf7eb47.MCOL"), Some(0x2CF7_EB47));
        assert_eq!(parse_dollar_hash("$2CF7EB47X"), None);
        assert_eq!(parse_dollar_hash("$2CF7EB4"), None);
        assert_eq!(parse_dollar_hash("$2CF7EB4G"), None);
        assert_eq!(parse_dollar_hash("$é2CF7EB47"), None);
        assert_eq!(inner_hash("$0000ABCD.bin"), 0xABCD);
    }

    #[test]
    fn lists_and_display() {
        let mut book = NameBook::builtin();
        assert_eq!(book.len(), BUILTIN_NAMES.len());
        let text = "# comment\n\n  hidden\\MiscBin.pak+eng/GP_TITLE.tbl \nfiles.tbl\n";
        assert_eq!(book.add_list(text), 2);
        assert_eq!(book.get(0x5EE7_0E0A), Some("eng\\GP_TITLE.tbl"));
        assert_eq!(book.display(0x8342_1153, Some("MCOL")), "files.tbl");
        assert_eq!(book.display(0x2CF7_EB47, Some("MCOL")), "$2CF7EB47.MCOL");
        assert_eq!(book.display(0x2CF7_EB47, None), "$2CF7EB47");
        assert_eq!(unknown_display(0x2CF7_EB47, Some("a/..")), "$2CF7EB47");
        assert_eq!(unknown_display(1, Some("RGN_")), "$00000001.RGN_");
        let mut beside = NameBook::new();
        let text = "MiscBin.pak+a.col\nhidden\\MISCBIN.PAK+b.col\nTables.pak+c.col\nd.col\n";
        assert_eq!(beside.add_list_for(text, "MiscBin.pak"), 3);
        assert!(beside.get(make_entry_id("b.col")).is_some());
        assert!(beside.get(make_entry_id("c.col")).is_none());
        assert!(beside.get(make_entry_id("d.col")).is_some());
        let id = make_entry_id("CollisionSet_S01.bin");
        assert_eq!(book.get(id), Some("CollisionSet_S01.bin"));
    }
}
