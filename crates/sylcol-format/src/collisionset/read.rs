//! CollisionSet decoder: the record walk, in one byte order or deciding it.

use super::{CollisionSet, Endian, RECORD_FIXED, Record};
use crate::bytes::slice;
use crate::error::{DecodeError, DecodeErrorKind};

/// Decodes a library, letting the walk decide the byte order: big-endian
/// when that walk consumes the file exactly; otherwise little-endian when
/// that walk does; otherwise the error of the walk that got further.
pub fn decode(data: &[u8]) -> Result<CollisionSet, DecodeError> {
    let big = decode_as(data, Endian::Big);
    if big.is_ok() {
        return big;
    }
    match decode_as(data, Endian::Little) {
        Ok(set) => Ok(set),
        Err(little) => {
            let big = big.unwrap_err();
            Err(if little.offset > big.offset {
                little
            } else {
                big
            })
        }
    }
}

/// Whether `data` starts like a CollisionSet: its first record's framing
/// (size word equal to name_len + 8 + 12 nv + 12 nt, all inside the input)
/// checks out in either byte order. An exact identity over four words is
/// very unlikely by chance; a library damaged further on still counts, so
/// that [`decode`] can name the record that breaks the walk.
pub fn looks_like(data: &[u8]) -> bool {
    may_start(data, data.len() as u64)
}

/// Whether an object of `size` bytes whose first bytes are `head` may be a
/// CollisionSet: [`looks_like`] judged from the head alone (see
/// [`first_record_error`]). So `looks_like(whole)` implies
/// `may_start(head, whole.len())`.
pub fn may_start(head: &[u8], size: u64) -> bool {
    size != 0 && first_record_error(head, size).is_none()
}

/// Why an object of `size` bytes whose first bytes are `head` is no
/// CollisionSet, judged from its first record's framing against `size`:
/// the very error [`decode`] gives on the whole object. `None` when it may
/// be one: the framing checks out, or the record's counts lie past the
/// head (only the whole can tell). An empty object is no CollisionSet (a
/// library holds at least one record).
pub fn first_record_error(head: &[u8], size: u64) -> Option<DecodeError> {
    if size == 0 {
        return Some(empty());
    }
    let partial = (head.len() as u64) < size;
    let mut errors = Vec::with_capacity(2);
    for endian in [Endian::Big, Endian::Little] {
        match read_framing_in(head, size, endian, 0, 0) {
            Ok(_) => return None,
            Err(e) if partial && matches!(e.kind, DecodeErrorKind::Truncated { .. }) => {
                return None;
            }
            Err(e) => errors.push(e),
        }
    }
    let little = errors.pop()?;
    let big = errors.pop()?;
    // As `decode` chooses: the walk that got further.
    Some(if little.offset > big.offset {
        little
    } else {
        big
    })
}

/// Decodes a library in the given byte order.
pub fn decode_as(data: &[u8], endian: Endian) -> Result<CollisionSet, DecodeError> {
    let mut records = Vec::new();
    walk(data, endian, |index, rec| {
        records.push(read_record(data, endian, index, rec)?);
        Ok(())
    })?;
    Ok(CollisionSet { endian, records })
}

/// Where one record's parts lie, after its framing has been checked.
#[derive(Debug, Clone, Copy)]
struct Framing {
    offset: u64,
    name_len: u64,
    vertices: u64,
    triangles: u64,
}

/// Walks the records, checking each one's framing (size word against the
/// counts, both against the bytes left) and handing it to `visit`.
fn walk(
    data: &[u8],
    endian: Endian,
    mut visit: impl FnMut(usize, Framing) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let end = data.len() as u64;
    if end == 0 {
        return Err(empty());
    }
    let mut offset = 0u64;
    let mut index = 0usize;
    while offset < end {
        let framing = read_framing(data, endian, index, offset)?;
        visit(index, framing)?;
        offset = framing_end(&framing);
        index += 1;
    }
    Ok(())
}

/// The error of an empty input: a library holds at least one record.
fn empty() -> DecodeError {
    DecodeError::new(
        0u64,
        DecodeErrorKind::Truncated {
            what: "a CollisionSet (at least one record)",
            needed: RECORD_FIXED,
            available: 0,
        },
    )
}

fn framing_end(f: &Framing) -> u64 {
    f.offset + RECORD_FIXED + f.name_len + 12 * (f.vertices + f.triangles)
}

