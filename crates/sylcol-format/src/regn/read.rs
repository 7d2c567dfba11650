//! REGN decoder: reads the header and the framing, resolves the POF0 base,
//! and keeps every byte. It refuses only what makes the bytes unreadable;
//! the write-ups' assumptions are checked by [`super::assumptions`].

use crate::grid_prefix::GridPrefix;
use zerocopy::FromBytes;

use super::raw::{HEADER_SIZE, HeaderRaw};
use super::{Header, POINTER_BASE, POINTER_SLOTS, Regn};
use crate::bytes::{show_magic, slice};
use crate::chunk::{Chunk, NoBase};
use crate::error::{DecodeError, DecodeErrorKind};

/// Decodes one REGN chunk (the whole input, from its `REGN` magic).
///
/// The POF0 slot base is the first of 0x10, 0 under which every slot holds
/// an in-data pointer, preferring one that relocates all six section
/// pointers.
pub fn decode(data: &[u8]) -> Result<Regn, DecodeError> {
    let bytes = slice(data, 0, HEADER_SIZE as u64, "the 0x88-byte REGN header")?;
    let raw = HeaderRaw::read_from_bytes(bytes).expect("slice has the header's size");
    if &raw.prefix.magic != b"REGN" {
        return Err(DecodeError::new(
            0u64,
            DecodeErrorKind::BadMagic {
                expected: "REGN".into(),
                found: show_magic(&raw.prefix.magic),
            },
        ));
    }
    let chunk = Chunk::parse(data)?;
    let data_end = chunk.data_end();
    if data_end < HEADER_SIZE as u64 {
        return Err(DecodeError::new(
            4u64,
            DecodeErrorKind::RegnDataSizeInHeader {
                data_size: chunk.data_size,
                data_end,
            },
        ));
    }
    let base = choose_base(data, &chunk)?;
    let slots = chunk.slots(base);
    check_section_targets(&raw, &slots)?;
    Ok(Regn {
        header: header_model(&raw),
        pof0_base: base,
        slots,
        body: data[HEADER_SIZE..data_end as usize].to_vec(),
        pof0_table: chunk.table.to_vec(),
        trailer: data[chunk.table_end as usize..].to_vec(),
    })
}

/// The first base whose slots all point inside the data, preferring one
/// under which all six section pointers are relocated.
fn choose_base(data: &[u8], chunk: &Chunk) -> Result<u32, DecodeError> {
    let all_six = |base| {
        let slots = chunk.slots(base);
        if POINTER_SLOTS.iter().all(|s| slots.contains(s)) {
            Ok(())
        } else {
            Err(())
        }
    };
    match chunk.pick_base(data, all_six) {
        Ok((base, ())) | Err(NoBase::Refused { base, .. }) => Ok(base),
        // No base fits: the error names the first bad slot.
        Err(NoBase::Unfit(e)) => Err(e),
    }
}

/// A relocated section pointer must address the data after the header.
fn check_section_targets(raw: &HeaderRaw, slots: &[u32]) -> Result<(), DecodeError> {
    for (i, &at) in POINTER_SLOTS.iter().enumerate() {
        let value = raw.pointers[i].get();
        let target = u64::from(value) + u64::from(POINTER_BASE);
        if slots.binary_search(&at).is_ok() && target < HEADER_SIZE as u64 {
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::BadPointer {
                    what: format!("section {i} ({at:#x})"),
                    value: value.into(),
                    target,
                    detail: "points into the 0x88-byte header".into(),
                },
            ));
        }
    }
    Ok(())
}

fn header_model(h: &HeaderRaw) -> Header {
    Header {
        prefix: GridPrefix::from_raw(&h.prefix),
        grid: h.grid,
        counts: h.counts.map(|c| c.get()),
        word_6c: h.word_6c.get(),
        pointers: h.pointers.map(|p| p.get()),
    }
}
