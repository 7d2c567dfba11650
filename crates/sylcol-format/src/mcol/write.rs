//! MCOL encoder (in progress).

use super::{Layout, Mcol};
use crate::error::EncodeError;

/// Encodes an MCOL chunk.
pub fn encode(mcol: &Mcol) -> Result<Vec<u8>, EncodeError> {
    Err(EncodeError::Invalid(format!(
        "MCOL encoder not ready ({} tris)",
        mcol.triangles.len()
    )))
}

/// The seeds' layout for this model's contents.
pub fn canonical_layout(mcol: &Mcol) -> Layout {
    let _ = mcol;
    Layout::default()
}
