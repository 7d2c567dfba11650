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

pub mod bytes;
pub mod chunk;
pub mod collisionset;
pub mod error;
pub mod ipfb;
pub mod mcol;
pub mod pof0;

pub use error::{DecodeError, DecodeErrorKind, EncodeError};
