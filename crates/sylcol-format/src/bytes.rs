//! Bounds-checked big-endian reads over a byte slice.
//!
//! Every read names what it was reading so a short input produces a
//! [`DecodeErrorKind::Truncated`] error at the right offset, never a panic.

use crate::error::{DecodeError, DecodeErrorKind};

/// Returns `data[offset..offset + len]` or a truncation error naming `what`.
pub fn slice<'a>(
    data: &'a [u8],
    offset: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], DecodeError> {
    let available = (data.len() as u64).saturating_sub(offset);
    if offset > data.len() as u64 || len > available {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::Truncated {
                what,
                needed: len,
                available,
            },
        ));
    }
    Ok(&data[offset as usize..(offset + len) as usize])
}

/// Reads a big-endian u32 at `offset`.
pub fn be_u32(data: &[u8], offset: u64, what: &'static str) -> Result<u32, DecodeError> {
    let b = slice(data, offset, 4, what)?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Rounds `n` up to a multiple of `align` (a power of two).
pub const fn align_up(n: u64, align: u64) -> u64 {
    (n + align - 1) & !(align - 1)
}

/// The four bytes at `offset` shown as text when all are printable ASCII.
pub fn printable_magic(data: &[u8], offset: usize) -> Option<String> {
    let m = data.get(offset..offset + 4)?;
    m.iter()
        .all(|c| c.is_ascii_graphic())
        .then(|| String::from_utf8_lossy(m).into_owned())
}

/// Shows four magic bytes as text, escaping non-printable ones.
pub fn show_magic(m: &[u8]) -> String {
    m.iter()
        .map(|&c| {
            if c.is_ascii_graphic() {
                (c as char).to_string()
            } else {
                format!("\\x{c:02x}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_truncation() {
        let d = [0u8, 0, 0, 7, 1];
        assert_eq!(be_u32(&d, 0, "x").unwrap(), 7);
        let e = be_u32(&d, 2, "word").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(matches!(
            e.kind,
            DecodeErrorKind::Truncated {
                needed: 4,
                available: 3,
                ..
            }
        ));
        assert!(be_u32(&d, u64::MAX, "far").is_err());
        assert_eq!(align_up(0x41, 16), 0x50);
        assert_eq!(printable_magic(b"MCOL....", 0).as_deref(), Some("MCOL"));
        assert_eq!(printable_magic(b"\0COL", 0), None);
    }
}
