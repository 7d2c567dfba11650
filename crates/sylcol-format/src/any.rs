//! Decode whatever an object is: one entry point over every format sylcol
//! decodes, so that commands never repeat detect -> decode -> bail.
//!
//! | step | what is tried | on failure |
//! |---|---|---|
//! | 0 | the input holds at least one byte (no format sylcol decodes is empty) | [`AnyError::Empty`] |
//! | 1 | magic `MCOL`, `REGN`, `IDXD` or `IXUD` at 0x00 | that decoder's error is final ([`AnyError::Invalid`]) |
//! | 2 | the CollisionSet record walk (no magic: the walk must consume the input) | kept as the CollisionSet attempt |
//! | 3 | nothing matched | [`AnyError::Unrecognised`] with the magic and what the walk said, at its offset |
//!
//! A library whose *first* record is damaged therefore reads "starts with
//! 00 00 10 40 …, no magic sylcol knows (...), and the CollisionSet walk
//! failed at byte N: ..." — the same
//! offset and invariant as a damaged later record. A library whose first
//! record frames correctly but breaks later is [`AnyError::Invalid`].
//!
//! A new format adds a variant to [`Object`] and [`Kind`], a line in
//! [`decode_any`] and one in [`Kind::name`].

use crate::collisionset::{self, CollisionSet};
use crate::error::DecodeError;
use crate::idxd::{self, Flavour, StringTable};
use crate::mcol::{self, Mcol};
use crate::regn::{self, Regn};

/// The formats [`decode_any`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// An MCOL map collision hull.
    Mcol,
    /// A CollisionSet part library.
    CollisionSet,
    /// A REGN object (decoded as far as it is known).
    Regn,
    /// A UTF-8 string table.
    Idxd,
    /// A UTF-16BE string table.
    Ixud,
}

impl Kind {
    /// The format whose magic `data` starts with (`MCOL`, `REGN`, `IDXD`,
    /// `IXUD`: [`DECODED_MAGICS`](crate::DECODED_MAGICS)); `None` for any
    /// other start, a CollisionSet's included (it has no magic).
    pub fn from_magic(data: &[u8]) -> Option<Kind> {
        match data.get(..4)? {
            b"MCOL" => Some(Kind::Mcol),
            b"REGN" => Some(Kind::Regn),
            b"IDXD" => Some(Kind::Idxd),
            b"IXUD" => Some(Kind::Ixud),
            _ => None,
        }
    }

    /// What `data` is, decided as [`decode_any`] decides it but without
    /// decoding: its magic ([`from_magic`](Self::from_magic)), else a
    /// CollisionSet when a record walk consumes it exactly (no geometry is
    /// decoded); `None` for anything else. The object may still fail to
    /// decode as that format.
    pub fn detect(data: &[u8]) -> Option<Kind> {
        Kind::from_magic(data)
            .or_else(|| collisionset::looks_like(data).then_some(Kind::CollisionSet))
    }

