//! MCOL decoder (in progress).

use super::Mcol;
use crate::error::{DecodeError, DecodeErrorKind};

/// Decodes one MCOL chunk.
pub fn decode(data: &[u8]) -> Result<Mcol, DecodeError> {
    Err(DecodeError::new(
        0u64,
        DecodeErrorKind::Invalid(format!("MCOL decoder not ready ({} bytes)", data.len())),
    ))
}
