//! CollisionSet encoder.

use super::{CollisionSet, Endian, Record};
use crate::error::EncodeError;

/// The size of the encoded library in bytes.
pub fn encoded_len(set: &CollisionSet) -> u64 {
    set.records.iter().map(Record::encoded_len).sum()
}

/// Encodes a library in its byte order. For a decoded library the output is
/// the input, byte for byte. Refuses a name field that is empty or not a
/// multiple of 8 bytes, a count or size that does not fit its u32 word, a
/// triangle index not below the record's vertex count, and a library of
/// no record (its encoding would be empty, which [`super::decode`] refuses).
pub fn encode(set: &CollisionSet) -> Result<Vec<u8>, EncodeError> {
    if set.records.is_empty() {
        return Err(EncodeError::Invalid(
            "a CollisionSet holds at least one record (an empty one would encode to 0 bytes)"
                .into(),
        ));
    }
    for (i, r) in set.records.iter().enumerate() {
        check_record(i, r)?;
    }
    let mut out = Vec::with_capacity(encoded_len(set) as usize);
    for r in &set.records {
        write_record(&mut out, r, set.endian);
    }
    Ok(out)
}

fn check_record(index: usize, r: &Record) -> Result<(), EncodeError> {
    let name = r.name();
    if r.name_field.is_empty() || !r.name_field.len().is_multiple_of(8) {
        return Err(EncodeError::Invalid(format!(
            "record {index} ({name:?}): name field of {} bytes must be a non-empty multiple of 8",
            r.name_field.len()
        )));
    }
    let size = r.encoded_len() - 8;
    if size > u32::MAX as u64 {
        return Err(EncodeError::TooLarge {
            what: "record size",
            value: size,
            limit: u32::MAX as u64,
        });
    }
    let nv = r.vertices.len() as u64;
    for (t, tri) in r.triangles.iter().enumerate() {
        if let Some(&bad) = tri.iter().find(|&&i| i as u64 >= nv) {
            return Err(EncodeError::Invalid(format!(
                "record {index} ({name:?}) triangle {t}: index {bad} must be < vertex count {nv}"
            )));
        }
    }
    Ok(())
}

fn write_record(out: &mut Vec<u8>, r: &Record, endian: Endian) {
    let put = |out: &mut Vec<u8>, w: u32| match endian {
        Endian::Big => out.extend_from_slice(&w.to_be_bytes()),
        Endian::Little => out.extend_from_slice(&w.to_le_bytes()),
    };
    put(out, (r.encoded_len() - 8) as u32);
    put(out, r.name_field.len() as u32);
    out.extend_from_slice(&r.name_field);
    put(out, r.vertices.len() as u32);
    put(out, r.triangles.len() as u32);
    for v in &r.vertices {
        for c in v {
            put(out, c.to_bits());
        }
    }
    for t in &r.triangles {
        for &i in t {
            put(out, i);
        }
    }
}