    /// The format's name as reports print it (`MCOL`, `CollisionSet`,
    /// `REGN`, `IDXD`, `IXUD`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mcol => "MCOL",
            Kind::CollisionSet => "CollisionSet",
            Kind::Regn => "REGN",
            Kind::Idxd => "IDXD",
            Kind::Ixud => "IXUD",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A decoded object of any format sylcol reads.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Object {
    /// A map collision hull.
    Mcol(Box<Mcol>),
    /// A part library.
    CollisionSet(CollisionSet),
    /// A REGN object: its header, sections and every byte.
    Regn(Box<Regn>),
    /// An IDXD or IXUD string table.
    StringTable(StringTable),
}

impl Object {
    /// Which format this object is.
    pub fn kind(&self) -> Kind {
        match self {
            Object::Mcol(_) => Kind::Mcol,
            Object::CollisionSet(_) => Kind::CollisionSet,
            Object::Regn(_) => Kind::Regn,
            Object::StringTable(t) => match t.flavour {
                Flavour::Idxd => Kind::Idxd,
                Flavour::Ixud => Kind::Ixud,
            },
        }
    }
}

/// Why [`decode_any`] could not decode an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnyError {
    /// The object is recognisably `kind` but breaks one of its invariants.
    #[error("invalid {kind} {error}")]
    Invalid {
        /// The format the object claimed to be.
        kind: Kind,
        /// Where and how it broke.
        error: DecodeError,
    },
    /// No format matched; `collisionset` is where the record walk
    /// stopped. The message says what the first bytes are: text (a
    /// README, a log) is said to be text, not a format sylcol reads;
    /// other bytes are shown with where the CollisionSet walk (the one
    /// format without a magic) failed.
    #[error("not a format sylcol decodes: {}", unrecognised(&head[..usize::from(*head_len)], *text, collisionset))]
    Unrecognised {
        /// The first four bytes when printable.
        magic: Option<String>,
        /// The first bytes (`head_len` of them: fewer in a shorter object).
        head: [u8; HEAD_SHOWN],
        /// How many bytes of `head` the object has.
        head_len: u8,
        /// Whether the first bytes read as text (UTF-8 without control
        /// characters but tabs and line ends).
        text: bool,
        /// The CollisionSet attempt's error (offset and invariant).
        collisionset: Box<DecodeError>,
    },
    /// The input holds no byte: no format sylcol decodes is empty (a
    /// CollisionSet holds at least one record), so an empty file or entry
    /// is a truncated object, not an empty library.
    #[error("empty: 0 bytes; truncated (no format sylcol decodes is empty)")]
    Empty,
    /// The object is more bytes than sylcol holds of it in memory (see
    /// [`crate::budget`]): refused from its first bytes and its declared
    /// size, before the rest is read. Never returned by [`decode_any`],
    /// which is handed bytes already held.
    #[error("{} of {size} bytes is too large to read: {limit}", kind.map_or("an object", Kind::name))]
    TooLarge {
        /// The format its first bytes show (`None`: not judged from them,
        /// as for `sylcol probe`, which reads any chunk).
        kind: Option<Kind>,
        /// The size it declares (a Z1 header's, a part's, a file's).
        size: u64,
        /// What it is more than.
        limit: SizeLimit,
    },
}

/// What an object of [`AnyError::TooLarge`] is more than.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeLimit {
    /// What its header allows (an MCOL's counts and grid).
    Header(mcol::SizeBound),
    /// The most bytes of one object sylcol holds ([`crate::budget::MAX_OBJECT`]).
    Budget(u64),
}

impl SizeLimit {
    /// The most bytes allowed.
    pub fn bytes(&self) -> u64 {
        match self {
            SizeLimit::Header(bound) => bound.bytes,
            SizeLimit::Budget(bytes) => *bytes,
        }
    }
}

impl std::fmt::Display for SizeLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeLimit::Header(bound) => write!(f, "{bound} (the counts at 0x50, the grid at 0x70)"),
            SizeLimit::Budget(bytes) => write!(
                f,
                "sylcol holds at most {bytes} bytes ({} MiB) of one object in memory",
                bytes >> 20
            ),
        }
    }
}

impl AnyError {
    /// The byte offset the error points at.
    pub fn offset(&self) -> u64 {
        match self {
            AnyError::Invalid { error, .. } => error.offset,
            AnyError::Unrecognised { collisionset, .. } => collisionset.offset,
            AnyError::Empty => 0,
            AnyError::TooLarge { limit, .. } => match limit {
                SizeLimit::Header(_) => 0x50,
                SizeLimit::Budget(_) => 0,
            },
        }
    }

    /// The format that was recognised, if any.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            AnyError::Invalid { kind, .. } => Some(*kind),
            AnyError::TooLarge { kind, .. } => *kind,
            AnyError::Unrecognised { .. } | AnyError::Empty => None,
        }
    }
}

