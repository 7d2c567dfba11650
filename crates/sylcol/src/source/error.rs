//! Why a FILE argument gave no object.

use std::error::Error;
use std::path::PathBuf;

use sylcol_format::ipfb::ArchiveError;

use crate::report::error::{
    ErrorReport, NotFound, ObjectError, ReadError, Unsupported, UsageError, chain_message,
};

/// Why opening what a FILE argument names failed. The variants wrapping
/// a report error are that error (same text); [`SourceError::typed`]
/// gives it to classification.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A file (or standard input) could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The object is of no format sylcol decodes, or too large.
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// No such entry in the archive.
    #[error(transparent)]
    NotFound(#[from] NotFound),
    /// The argument cannot name an object this way (an archive from
    /// standard input, a whole archive where one object is wanted).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// The object is valid but of a kind the caller cannot take.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// The archive could not be opened (its index, its parts).
    #[error(transparent)]
    Open(Box<ArchiveError>),
    /// An entry of archive `pak` could not be read.
    #[error("{pak}: cannot read")]
    Archive {
        /// The archive path as given.
        pak: String,
        /// What failed.
        #[source]
        error: Box<ArchiveError>,
    },
    /// A name list could not be read.
    #[error("{}: cannot read the name list", path.display())]
    Names {
        /// The list.
        path: PathBuf,
        /// What failed.
        #[source]
        error: std::io::Error,
    },
    /// Names found could be kept neither beside the archive nor in the
    /// cache.
    #[error("{}: cannot keep the names", path.display())]
    KeepNames {
        /// The list it tried last.
        path: PathBuf,
        /// What failed.
        #[source]
        error: std::io::Error,
    },
}

impl From<ArchiveError> for SourceError {
    fn from(e: ArchiveError) -> SourceError {
        SourceError::Open(Box::new(e))
    }
}

impl SourceError {
    /// The error as every front reports it (the CLI's `sylcol: error:`
    /// line and its JSON): its causes on one line, classified.
    pub fn report(&self) -> ErrorReport {
        let this: &(dyn Error + 'static) = self;
        let chain = std::iter::successors(Some(this), |e: &&(dyn Error + 'static)| (*e).source());
        ErrorReport::from_chain(chain_message(chain.clone()), chain)
    }

    /// The report error a transparent variant is (the one that decides
    /// its `kind`, `path` and `offset`); `None` for the variants that add
    /// context to their source.
    pub fn typed(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            SourceError::Read(e) => Some(e),
            SourceError::Object(e) => Some(e),
            SourceError::NotFound(e) => Some(e),
            SourceError::Usage(e) => Some(e),
            SourceError::Unsupported(e) => Some(e),
            SourceError::Open(e) => Some(&**e),
            SourceError::Archive { .. }
            | SourceError::Names { .. }
            | SourceError::KeepNames { .. } => None,
        }
    }
}
