//! POF0 relocation tables (spec: `docs/formats/pof0.md`).
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `POF0` |
//! | 4 | 4 | u32 byte length of the encoded table (padding included, framing excluded) |
//! | 8 | len | entries, then zero padding to a multiple of 4 |
//!
//! Each entry is the distance from the previous slot (the first: from the
//! base) divided by 4. The top two bits of its first byte give its width:
//!
//! | top bits | bytes | value |
//! |---|---|---|
//! | `01` | 1 | low 6 bits |
//! | `10` | 2 | low 14 bits, most significant byte first |
//! | `11` | 4 | low 30 bits, most significant byte first |
//! | `00` | - | padding: end of table |
//!
//! Slots here are *base-relative* offsets unless a function says otherwise;
//! the chunk offset of a slot is `base + slot`.

use crate::bytes::{be_u32, slice};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

/// The framing magic.
pub const MAGIC: &[u8; 4] = b"POF0";

/// Largest distance (in words) an entry can carry: 30 bits.
pub const MAX_DISTANCE_WORDS: u32 = (1 << 30) - 1;

/// Decodes the entries of a table (framing removed) into base-relative
/// slot offsets, ascending. Stops at the first zero byte (padding) or the
/// end of `table`. Offsets in errors are relative to the table start.
pub fn decode_entries(table: &[u8]) -> Result<Vec<u32>, DecodeError> {
    let mut slots = Vec::new();
    let mut pos = 0usize;
    let mut at: u64 = 0;
    while pos < table.len() {
        let first = table[pos];
        let (width, value) = match first >> 6 {
            0 => break,
            1 => (1, u32::from(first & 0x3F)),
            2 => {
                let b = slice(table, pos as u64, 2, "a 2-byte POF0 entry")?;
                (2, (u32::from(b[0] & 0x3F) << 8) | u32::from(b[1]))
            }
            _ => (
                4,
                be_u32(table, pos as u64, "a 4-byte POF0 entry")? & MAX_DISTANCE_WORDS,
            ),
        };
        if value == 0 {
            return Err(DecodeError::new(pos, DecodeErrorKind::Pof0ZeroDistance));
        }
        at += u64::from(value) * 4;
        let slot = u32::try_from(at)
            .map_err(|_| DecodeError::new(pos, DecodeErrorKind::Pof0SlotPast32Bits))?;
        slots.push(slot);
        pos += width;
    }
    Ok(slots)
}

/// Encodes base-relative slot offsets as table entries, zero-padded to a
/// multiple of 4. Slots must be multiples of 4 apart (and from the base),
/// ascending without duplicates, each distance at most 30 bits of words.
/// Slots are u64 so a caller's out-of-range distance is refused, not wrapped.
pub fn encode_entries(slots: &[u64]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(slots.len() + 4);
    let mut prev: Option<u64> = None;
    for &slot in slots {
        let from = prev.unwrap_or(0);
        if prev.is_some() && slot <= from {
            return Err(EncodeError::Pof0NotAscending {
                slot,
                previous: from,
            });
        }
        if slot == 0 && prev.is_none() {
            return Err(EncodeError::Pof0SlotAtBase);
        }
        let distance = slot - from;
        if !distance.is_multiple_of(4) {
            return Err(EncodeError::Pof0Misaligned { slot, from });
        }
        let words = distance / 4;
        match words {
            0..=0x3F => out.push(0x40 | words as u8),
            0x40..=0x3FFF => out.extend_from_slice(&(0x8000 | words as u16).to_be_bytes()),
            0x4000..=0x3FFF_FFFF => {
                out.extend_from_slice(&(0xC000_0000 | words as u32).to_be_bytes())
            }
            _ => {
                return Err(EncodeError::TooLarge {
                    what: "POF0 distance in words",
                    value: words,
                    limit: u64::from(MAX_DISTANCE_WORDS),
                });
            }
        }
        prev = Some(slot);
    }
    out.resize(out.len().next_multiple_of(4), 0);
    Ok(out)
}