/// How many first bytes an [`AnyError::Unrecognised`] shows.
pub const HEAD_SHOWN: usize = 4;

/// How many first bytes are looked at to tell text from binary.
const TEXT_PROBE: usize = 256;

impl AnyError {
    /// No format matched `data` (the object, or its first bytes);
    /// `collisionset` is where the CollisionSet walk stopped.
    pub fn unrecognised(data: &[u8], collisionset: DecodeError) -> AnyError {
        let mut head = [0; HEAD_SHOWN];
        let head_len = data.len().min(HEAD_SHOWN);
        head[..head_len].copy_from_slice(&data[..head_len]);
        AnyError::Unrecognised {
            magic: crate::bytes::printable_magic(data, 0),
            head,
            head_len: head_len as u8,
            text: looks_like_text(&data[..data.len().min(TEXT_PROBE)]),
            collisionset: Box::new(collisionset),
        }
    }
}

/// Whether `probe` (an object's first bytes) reads as text: UTF-8 (a
/// character cut at the end allowed) with no control character but tab,
/// line feed, carriage return and form feed.
fn looks_like_text(probe: &[u8]) -> bool {
    let valid = match std::str::from_utf8(probe) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&probe[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    !valid.is_empty()
        && valid
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// The first bytes of an unrecognised object, said for a person:
/// `starts with "# sy" (23 20 73 79 …): text, not a sylcol format`, or
/// `starts with 5a 31 00 00 …, no magic sylcol knows, and the CollisionSet
/// walk failed at byte ...`.
fn unrecognised(head: &[u8], text: bool, collisionset: &DecodeError) -> String {
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let hex = format!("{} …", hex.join(" "));
    let shown = if head.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("\"{}\" ({hex})", String::from_utf8_lossy(head))
    } else {
        hex
    };
    if text {
        format!("starts with {shown}: text, not a sylcol format")
    } else {
        format!(
            "starts with {shown}, no magic sylcol knows (MCOL, REGN, IDXD, IXUD), and the CollisionSet walk failed {collisionset}"
        )
    }
}

/// Decodes `data` as whichever format it is (see the module table).
pub fn decode_any(data: &[u8]) -> Result<Object, AnyError> {
    if data.is_empty() {
        return Err(AnyError::Empty);
    }
    let invalid = |kind| move |error| AnyError::Invalid { kind, error };
    match Kind::from_magic(data) {
        Some(kind @ Kind::Mcol) => {
            return mcol::decode(data)
                .map(|m| Object::Mcol(Box::new(m)))
                .map_err(invalid(kind));
        }
        Some(kind @ Kind::Regn) => {
            return regn::decode(data)
                .map(|r| Object::Regn(Box::new(r)))
                .map_err(invalid(kind));
        }
        Some(kind @ (Kind::Idxd | Kind::Ixud)) => {
            return idxd::decode(data)
                .map(Object::StringTable)
                .map_err(invalid(kind));
        }
        Some(Kind::CollisionSet) | None => {}
    }
    match collisionset::decode(data) {
        Ok(set) => Ok(Object::CollisionSet(set)),
        Err(error) if collisionset::looks_like(data) => Err(AnyError::Invalid {
            kind: Kind::CollisionSet,
            error,
        }),
        Err(collisionset) => Err(AnyError::unrecognised(data, collisionset)),
    }
}

/// Encodes an object of any format (the inverse of [`decode_any`]: a
/// decoded object encodes to the bytes it came from).
pub fn encode_any(object: &Object) -> Result<Vec<u8>, crate::EncodeError> {
    match object {
        Object::Mcol(m) => mcol::encode(m),
        Object::CollisionSet(set) => collisionset::encode(set),
        Object::Regn(r) => regn::encode(r),
        Object::StringTable(t) => idxd::encode(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collisionset::{Endian, Record, encode};

    fn library() -> Vec<u8> {
        let tri = Record::new("rou_a", vec![[0.0; 3]; 3], vec![[0, 1, 2]]).unwrap();
        let set = CollisionSet {
            endian: Endian::Big,
            records: vec![tri.clone(), tri],
        };
        encode(&set).unwrap()
    }

    #[test]
    fn decodes_a_library_and_names_its_kind() {
        let object = decode_any(&library()).unwrap();
        assert_eq!(object.kind(), Kind::CollisionSet);
        assert_eq!(object.kind().name(), "CollisionSet");
    }

    #[test]
    fn every_decoded_magic_names_a_kind_and_detect_agrees_with_decode_any() {
        for magic in crate::DECODED_MAGICS {
            let kind = Kind::from_magic(&magic[..]).expect("a decoded magic names a kind");
            assert_eq!(kind.name().as_bytes(), &magic[..]);
        }
        assert_eq!(Kind::from_magic(b"POF0"), None);
        let library = library();
        assert_eq!(Kind::from_magic(&library), None);
        assert_eq!(
            Kind::detect(&library),
            Some(decode_any(&library).unwrap().kind())
        );
        assert_eq!(Kind::detect(b"text, not a sylcol format"), None);
    }

    #[test]
    fn an_empty_input_is_refused_everywhere() {
        let err = decode_any(&[]).unwrap_err();
        assert_eq!(err, AnyError::Empty);
        assert_eq!((err.offset(), err.kind()), (0, None));
        assert!(err.to_string().contains("empty: 0 bytes"), "{err}");
        assert_eq!(crate::sniff(&[], 0), Err(AnyError::Empty));
        assert_eq!(Kind::detect(&[]), None);
    }

    #[test]
    fn a_damaged_first_record_says_where_the_walk_failed() {
        let mut bytes = library();
        bytes[2] ^= 0x10; // record 0's size word now runs past the end
        let err = decode_any(&bytes).unwrap_err();
        assert!(matches!(err, AnyError::Unrecognised { .. }), "{err:?}");
        assert_eq!(err.offset(), 0);
        let text = err.to_string();
        assert!(text.contains("no magic sylcol knows"), "{text}");
        assert!(
            text.contains("CollisionSet walk failed at byte 0x0: record size"),
            "{text}"
        );
    }

    #[test]
    fn a_damaged_later_record_is_an_invalid_library() {
        let mut bytes = library();
        let second = bytes.len() / 2;
        bytes[second + 2] ^= 0x10;
        let err = decode_any(&bytes).unwrap_err();
        assert_eq!(err.kind(), Some(Kind::CollisionSet));
        assert_eq!(err.offset(), second as u64);
        assert!(err.to_string().starts_with("invalid CollisionSet at byte"));
    }

    #[test]
    fn regn_and_string_tables_by_magic() {
        let fixture = |n: &str| {
            std::fs::read(format!(
                "{}/../../tests/fixtures/{n}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        assert_eq!(
            decode_any(&fixture("twin.regn")).unwrap().kind(),
            Kind::Regn
        );
        assert_eq!(
            decode_any(&fixture("names.idxd")).unwrap().kind(),
            Kind::Idxd
        );
        assert_eq!(
            decode_any(&fixture("names.ixud")).unwrap().kind().name(),
            "IXUD"
        );
        let err = decode_any(&fixture("twin.regn")[..0x90]).unwrap_err();
        assert_eq!(err.kind(), Some(Kind::Regn));
        let err = decode_any(b"IXUD\xff\xff\xff\xff").unwrap_err();
        assert_eq!((err.kind(), err.offset()), (Some(Kind::Ixud), 4));
    }

    #[test]
    fn a_bad_mcol_is_an_invalid_mcol() {
        let err = decode_any(b"MCOL\0\0\0\x10").unwrap_err();
        assert_eq!(err.kind(), Some(Kind::Mcol));
        assert!(err.to_string().starts_with("invalid MCOL at byte"), "{err}");
    }
}
