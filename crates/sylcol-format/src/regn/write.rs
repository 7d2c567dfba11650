//! REGN encoder, and a way to lay out a new REGN from six sections.

use zerocopy::IntoBytes;
use zerocopy::byteorder::big_endian::{U16, U32};

use super::raw::{HEADER_SIZE, HeaderRaw};
use super::{Header, POINTER_BASE, POINTER_SLOTS, Regn};
use crate::error::EncodeError;
use crate::pof0;

/// Encodes a REGN chunk: the header, the body, the POF0 table (the one
/// read when the slots are unchanged), the trailer.
pub fn encode(regn: &Regn) -> Result<Vec<u8>, EncodeError> {
    let data_size = u32::try_from(regn.data_size()).map_err(|_| EncodeError::TooLarge {
        what: "data size",
        value: regn.data_size(),
        limit: u32::MAX.into(),
    })?;
    if !regn.slots.is_sorted() || regn.slots.windows(2).any(|w| w[0] == w[1]) {
        return Err(EncodeError::RegnSlotsNotAscending);
    }
    let slots = regn.slots.iter().map(|&s| u64::from(s));
    let table = pof0::table_for(slots, regn.pof0_base, &regn.pof0_table)?;
    let mut out = Vec::with_capacity(HEADER_SIZE + regn.body.len() + table.len());
    out.extend_from_slice(header_raw(&regn.header, data_size).as_bytes());
    out.extend_from_slice(&regn.body);
    out.extend(table);
    out.extend_from_slice(&regn.trailer);
    Ok(out)
}

fn header_raw(h: &Header, data_size: u32) -> HeaderRaw {
    HeaderRaw {
        prefix: h.prefix.to_raw(*b"REGN", data_size),
        grid: h.grid,
        counts: h.counts.map(U16::new),
        word_6c: U32::new(h.word_6c),
        pointers: h.pointers.map(U32::new),
    }
}

/// One section of a REGN laid out afresh: its count and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSection {
    /// The u16 count the header gives it.
    pub count: u16,
    /// The section's bytes.
    pub bytes: Vec<u8>,
}

/// A REGN whose six sections follow the header in pointer order, each
/// right after the previous one, with the six header pointers as the only
/// relocated words (POF0 base 0x10); the last section must not be empty
/// (its pointer would address the data end). `header.counts` and
/// `header.pointers` are replaced by the sections' counts and places.
pub fn from_sections(header: Header, sections: [NewSection; 6]) -> Result<Regn, EncodeError> {
    let mut header = header;
    let mut body = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        let at = HEADER_SIZE + body.len();
        let pointer = u32::try_from(at)
            .ok()
            .and_then(|a| a.checked_sub(POINTER_BASE))
            .ok_or(EncodeError::TooLarge {
                what: "section offset",
                value: at as u64,
                limit: u32::MAX.into(),
            })?;
        header.pointers[i] = pointer;
        header.counts[i] = s.count;
        body.extend_from_slice(&s.bytes);
    }
    if sections[5].bytes.is_empty() {
        return Err(EncodeError::RegnLastSectionEmpty);
    }
    let slots = POINTER_SLOTS.to_vec();
    let relative: Vec<u64> = slots.iter().map(|&s| u64::from(s - POINTER_BASE)).collect();
    Ok(Regn {
        header,
        pof0_base: POINTER_BASE,
        slots,
        body,
        pof0_table: pof0::encode_entries(&relative)?,
        trailer: Vec::new(),
    })
}
