//! # sylcol-format
//!
//! The byte-faithful layer of sylcol: readers and writers for the binary
//! formats Project Sylpheed (Xbox 360) ships in `hidden/MiscBin.pak`.
//! Nothing here knows geometry: vertices are `[f32; 3]`, triangles are index
//! triples, and every byte a format leaves open is kept so that decode ->
//! encode reproduces the input exactly.
//!
//! | module | format | spec |
//! |---|---|---|
//! | [`pof0`] | POF0 relocation tables | `docs/formats/pof0.md` |
//! | [`chunk`] | any POF0-relocated chunk (MCOL, REGN, unknown): probing | `docs/formats/pof0.md` |
//! | [`mcol`] | MCOL map collision hulls | `docs/formats/mcol.md` |
//! | [`collisionset`] | CollisionSet per-part collision library | `docs/formats/collisionset.md` |
//! | [`ipfb`] | IPFB archives (`.pak` + `.pNN`), Z1 compression, names | `docs/formats/ipfb.md` |
//!
//! Errors carry the byte offset where an invariant broke ([`DecodeError`]).
//! Around them: [`atomic`] (temporary files for atomic writes, removable on
//! a signal), [`text`] (names from files shown and used as file names
//! safely), and [`worth_decoding`] (whether an object's first bytes show a
//! format sylcol decodes, so other objects are never held whole).

pub mod atomic;
pub mod bytes;
pub mod chunk;
pub mod collisionset;
pub mod error;
pub mod ipfb;
pub mod mcol;
pub mod pof0;
pub mod probe;
pub mod text;

pub use error::{DecodeError, DecodeErrorKind, EncodeError};

/// What an object's bytes look like, decided from its first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// An MCOL chunk.
    Mcol,
    /// A CollisionSet library (no magic: its record walk consumes the input).
    CollisionSet,
    /// Something else; its first four bytes shown as text when printable.
    Unknown(Option<String>),
}

/// The formats sylcol decodes by magic, with the format each magic names:
/// [`detect`] and [`worth_decoding`] both read this one list (a new format
/// with a magic joins here).
const MAGIC_FORMATS: &[(&[u8; 4], Format)] = &[(b"MCOL", Format::Mcol)];

/// How many leading bytes of an object [`worth_decoding`] looks at: an
/// archive entry that is not worth decoding is never held whole.
pub const SNIFF_LEN: usize = 4096;

/// Guesses the format of `data` from its magic, or for the magic-less
/// CollisionSet from a record walk that consumes it exactly (no geometry
/// is decoded).
pub fn detect(data: &[u8]) -> Format {
    let magic = data.get(..4);
    if let Some((_, format)) = MAGIC_FORMATS.iter().find(|(m, _)| magic == Some(&m[..])) {
        return format.clone();
    }
    if collisionset::looks_like(data) {
        return Format::CollisionSet;
    }
    Format::Unknown(bytes::printable_magic(data, 0))
}

/// Whether an object of `size` bytes whose first bytes are `head` (at
/// least `min(size, SNIFF_LEN)` of them) may be a format sylcol decodes:
/// one of [`MAGIC_FORMATS`], or a CollisionSet by [`collisionset::may_start`].
/// When false, [`detect`] on the whole object would say
/// `Format::Unknown` with the head's magic, so the object need not be read.
pub fn worth_decoding(head: &[u8], size: u64) -> bool {
    let magic = head.get(..4);
    MAGIC_FORMATS.iter().any(|(m, _)| magic == Some(&m[..])) || collisionset::may_start(head, size)
}
