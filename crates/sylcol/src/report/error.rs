//! Errors as data: `{message, path, offset, kind}`, the shape of every
//! error sylcol reports in JSON (alone on standard error as
//! `{"error": {...}}`, or in a report's `errors` list).

use std::error::Error;

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::budget::OutOfMemory;
use sylcol_format::ipfb::{ArchiveError, WriteError};
use sylcol_format::{AnyError, DecodeError};

pub use crate::errors::{
    InfoError, InvalidInput, NotFound, ObjectError, OutputError, ReadError, Unsupported, UsageError,
};
use crate::source::SourceError;
use crate::source::spec::{BuildError, PickError};

/// What kind of failure an error is; scripts branch on this, not on the
/// message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The command line is wrong (a flag, a value, a combination).
    Usage,
    /// A file could not be read or written.
    Io,
    /// The object is of a known format but breaks one of its invariants
    /// (`offset` says where).
    Invalid,
    /// No format sylcol decodes matched (`offset` says where the last
    /// attempt failed).
    Unrecognised,
    /// The input is valid but the command does not apply to it.
    Unsupported,
    /// A named entry or mesh does not exist.
    NotFound,
    /// An archive's index or one of its entries is unreadable.
    Archive,
    /// The object declares more bytes than sylcol holds of it (more than
    /// its header allows, or than the budget of one object): refused
    /// before it was read (docs/reliability.md, "Memory bombs").
    TooLarge,
    /// The memory to hold an object could not be had; nothing was decoded.
    OutOfMemory,
    /// A query that is not valid or cannot be answered.
    Query,
    /// `build` refused a mesh that is not a closed, consistently oriented
    /// hull (exit 1; `--allow-open` writes it anyway).
    Hull,
    /// Anything else.
    Other,
}

/// One error, as JSON prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ErrorReport {
    /// The whole message, as the text output prints it.
    pub message: String,
    /// The input (file or `ARCHIVE.pak+ENTRY`) it concerns, when one does.
    pub path: Option<String>,
    /// The byte offset in that input where an invariant broke, when known.
    pub offset: Option<u64>,
    /// What kind of failure it is.
    pub kind: ErrorKind,
}

/// The document a command prints on standard error when it fails with
/// `--json`: `{"error": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ErrorDocument {
    /// The error.
    pub error: ErrorReport,
}

