//! Error types shared by every format module.

use std::fmt;

/// A decode failure: the byte offset (from the start of the object being
/// decoded) where the broken invariant was found, and what broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DecodeError {
    /// Byte offset within the decoded object.
    pub offset: u64,
    /// What invariant failed there.
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: {}", self.offset, self.kind)
    }
}

impl DecodeError {
    /// Builds an error at `offset`.
    pub fn new(offset: impl TryInto<u64>, kind: DecodeErrorKind) -> Self {
        DecodeError {
            offset: offset.try_into().unwrap_or(u64::MAX),
            kind,
        }
    }

    /// The same error moved by `base` bytes (for an object nested in a larger one).
    pub fn shifted(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

/// The invariants a decoder checks. Each names the rule, not the symptom.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The input ends before a structure that must be there.
    #[error("truncated: {what} needs {needed} bytes, only {available} remain")]
    Truncated {
        /// The structure.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// A magic number is not the expected one.
    #[error("bad magic: expected {expected:?}, found {found:?}")]
    BadMagic {
        /// The magic the format has.
        expected: String,
        /// The bytes found in its place.
        found: String,
    },
    /// A size or count field disagrees with the data around it.
    #[error("{what}: {detail}")]
    BadCount {
        /// The field.
        what: &'static str,
        /// How it disagrees.
        detail: String,
    },
    /// A pointer (after relocation) lands outside where it may.
    #[error("pointer {what} = {value:#x} (target {target:#x}) {detail}")]
    BadPointer {
        /// The pointer field.
        what: String,
        /// Its stored value.
        value: u64,
        /// Where it points after relocation.
        target: u64,
        /// Why that is not allowed.
        detail: String,
    },
    /// A POF0 table is malformed or names a slot that cannot hold a pointer.
    #[error("POF0: {0}")]
    Pof0(String),
    /// An index refers past the end of the array it indexes.
    #[error("{what} index {index} out of range (must be < {limit})")]
    IndexOutOfRange {
        /// The index field.
        what: &'static str,
        /// Its value.
        index: u64,
        /// The length of the array it indexes.
        limit: u64,
    },
    /// Two structures claim the same bytes.
    #[error("{what} overlaps {other}")]
    Overlap {
        /// The one structure.
        what: String,
        /// The other, whose bytes it claims too.
        other: String,
    },
    /// Any other broken rule, stated in words.
    #[error("{0}")]
    Invalid(String),
}

/// An encode failure: the model cannot be written in this format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A count does not fit its on-disk field.
    #[error("{what}: {value} does not fit (limit {limit})")]
    TooLarge {
        /// The count.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The most its field holds.
        limit: u64,
    },
    /// The model is inconsistent with itself.
    #[error("{0}")]
    Invalid(String),
}
