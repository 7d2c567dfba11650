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
//! | [`any`] | whichever of the formats below an object is: [`decode_any`] | — |
//! | [`naming`] | finding entry names: string runs, variants, patterns, harvest | `docs/names.md` |
//! | [`pof0`] | POF0 relocation tables | `docs/formats/pof0.md` |
//! | [`chunk`] | any POF0-relocated chunk (MCOL, REGN, unknown): probing | `docs/formats/pof0.md` |
//! | [`mcol`] | MCOL map collision hulls | `docs/formats/mcol.md` |
//! | [`regn`] | REGN, the map's other object (header, sections, checked assumptions) | `docs/formats/regn.md` |
//! | [`collisionset`] | CollisionSet per-part collision library | `docs/formats/collisionset.md` |
//! | [`idxd`] | IDXD / IXUD string tables | `docs/formats/idxd.md` |
//! | [`ipfb`] | IPFB archives (`.pak` + `.pNN`), Z1 compression, names | `docs/formats/ipfb.md` |
//!
//! Errors carry the byte offset where an invariant broke ([`DecodeError`]).

pub mod any;
pub mod bytes;
pub mod chunk;
pub mod collisionset;
pub mod error;
pub mod idxd;
pub mod ipfb;
pub mod mcol;
pub mod naming;
pub mod pof0;
pub mod probe;
pub mod regn;

pub use any::{AnyError, Kind, Object, decode_any, encode_any};
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

/// Guesses the format of `data` from its magic, or for the magic-less
/// CollisionSet from a record walk that consumes it exactly (no geometry
/// is decoded).
pub fn detect(data: &[u8]) -> Format {
    match data.get(..4) {
        Some(b"MCOL") => Format::Mcol,
        _ if collisionset::looks_like(data) => Format::CollisionSet,
        _ => Format::Unknown(bytes::printable_magic(data, 0)),
    }
}
