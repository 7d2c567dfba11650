//! Resolving a FILE argument to bytes.
//!
//! A FILE is a path on disk; `ARCHIVE.pak+INNER` addressing is added by the
//! archive support.

use anyhow::Context;

/// An input object: where it came from and its bytes.
pub struct Input {
    /// How to name it in messages and reports.
    pub name: String,
    /// The whole object.
    pub bytes: Vec<u8>,
}

/// Reads the object a FILE argument names.
pub fn read_input(path: &str) -> anyhow::Result<Input> {
    let bytes = std::fs::read(path).with_context(|| format!("{path}: cannot read"))?;
    Ok(Input {
        name: path.to_string(),
        bytes,
    })
}
