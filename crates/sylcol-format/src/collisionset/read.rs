//! CollisionSet decoder: the record walk, in one byte order or deciding it.

use zerocopy::byteorder::{BigEndian, LittleEndian};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use super::raw::{Order, RecordCounts, RecordHead, Triangle, Vertex};
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
        let framing = match endian {
            Endian::Big => read_framing_in::<BigEndian>(head, size, 0, 0),
            Endian::Little => read_framing_in::<LittleEndian>(head, size, 0, 0),
        };
        match framing {
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
    let records = match endian {
        Endian::Big => read_records::<BigEndian>(data)?,
        Endian::Little => read_records::<LittleEndian>(data)?,
    };
    Ok(CollisionSet { endian, records })
}

fn read_records<O: Order>(data: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let mut records = Vec::new();
    walk::<O>(data, |index, rec| {
        records.push(read_record::<O>(data, index, rec)?);
        Ok(())
    })?;
    Ok(records)
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
fn walk<O: Order>(
    data: &[u8],
    mut visit: impl FnMut(usize, Framing) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let end = data.len() as u64;
    if end == 0 {
        return Err(empty());
    }
    let mut offset = 0u64;
    let mut index = 0usize;
    while offset < end {
        let framing = read_framing_in::<O>(data, end, index, offset)?;
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

/// The `T` at `offset`, or a truncation error naming `what`.
fn read<T: FromBytes + KnownLayout + Immutable + Unaligned>(
    data: &[u8],
    offset: u64,
    what: &'static str,
) -> Result<T, DecodeError> {
    let bytes = slice(data, offset, size_of::<T>() as u64, what)?;
    Ok(T::read_from_bytes(bytes).expect("a slice of the type's size"))
}

/// The `count` elements at `offset`, read in place (truncation errors
/// name `what`).
fn array<'a, T: FromBytes + KnownLayout + Immutable + Unaligned>(
    data: &'a [u8],
    offset: u64,
    count: u64,
    what: &'static str,
) -> Result<&'a [T], DecodeError> {
    let bytes = slice(data, offset, size_of::<T>() as u64 * count, what)?;
    Ok(<[T]>::ref_from_bytes(bytes).expect("a whole number of unaligned elements"))
}

/// The framing of record `record` at `offset`, for an input of `end` bytes
/// of which `data` holds the first ones (a word past `data` is a
/// truncation error).
fn read_framing_in<O: Order>(
    data: &[u8],
    end: u64,
    record: usize,
    offset: u64,
) -> Result<Framing, DecodeError> {
    let endian = O::ENDIAN;
    let remaining = end - offset;
    if remaining < 8 {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::CollisionSetTrailingBytes {
                record,
                endian,
                remaining,
            },
        ));
    }
    let head: RecordHead<O> = read(data, offset, "record size and name_len")?;
    let (size, name_len) = (u64::from(head.size.get()), u64::from(head.name_len.get()));
    if size + 8 > remaining {
        let left = remaining - 8;
        let kind = DecodeErrorKind::CollisionSetSizePastEnd {
            record,
            endian,
            size,
            left,
        };
        return Err(DecodeError::new(offset, kind));
    }
    if name_len == 0 || !name_len.is_multiple_of(8) || name_len + 8 > size {
        let kind = DecodeErrorKind::CollisionSetNameLen {
            record,
            endian,
            name_len,
            size,
        };
        return Err(DecodeError::new(offset + 4, kind));
    }
    let counts_at = offset + 8 + name_len;
    let counts: RecordCounts<O> = read(data, counts_at, "record vertex and triangle counts")?;
    let vertices = u64::from(counts.vertex_count.get());
    let triangles = u64::from(counts.triangle_count.get());
    if size != name_len + 8 + 12 * vertices + 12 * triangles {
        let kind = DecodeErrorKind::CollisionSetSizeMismatch {
            record,
            endian,
            size,
            name_len,
            vertices,
            triangles,
        };
        return Err(DecodeError::new(offset, kind));
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
fn read_record<O: Order>(data: &[u8], record: usize, f: Framing) -> Result<Record, DecodeError> {
    let name_field = slice(data, f.offset + 8, f.name_len, "record name")?.to_vec();
    let vert_at = f.offset + RECORD_FIXED + f.name_len;
    let vertices: &[Vertex<O>] = array(data, vert_at, f.vertices, "record vertices")?;
    let vertices = vertices.iter().map(|v| v.map(|c| c.get())).collect();
    let tri_at = vert_at + 12 * f.vertices;
    let raw: &[Triangle<O>] = array(data, tri_at, f.triangles, "record triangles")?;
    let mut triangles = Vec::with_capacity(raw.len());
    for (triangle, t) in raw.iter().enumerate() {
        let tri = t.map(|i| i.get());
        if let Some(corner) = tri.iter().position(|&i| u64::from(i) >= f.vertices) {
            return Err(DecodeError::new(
                tri_at + 12 * triangle as u64 + 4 * corner as u64,
                DecodeErrorKind::CollisionSetTriangleIndex {
                    record,
                    triangle,
                    corner,
                    index: tri[corner],
                    vertices: f.vertices,
                },
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