/// A framed table found at `offset` in `data`: the raw table bytes
/// (entries and padding) and the offset just past them.
pub fn read_framed(data: &[u8], offset: u64) -> Result<(&[u8], u64), DecodeError> {
    let magic = slice(data, offset, 4, "the POF0 magic")?;
    if magic != MAGIC {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::BadMagic {
                expected: "POF0".into(),
                found: crate::bytes::show_magic(magic),
            },
        ));
    }
    let len = u64::from(be_u32(data, offset + 4, "the POF0 table length")?);
    let table = slice(data, offset + 8, len, "the POF0 table")?;
    Ok((table, offset + 8 + len))
}

/// Frames an encoded table: magic, length, entries.
pub fn frame(table: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(table.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(table.len() as u32).to_be_bytes());
    out.extend_from_slice(table);
    out
}

/// The framed table a writer puts after a chunk's data: `slots` (chunk
/// offsets, ascending) made relative to `base`, encoded, and framed. The
/// table read from the file (`original`, entries and padding) is kept
/// when it decodes to the same slots, so decode -> encode reproduces its
/// bytes even where another encoding of them is possible. Refuses a slot
/// before `base` and whatever [`encode_entries`] refuses.
pub fn table_for(
    slots: impl IntoIterator<Item = u64>,
    base: u32,
    original: &[u8],
) -> Result<Vec<u8>, EncodeError> {
    let relative = slots
        .into_iter()
        .map(|slot| {
            slot.checked_sub(u64::from(base))
                .ok_or(EncodeError::Pof0SlotBeforeBase { slot, base })
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let same = decode_entries(original).is_ok_and(|old| {
        old.iter()
            .map(|&s| u64::from(s))
            .eq(relative.iter().copied())
    });
    Ok(if same {
        frame(original)
    } else {
        frame(&encode_entries(&relative)?)
    })
}

/// One relocation: the chunk offset of a pointer word, the value stored
/// there, and the chunk offset it addresses (value + pointer base).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    /// Chunk offset of the word.
    pub slot: u32,
    /// The stored value.
    pub value: u32,
    /// `value + pointer_base`, as a chunk offset (saturating).
    pub target: u64,
}

/// Reads the pointer words at `slots` (chunk offsets) of `image`.
pub fn collect(
    image: &[u8],
    slots: &[u32],
    pointer_base: u32,
) -> Result<Vec<Relocation>, DecodeError> {
    slots
        .iter()
        .map(|&slot| {
            let value = be_u32(image, u64::from(slot), "a relocated word")?;
            Ok(Relocation {
                slot,
                value,
                target: u64::from(value) + u64::from(pointer_base),
            })
        })
        .collect()
}

/// Applies relocations as a loader does: adds `load_base` to every word at
/// `slots` (chunk offsets), wrapping at 32 bits like the hardware.
pub fn apply(image: &mut [u8], slots: &[u32], load_base: u32) -> Result<(), DecodeError> {
    for &slot in slots {
        let value = be_u32(image, u64::from(slot), "a relocated word")?;
        let at = slot as usize;
        image[at..at + 4].copy_from_slice(&value.wrapping_add(load_base).to_be_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_md_worked_example() {
        // MCOL's header slots 0x54, 0x58, 0x5C, 0x74 with base 0x10.
        let slots = [0x44u64, 0x48, 0x4C, 0x64];
        assert_eq!(encode_entries(&slots).unwrap(), [0x51, 0x41, 0x41, 0x46]);
        let more = [0x44u32, 0x48, 0x4C, 0x64, 0x1064, 0x41064];
        let enc = encode_entries(&more.map(u64::from)).unwrap();
        assert_eq!(
            enc,
            [
                0x51, 0x41, 0x41, 0x46, 0x84, 0x00, 0xC0, 0x01, 0x00, 0x00, 0, 0
            ]
        );
        assert_eq!(decode_entries(&enc).unwrap(), more);
    }

    #[test]
    fn widths_and_padding() {
        // Boundaries of each width.
        let slots = [
            4 * 0x3F,
            4 * 0x3F + 4 * 0x40,
            4 * 0x3F + 4 * 0x40 + 4 * 0x4000u32,
        ];
        let enc = encode_entries(&slots.map(u64::from)).unwrap();
        assert_eq!(&enc[..1], [0x7F]);
        assert_eq!(&enc[1..3], [0x80, 0x40]);
        assert_eq!(&enc[3..7], [0xC0, 0x00, 0x40, 0x00]);
        assert_eq!(enc.len(), 8);
        assert_eq!(decode_entries(&enc).unwrap(), slots);
        assert_eq!(decode_entries(&[]).unwrap(), Vec::<u32>::new());
        assert_eq!(encode_entries(&[]).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn writer_refusals() {
        assert!(encode_entries(&[8, 8]).is_err());
        assert!(encode_entries(&[8, 4]).is_err());
        assert!(encode_entries(&[6]).is_err());
        assert!(encode_entries(&[0]).is_err());
        assert!(matches!(
            encode_entries(&[4, 4 + 4 * (1u64 << 30)]),
            Err(EncodeError::TooLarge { .. })
        ));
    }

    #[test]
    fn reader_refusals() {
        // A 2-byte entry cut short.
        let e = decode_entries(&[0x41, 0x80]).unwrap_err();
        assert_eq!(e.offset, 1);
        // A zero distance.
        assert!(decode_entries(&[0x40]).is_err());
        // Framing.
        let framed = frame(&[0x51, 0x41, 0x41, 0x46]);
        let (t, end) = read_framed(&framed, 0).unwrap();
        assert_eq!((t.len(), end), (4, 12));
        assert!(read_framed(b"POF1\0\0\0\0", 0).is_err());
        assert!(read_framed(b"POF0\0\0\0\x09abc", 0).is_err());
    }

    #[test]
    fn table_for_keeps_the_original_when_it_says_the_same() {
        // Slots 0x54, 0x58 under base 0x10, first entry widened to 2 bytes:
        // not what the encoder writes, but it decodes to the same slots.
        let original = [0x80, 0x11, 0x41, 0x00];
        assert_eq!(decode_entries(&original).unwrap(), [0x44, 0x48]);
        let kept = table_for([0x54, 0x58], 0x10, &original).unwrap();
        assert_eq!(kept, frame(&original));
        // Other slots (or base): encoded afresh.
        let moved = table_for([0x54, 0x5C], 0x10, &original).unwrap();
        assert_eq!(moved, frame(&[0x51, 0x42, 0, 0]));
        let base0 = table_for([0x54, 0x58], 0, &original).unwrap();
        assert_eq!(base0, frame(&[0x55, 0x41, 0, 0]));
        // A table that does not decode is no reason to fail.
        assert_eq!(
            table_for([0x54], 0x10, &[0x40]).unwrap(),
            frame(&[0x51, 0, 0, 0])
        );
        assert_eq!(
            table_for([0x8], 0x10, &[]),
            Err(EncodeError::Pof0SlotBeforeBase {
                slot: 8,
                base: 0x10
            })
        );
        assert_eq!(
            table_for([0x14, 0x14], 0x10, &[]),
            Err(EncodeError::Pof0NotAscending {
                slot: 4,
                previous: 4
            })
        );
    }

    #[test]
    fn collect_and_apply() {
        let mut image = vec![0u8; 16];
        image[4..8].copy_from_slice(&0x70u32.to_be_bytes());
        let r = collect(&image, &[4], 0x10).unwrap();
        assert_eq!(
            r[0],
            Relocation {
                slot: 4,
                value: 0x70,
                target: 0x80
            }
        );
        apply(&mut image, &[4], 0x8000_0010).unwrap();
        assert_eq!(be_u32(&image, 4, "w").unwrap(), 0x8000_0080);
        assert!(collect(&image, &[14], 0).is_err());
    }

    proptest::proptest! {
        #[test]
        fn round_trip(mut words in proptest::collection::vec(1u32..0x0100_0000, 0..64)) {
            // Build ascending slots from positive word distances.
            let mut at = 0u32;
            for w in &mut words { at = at.saturating_add(*w * 4); *w = at; }
            words.dedup();
            if words.iter().all(|&s| s < u32::MAX - 4) {
                let wide: Vec<u64> = words.iter().map(|&s| u64::from(s)).collect();
                let enc = encode_entries(&wide).unwrap();
                proptest::prop_assert_eq!(enc.len() % 4, 0);
                proptest::prop_assert_eq!(decode_entries(&enc).unwrap(), words);
            }
        }
    }
}