/// An error and its causes (outermost first) on one line, each said
/// once: a cause whose text the line already holds is left out (a library
/// error that prints its own source, as `#[error("...: {source}")]` does,
/// would otherwise repeat the OS error). The CLI and the browser page
/// word every error this way.
pub fn chain_message<'a>(chain: impl IntoIterator<Item = &'a (dyn Error + 'static)>) -> String {
    let mut line = String::new();
    for cause in chain {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

impl SourceError {
    /// The error as every front reports it (the CLI's `sylcol: error:`
    /// line and its JSON): its causes on one line, classified.
    pub fn report(&self) -> ErrorReport {
        let this: &(dyn Error + 'static) = self;
        let chain = std::iter::successors(Some(this), |e: &&(dyn Error + 'static)| (*e).source());
        ErrorReport::from_chain(chain_message(chain.clone()), chain)
    }
}

impl ErrorReport {
    /// Classifies an error from its message and its chain of causes
    /// (outermost first): the first typed error found decides `kind`,
    /// `path` and `offset`.
    pub fn from_chain<'a>(
        message: String,
        chain: impl IntoIterator<Item = &'a (dyn Error + 'static)>,
    ) -> Self {
        let mut report = ErrorReport {
            message,
            path: None,
            offset: None,
            kind: ErrorKind::Other,
        };
        for link in chain {
            if report.classify(link) {
                break;
            }
        }
        report
    }

    /// Classifies a plain error and its `source()` chain.
    pub fn from_error(error: &(dyn Error + 'static)) -> Self {
        let chain = std::iter::successors(Some(error), |e: &&(dyn Error + 'static)| (*e).source());
        ErrorReport::from_chain(error.to_string(), chain)
    }

    /// Fills the fields `link` determines; true once `kind` is decided.
    fn classify(&mut self, link: &(dyn Error + 'static)) -> bool {
        if let Some(e) = link.downcast_ref::<SourceError>() {
            // A transparent wrapper is the error it wraps; the others add
            // context to their source, which decides.
            // (`Archive` holds its error boxed: a `Box<ArchiveError>` in the
            // chain downcasts to no `ArchiveError`, so it is classified here.)
            return match e {
                SourceError::Archive { error, .. } => self.classify(&**error),
                _ => e.typed().is_some_and(|typed| self.classify(typed)),
            };
        }
        if let Some(e) = link.downcast_ref::<InfoError>() {
            // Transparent: its `source()` skips the error it wraps.
            return self.classify(e.inner());
        }
        let (kind, path, offset) = if let Some(e) = link.downcast_ref::<ObjectError>() {
            let kind = match e.error {
                AnyError::Invalid { .. } | AnyError::Empty => ErrorKind::Invalid,
                AnyError::Unrecognised { .. } => ErrorKind::Unrecognised,
                AnyError::TooLarge { .. } => ErrorKind::TooLarge,
            };
            (kind, Some(e.path.clone()), Some(e.error.offset()))
        } else if let Some(e) = link.downcast_ref::<BuildError>() {
            let kind = match e {
                BuildError::NoFileGrid { .. } => ErrorKind::Unsupported,
                _ => ErrorKind::Invalid,
            };
            (kind, Some(e.path().to_string()), None)
        } else if let Some(e) = link.downcast_ref::<PickError>() {
            let kind = match e {
                PickError::NoSuchPart { .. } => ErrorKind::NotFound,
                PickError::NoPartNamed { .. } => ErrorKind::Usage,
                _ => ErrorKind::Unsupported,
            };
            (kind, Some(e.path().to_string()), None)
        } else if let Some(e) = link.downcast_ref::<InvalidInput>() {
            (
                ErrorKind::Invalid,
                Some(e.path.clone()),
                Some(e.error.offset),
            )
        } else if let Some(e) = link.downcast_ref::<ReadError>() {
            (io_kind(&e.error), Some(e.path.clone()), None)
        } else if let Some(e) = link.downcast_ref::<OutputError>() {
            (ErrorKind::Io, Some(e.path.clone()), None)
        } else if let Some(e) = link.downcast_ref::<Unsupported>() {
            (ErrorKind::Unsupported, Some(e.path.clone()), None)
        } else if let Some(e) = link.downcast_ref::<NotFound>() {
            (ErrorKind::NotFound, Some(e.path.clone()), None)
        } else if link.downcast_ref::<UsageError>().is_some() {
            (ErrorKind::Usage, None, None)
        } else if let Some(e) = link.downcast_ref::<ArchiveError>() {
            archive_fields(e)
        } else if let Some(WriteError::Io { path, .. }) = link.downcast_ref::<WriteError>() {
            (ErrorKind::Io, Some(path.display().to_string()), None)
        } else if let Some(WriteError::Replace(e)) = link.downcast_ref::<WriteError>() {
            (ErrorKind::Io, Some(e.path.display().to_string()), None)
        } else if let Some(e) = link.downcast_ref::<DecodeError>() {
            (ErrorKind::Invalid, None, Some(e.offset))
        } else if let Some(e) = link.downcast_ref::<std::io::Error>() {
            (io_kind(e), None, None)
        } else if link.downcast_ref::<OutOfMemory>().is_some() {
            (ErrorKind::OutOfMemory, None, None)
        } else {
            return false;
        };
        self.kind = kind;
        self.path = self.path.take().or(path);
        self.offset = self.offset.or(offset);
        true
    }
}

/// `Io`, or `OutOfMemory` for a read that could not get its memory.
fn io_kind(e: &std::io::Error) -> ErrorKind {
    match e.kind() {
        std::io::ErrorKind::OutOfMemory => ErrorKind::OutOfMemory,
        _ => ErrorKind::Io,
    }
}

fn archive_fields(e: &ArchiveError) -> (ErrorKind, Option<String>, Option<u64>) {
    match e {
        ArchiveError::Io { path, .. } => (ErrorKind::Io, Some(path.display().to_string()), None),
        ArchiveError::Index { path, error } => (
            ErrorKind::Archive,
            Some(path.display().to_string()),
            Some(error.offset),
        ),
        ArchiveError::Entry { file, error, .. } => {
            (ErrorKind::Archive, Some(file.clone()), Some(error.offset))
        }
        ArchiveError::OutOfMemory { file, .. } => {
            (ErrorKind::OutOfMemory, Some(file.clone()), None)
        }
        ArchiveError::Write { .. } => (ErrorKind::Io, None, None),
        ArchiveError::Interrupted { path, .. } => {
            (ErrorKind::Archive, Some(path.display().to_string()), None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decode_failure_gives_path_offset_and_kind() {
        let error = sylcol_format::decode_any(b"MCOL\0\0\0\x10").unwrap_err();
        let e = ObjectError {
            path: "a.mcol".into(),
            error,
        };
        let r = ErrorReport::from_error(&e);
        assert_eq!(r.kind, ErrorKind::Invalid);
        assert_eq!(r.path.as_deref(), Some("a.mcol"));
        assert_eq!(r.offset, Some(e.error.offset()));
        assert!(r.message.starts_with("a.mcol: invalid MCOL at byte"));
    }

    #[test]
    fn info_of_a_built_mcol_is_unsupported_not_invalid() {
        let path = format!(
            "{}/../../tests/fixtures/box.mcol",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(path).unwrap();
        let mut mcol = sylcol_format::mcol::decode(&bytes).unwrap();
        assert!(crate::report::info::mcol_info("box.mcol", &bytes, &mcol).is_ok());
        mcol.layout = None;
        let e = crate::report::info::mcol_info("box.mcol", &bytes, &mcol).unwrap_err();
        assert!(matches!(e, InfoError::Unsupported(_)), "{e:?}");
        let r = ErrorReport::from_error(&e);
        assert_eq!(r.kind, ErrorKind::Unsupported);
        assert_eq!((r.path.as_deref(), r.offset), (Some("box.mcol"), None));
        assert_eq!(
            r.message,
            "box.mcol: info summarises a decoded MCOL; this one was built and has no layout"
        );
        // A decode failure inside keeps its kind and offset through InfoError.
        let e = crate::report::info::info_of("a.mcol", b"MCOL\0\0\0\x10").unwrap_err();
        let r = ErrorReport::from_error(&e);
        assert_eq!(
            (r.kind, r.path.as_deref()),
            (ErrorKind::Invalid, Some("a.mcol"))
        );
        assert!(r.offset.is_some() && r.message.starts_with("a.mcol: invalid MCOL at byte"));
    }

    #[test]
    fn too_large_and_out_of_memory_are_kinds_of_their_own() {
        let mut head = b"MCOL".to_vec();
        head.resize(0x80, 0);
        let error = sylcol_format::budget::admit(&head, 1 << 30).unwrap_err();
        let e = ObjectError {
            path: "a.mcol".into(),
            error,
        };
        let r = ErrorReport::from_error(&e);
        assert_eq!((r.kind, r.offset), (ErrorKind::TooLarge, Some(0x50)));
        let error: std::io::Error = OutOfMemory {
            bytes: 5,
            headroom: 0,
        }
        .into();
        let e = ReadError {
            path: "f.bin".into(),
            error,
        };
        let r = ErrorReport::from_error(&e);
        assert_eq!(r.kind, ErrorKind::OutOfMemory);
        assert_eq!(r.path.as_deref(), Some("f.bin"));
    }

    #[test]
    fn an_unknown_error_is_other() {
        let e = std::fmt::Error;
        assert_eq!(ErrorReport::from_error(&e).kind, ErrorKind::Other);
        let io = std::io::Error::other("x");
        assert_eq!(ErrorReport::from_error(&io).kind, ErrorKind::Io);
    }
}
