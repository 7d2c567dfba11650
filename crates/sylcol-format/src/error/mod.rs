//! Error types shared by every format module.

use std::fmt;

mod encode;
mod kind;

pub use encode::EncodeError;
pub use kind::{DecodeErrorKind, GridMismatch};

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