fn word(data: &[u8], offset: u64, endian: Endian, what: &'static str) -> Result<u32, DecodeError> {
    Ok(to_u32(slice(data, offset, 4, what)?, endian))
}

fn bad(offset: u64, what: &'static str, detail: String) -> DecodeError {
    DecodeError::new(offset, DecodeErrorKind::BadCount { what, detail })
}

fn read_framing(
    data: &[u8],
    endian: Endian,
    index: usize,
    offset: u64,
) -> Result<Framing, DecodeError> {
    read_framing_in(data, data.len() as u64, endian, index, offset)
}

/// [`read_framing`] for an input of `end` bytes of which `data` holds the
/// first ones (a word past `data` is a truncation error).
fn read_framing_in(
    data: &[u8],
    end: u64,
    endian: Endian,
    index: usize,
    offset: u64,
) -> Result<Framing, DecodeError> {
    let e = endian.as_str();
    let remaining = end - offset;
    if remaining < 8 {
        return Err(bad(
            offset,
            "record prefix",
            format!(
                "record {index} ({e}-endian walk): {remaining} trailing bytes, a record needs at least {RECORD_FIXED}"
            ),
        ));
    }
    let size = word(data, offset, endian, "record size")? as u64;
    let name_len = word(data, offset + 4, endian, "record name_len")? as u64;
    if size + 8 > remaining {
        return Err(bad(
            offset,
            "record size",
            format!(
                "record {index} ({e}-endian walk): size word {size} runs past the end of the file ({} bytes left after the prefix); the walk is desynchronised",
                remaining - 8
            ),
        ));
    }
    if name_len == 0 || !name_len.is_multiple_of(8) || name_len + 8 > size {
        return Err(bad(
            offset + 4,
            "record name_len",
            format!(
                "record {index} ({e}-endian walk): name_len {name_len} must be a non-zero multiple of 8 (a record has a name) and leave room for the two counts in size {size}"
            ),
        ));
    }
    let counts_at = offset + 8 + name_len;
    let vertices = word(data, counts_at, endian, "record vertex count")? as u64;
    let triangles = word(data, counts_at + 4, endian, "record triangle count")? as u64;
    let expected = name_len + 8 + 12 * vertices + 12 * triangles;
    if size != expected {
        return Err(bad(
            offset,
            "record size",
            format!(
                "record {index} ({e}-endian walk): size word {size} != name_len {name_len} + 8 + 12 x {vertices} vertices + 12 x {triangles} triangles = {expected}; the walk is desynchronised"
            ),
        ));
    }
    Ok(Framing {
        offset,
        name_len,
        vertices,
        triangles,
    })
}

/// Reads a record whose framing [`walk`] has checked (so its counts fit the
/// input and the allocations below are bounded by the input length).
fn read_record(
    data: &[u8],
    endian: Endian,
    index: usize,
    f: Framing,
) -> Result<Record, DecodeError> {
    let name_field = slice(data, f.offset + 8, f.name_len, "record name")?.to_vec();
    let vert_at = f.offset + RECORD_FIXED + f.name_len;
    let vert_bytes = slice(data, vert_at, 12 * f.vertices, "record vertices")?;
    let vertices = vert_bytes
        .chunks_exact(12)
        .map(|c| [0, 4, 8].map(|k| f32::from_bits(to_u32(&c[k..k + 4], endian))))
        .collect();
    let tri_at = vert_at + 12 * f.vertices;
    let tri_bytes = slice(data, tri_at, 12 * f.triangles, "record triangles")?;
    let mut triangles = Vec::with_capacity(f.triangles as usize);
    for (t, c) in tri_bytes.chunks_exact(12).enumerate() {
        let tri = [0, 4, 8].map(|k| to_u32(&c[k..k + 4], endian));
        if let Some(k) = tri.iter().position(|&i| i as u64 >= f.vertices) {
            return Err(bad(
                tri_at + 12 * t as u64 + 4 * k as u64,
                "triangle index",
                format!(
                    "record {index} triangle {t} corner {k}: index {} must be < vertex count {}",
                    tri[k], f.vertices
                ),
            ));
        }
        triangles.push(tri);
    }
    Ok(Record {
        name_field,
        vertices,
        triangles,
    })
}

fn to_u32(b: &[u8], endian: Endian) -> u32 {
    let b = [b[0], b[1], b[2], b[3]];
    match endian {
        Endian::Big => u32::from_be_bytes(b),
        Endian::Little => u32::from_le_bytes(b),
    }
}
