//! # sylcol-fuzz
//!
//! What each fuzz target checks, in one place: the libFuzzer binaries in
//! `fuzz/` call [`Target::check`] on every input they generate, and
//! `cargo test` calls it on every file of the kept corpus
//! (`fuzz/corpus/<target>/`) and of the crashers found so far
//! (`fuzz/regressions/<target>/`), so a fixed bug stays fixed without a
//! fuzzer. How to run the fuzzers: `docs/reliability.md`.
//!
//! A check decodes the input; a decoder may refuse it with a typed error
//! (that is an [`Outcome::Refused`]), but must never panic. When it
//! decodes, the check encodes the value again, decodes that, and asserts
//! the second value equals the first and, where the format promises it,
//! that the bytes equal the input. A broken promise panics: that is what
//! the fuzzer reports.

#![forbid(unsafe_code)]

mod format;
mod mesh;
mod tables;

use std::fmt::Debug;
use std::path::PathBuf;

/// One fuzz target: a decoder and the promises checked on what it decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// MCOL map hull: decode, encode (byte-identical), decode again.
    Mcol,
    /// POF0 table, bare and framed: decode, encode, decode again.
    Pof0,
    /// CollisionSet library (both byte orders): decode, encode (byte-identical), decode again.
    CollisionSet,
    /// IPFB `.pak` index: parse, encode, parse again.
    IpfbIndex,
    /// Z1 entry: inflate with every check, compress, inflate again.
    Z1,
    /// Any POF0-relocated chunk: framing, base resolution, `sylcol probe`.
    Chunk,
    /// Wavefront OBJ import.
    Obj,
    /// PLY import (ASCII and binary).
    Ply,
    /// glTF 2.0 import (JSON `.gltf` and binary `.glb`).
    Gltf,
    /// REGN: decode, sections, assumptions, `info` / `verify`, encode
    /// (byte-identical), decode again.
    Regn,
    /// IDXD / IXUD string table: decode, offsets, `info` / `verify`, encode
    /// (byte-identical), decode again, text form back to the same bytes.
    Idxd,
}

/// What a check made of one input.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Decoded, and every round-trip promise held.
    Decoded,
    /// Refused with a typed error; the name of its kind (`Z1SizeReached`,
    /// `Mesh::NonFinite`, ...).
    Refused(String),
}

impl Outcome {
    /// The outcome for a refusal with error kind `kind`, named after its
    /// variant (and the inner variant for a wrapped error).
    pub fn refused(kind: &impl Debug) -> Outcome {
        Outcome::Refused(variant_path(&format!("{kind:?}")))
    }
}

/// `Mesh(Empty { .. })` -> `Mesh::Empty`; `IndexHashOrder { .. }` -> `IndexHashOrder`.
fn variant_path(debug: &str) -> String {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let outer = ident(debug);
    match debug[outer.len()..].strip_prefix('(') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_uppercase()) => {
            format!("{outer}::{}", ident(rest))
        }
        _ => outer,
    }
}

impl Target {
    /// Every target, in the order the docs list them.
    pub const ALL: [Target; 11] = [
        Target::Mcol,
        Target::Pof0,
        Target::CollisionSet,
        Target::IpfbIndex,
        Target::Z1,
        Target::Chunk,
        Target::Obj,
        Target::Ply,
        Target::Gltf,
        Target::Regn,
        Target::Idxd,
    ];

    /// The target's name: its fuzz binary and its corpus folder.
    pub fn name(self) -> &'static str {
        match self {
            Target::Mcol => "mcol",
            Target::Pof0 => "pof0",
            Target::CollisionSet => "collisionset",
            Target::IpfbIndex => "ipfb_index",
            Target::Z1 => "z1",
            Target::Chunk => "chunk",
            Target::Regn => "regn",
            Target::Idxd => "idxd",
            Target::Obj => "import_obj",
            Target::Ply => "import_ply",
            Target::Gltf => "import_gltf",
        }
    }

    /// Runs the target's decoder and round-trip checks on `data`.
    ///
    /// # Panics
    /// When a decoder panics, or a decoded value breaks a round-trip
    /// promise (the re-decoded value differs, or the bytes do where the
    /// format promises identity).
    pub fn check(self, data: &[u8]) -> Outcome {
        match self {
            Target::Mcol => format::mcol(data),
            Target::Pof0 => format::pof0(data),
            Target::CollisionSet => format::collisionset(data),
            Target::IpfbIndex => format::ipfb_index(data),
            Target::Z1 => format::z1(data),
            Target::Chunk => format::chunk(data),
            Target::Regn => tables::regn(data),
            Target::Idxd => tables::idxd(data),
            Target::Obj => mesh::import(data, sylcol::import::MeshFormat::Obj),
            Target::Ply => mesh::import(data, sylcol::import::MeshFormat::Ply),
            Target::Gltf => mesh::import(data, sylcol::import::MeshFormat::Gltf),
        }
    }

    /// The kept, minimised corpus of this target (`fuzz/corpus/<name>`).
    pub fn corpus_dir(self) -> PathBuf {
        fuzz_dir().join("corpus").join(self.name())
    }

    /// The crashers found so far, kept after their fix (`fuzz/regressions/<name>`).
    pub fn regressions_dir(self) -> PathBuf {
        fuzz_dir().join("regressions").join(self.name())
    }
}

/// One `#[test]` per target, named after it, each calling `$run(Target)`:
/// the corpus replay and the mutation test share this list.
#[macro_export]
macro_rules! test_per_target {
    ($run:path) => {
        $crate::test_per_target!($run;
            mcol => Mcol, pof0 => Pof0, collisionset => CollisionSet,
            ipfb_index => IpfbIndex, z1 => Z1, chunk => Chunk,
            import_obj => Obj, import_ply => Ply, import_gltf => Gltf,
            regn => Regn, idxd => Idxd);
    };
    ($run:path; $($name:ident => $variant:ident),*) => {$(
        #[test]
        fn $name() {
            $run($crate::Target::$variant);
        }
    )*};
}

/// The files of `dir`, sorted by name (none when it does not exist).
pub fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The repository's `fuzz/` folder.
pub fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Whether two decoded values are the same: `==`, or, for values holding
/// NaN floats (never equal to themselves), the same text for every field.
fn same<T: PartialEq + Debug>(a: &T, b: &T) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

/// Asserts that re-decoding gave back the first value.
fn assert_same<T: PartialEq + Debug>(first: &T, again: &T, what: &str) {
    assert!(
        same(first, again),
        "{what}: decode -> encode -> decode changed the value\nfirst: {first:?}\nagain: {again:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_named_by_variant() {
        use sylcol_format::DecodeErrorKind as K;
        let order = K::IndexHashOrder {
            previous: 9,
            hash: 5,
        };
        assert_eq!(variant_path(&format!("{order:?}")), "IndexHashOrder");
        let stalled = format!("{:?}", K::DeflateProgress);
        assert_eq!(variant_path(&stalled), "DeflateProgress");
        assert_eq!(variant_path("Mesh(Empty { vertices: 0 })"), "Mesh::Empty");
        assert_eq!(variant_path("UsageError(\"zero\")"), "UsageError");
        assert_eq!(variant_path("Io(Custom { .. })"), "Io::Custom");
    }
}
