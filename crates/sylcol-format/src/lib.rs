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
//! | `any` | whichever of the formats below an object is: [`Kind`], [`decode_any`] | — |
//! | [`naming`] | finding entry names: string runs, variants, patterns, harvest | `docs/names.md` |
//! | [`pof0`] | POF0 relocation tables | `docs/formats/pof0.md` |
//! | [`chunk`] | any POF0-relocated chunk (MCOL, REGN, unknown): probing | `docs/formats/pof0.md` |
//! | [`grid_prefix`] | the 0x50-byte prefix MCOL and REGN share (box, extent, cell size) | `docs/formats/mcol.md`, `docs/formats/regn.md` |
//! | [`mcol`] | MCOL map collision hulls | `docs/formats/mcol.md` |
//! | [`regn`] | REGN, the map's other object (header, sections, checked assumptions) | `docs/formats/regn.md` |
//! | [`collisionset`] | CollisionSet per-part collision library | `docs/formats/collisionset.md` |
//! | [`idxd`] | IDXD / IXUD string tables | `docs/formats/idxd.md` |
//! | [`ipfb`] | IPFB archives (`.pak` + `.pNN`), Z1 compression, names | `docs/formats/ipfb.md` |
//!
//! Errors carry the byte offset where an invariant broke ([`DecodeError`]).
//! Around them: [`text`] (names from files shown and used as file names
//! safely; it lives in `sylcol-atomic`, whose journals show names through
//! it, and is re-exported here), [`sniff`] (whether an object's first
//! bytes show a format sylcol decodes, so other objects are never held
//! whole), [`Kind::detect`] (which format they show) and
//! [`budget`] (how many bytes of an object are held, reserved so that
//! running out of memory is an error, not an abort).

#![forbid(unsafe_code)]

mod any;
pub mod budget;
mod bytes;
pub mod chunk;
pub mod collisionset;
mod error;
pub mod grid_prefix;
pub mod idxd;
pub mod ipfb;
pub mod mcol;
pub mod naming;
pub mod pof0;
pub mod probe;
pub mod regn;

pub use sylcol_atomic::text;

pub use any::{AnyError, Kind, Object, SizeLimit, decode_any, encode_any};
pub use error::{DecodeError, DecodeErrorKind, EncodeError};

/// The magics of the formats sylcol decodes: [`sniff`] reads this list,
/// [`Kind::from_magic`] names each and [`decode_any`] decodes each (tests
/// tie the three), and a new format with a magic joins all.
pub const DECODED_MAGICS: &[&[u8; 4]] = &[b"MCOL", b"REGN", b"IDXD", b"IXUD"];

/// How many leading bytes of an object [`sniff`] looks at: an object that
/// is not worth decoding is never held whole.
pub const SNIFF_LEN: usize = 4096;

/// What the first bytes of an object of `size` bytes say (`head` holds at
/// least `min(size, SNIFF_LEN)` of them): `Ok` when it may be a format
/// sylcol decodes (a [`DECODED_MAGICS`] magic, or a CollisionSet by
/// [`collisionset::first_record_error`]), so it is worth reading whole for
/// [`decode_any`]; else the very error `decode_any` would give on the
/// whole object, without reading it.
pub fn sniff(head: &[u8], size: u64) -> Result<(), AnyError> {
    if size == 0 {
        return Err(AnyError::Empty);
    }
    let magic = head.get(..4);
    if DECODED_MAGICS.iter().any(|m| magic == Some(&m[..])) {
        return Ok(());
    }
    match collisionset::first_record_error(head, size) {
        None => Ok(()),
        Some(collisionset) => Err(AnyError::unrecognised(head, collisionset)),
    }
}
