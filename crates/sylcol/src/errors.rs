//! The typed errors an input or an output fails with (a file not read,
//! an object not decoded, a name not found, a wrong command line): below
//! both the front door ([`crate::source`]), which raises them, and the
//! reports ([`crate::report::error`], which re-exports them), which
//! classify them for `--json`.

use sylcol_format::{AnyError, DecodeError};

/// An input that could not be read (a typed error, so that reports can
/// name the path without parsing a message).
#[derive(Debug, thiserror::Error)]
#[error("{path}: cannot read: {error}")]
pub struct ReadError {
    /// The path as given.
    pub path: String,
    /// The I/O failure (part of the message, so not a separate cause).
    pub error: std::io::Error,
}

/// An output that could not be made (a folder not created, a file not
/// written): typed, so that reports name the path.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {what}: {error}")]
pub struct OutputError {
    /// The path as the user would name it.
    pub path: String,
    /// What failed ("cannot create the folder").
    pub what: String,
    /// The I/O failure.
    pub error: std::io::Error,
}

/// An object that did not decode: its name and what [`sylcol_format::decode_any`] said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {error}")]
pub struct ObjectError {
    /// The input as named.
    pub path: String,
    /// What detection and decoding tried.
    pub error: AnyError,
}

/// An input that breaks a structure a command needs (a POF0 chunk for
/// `probe`, an MCOL for `--grid-from`): path, what, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {what} {error}")]
pub struct InvalidInput {
    /// The input as named.
    pub path: String,
    /// What it failed to be (`not a POF0 chunk:`).
    pub what: &'static str,
    /// Where and how.
    pub error: DecodeError,
}

/// An input that is valid, but of a kind the command cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {detail}")]
pub struct Unsupported {
    /// The input as named.
    pub path: String,
    /// Why the command does not apply.
    pub detail: String,
}

/// Why `info` could not summarise an object: it did not decode, or
/// `info` does not apply to it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoError {
    /// The object did not decode (or its bytes broke a rule when read
    /// again for the summary).
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// `info` does not apply: an MCOL built rather than decoded (it has no
    /// layout to report), or a format `info` has no summary for yet.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
}

impl InfoError {
    /// The error it wraps (reports classify that one).
    pub fn inner(&self) -> &(dyn std::error::Error + 'static) {
        match self {
            InfoError::Object(e) => e,
            InfoError::Unsupported(e) => e,
        }
    }
}

/// A name the input does not hold (an archive entry, a library mesh).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {detail}")]
pub struct NotFound {
    /// The input as named.
    pub path: String,
    /// What was missing.
    pub detail: String,
}

/// A wrong command line (kept typed so `--json` can say `usage`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
