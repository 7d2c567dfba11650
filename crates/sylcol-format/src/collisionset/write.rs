//! CollisionSet encoder.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{BigEndian, F32, LittleEndian, U32};

use super::raw::{Order, RecordCounts, RecordHead, Triangle, Vertex};
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
        return Err(EncodeError::CollisionSetEmpty);
    }
    for (i, r) in set.records.iter().enumerate() {
        check_record(i, r)?;
    }
    let mut out = Vec::with_capacity(encoded_len(set) as usize);
    for r in &set.records {
        match set.endian {
            Endian::Big => write_record::<BigEndian>(&mut out, r),
            Endian::Little => write_record::<LittleEndian>(&mut out, r),
        }
    }
    Ok(out)
}

fn check_record(record: usize, r: &Record) -> Result<(), EncodeError> {
    if r.name_field.is_empty() || !r.name_field.len().is_multiple_of(8) {
        return Err(EncodeError::CollisionSetNameField {
            record,
            name: r.name(),
            len: r.name_field.len(),
        });
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
    for (triangle, tri) in r.triangles.iter().enumerate() {
        if let Some(&index) = tri.iter().find(|&&i| i as u64 >= nv) {
            return Err(EncodeError::CollisionSetTriangleIndex {
                record,
                name: r.name(),
                triangle,
                index,
                vertices: nv,
            });
        }
    }
    Ok(())
}

fn write_record<O: Order>(out: &mut Vec<u8>, r: &Record) {
    let head = RecordHead::<O> {
        size: U32::new((r.encoded_len() - 8) as u32),
        name_len: U32::new(r.name_field.len() as u32),
    };
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(&r.name_field);
    let counts = RecordCounts::<O> {
        vertex_count: U32::new(r.vertices.len() as u32),
        triangle_count: U32::new(r.triangles.len() as u32),
    };
    out.extend_from_slice(counts.as_bytes());
    for v in &r.vertices {
        let v: Vertex<O> = v.map(F32::new);
        out.extend_from_slice(v.as_bytes());
    }
    for t in &r.triangles {
        let t: Triangle<O> = t.map(U32::new);
        out.extend_from_slice(t.as_bytes());
    }
}
