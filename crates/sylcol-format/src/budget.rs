//! How much of an object sylcol holds in memory, and holding it without
//! aborting when memory runs out.
//!
//! Every front (the CLI, the viewer, the Python package) reads an object
//! it decodes through [`read_object`] (a plain file, or an archive entry's
//! stream through [`crate::ipfb::Archive::read_object`]):
//!
//! | step | rule | on failure |
//! |---|---|---|
//! | 1 | the first [`SNIFF_LEN`] bytes show a format sylcol decodes ([`sniff`]) | what decoding would say; the rest is never held |
//! | 2 | an MCOL declares no more bytes than its header allows ([`mcol::max_size`]) | [`AnyError::TooLarge`] ([`SizeLimit::Header`]) |
//! | 3 | no object declares more than [`MAX_OBJECT`] bytes | [`AnyError::TooLarge`] ([`SizeLimit::Budget`]) |
//! | 4 | its bytes are reserved with `try_reserve`, and [`headroom`] times as many more can be had for the work on it (reserved, then freed) | [`OutOfMemory`] |
//! | 5 | the rest is read into that reservation, which never grows | |
//!
//! Steps 1 to 3 happen before anything past the first bytes is inflated,
//! so a decompression bomb costs [`SNIFF_LEN`] bytes. Step 4 turns an
//! allocation the machine cannot give into an error naming the object,
//! where Rust's infallible allocations would abort the process. The
//! declared size is what the caller knows before reading: a Z1 header's,
//! an index entry's, a file's length.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::any::{AnyError, Kind, SizeLimit};
use crate::{SNIFF_LEN, mcol, sniff};

/// The most bytes of one object sylcol reads whole: 64 MiB. The largest
/// object of the game is the 1.6 MiB CollisionSet (1 675 148 bytes, the
/// seed); an MCOL at its u16 limits (65 535 vertices and triangles) with
/// the game's largest grid (10 x 10 x 10) and lists naming each triangle
/// in up to 8 cells takes 3.4 MiB. The budget is 40 times the library.
pub const MAX_OBJECT: u64 = 64 << 20;

/// How many times an object's size must be free beyond its bytes before
/// it is read, unless a front says otherwise ([`set_headroom`]): what
/// decoding it and checking it take, with room to spare (`info`,
/// `verify`, `query`: once more, `rewrite` twice, measured in
/// `docs/reliability.md`, "Memory bombs").
pub const HEADROOM: u64 = 4;

static HEADROOM_NOW: AtomicU64 = AtomicU64::new(HEADROOM);

/// Sets the headroom [`object_buffer`] asks for, for a process whose work
/// on an object takes more than decoding it (the viewer's page takes 17
/// times the object).
pub fn set_headroom(times: u64) {
    HEADROOM_NOW.store(times, Ordering::Relaxed);
}

/// The headroom [`object_buffer`] asks for, as a multiple of the size.
pub fn headroom() -> u64 {
    HEADROOM_NOW.load(Ordering::Relaxed)
}

/// Memory that could not be had: the reservation failed instead of
/// aborting the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub struct OutOfMemory {
    /// The bytes asked for.
    pub bytes: u64,
    /// The further bytes asked for decoding them (0: none).
    pub headroom: u64,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot hold its {} bytes in memory", self.bytes)?;
        if self.headroom > 0 {
            write!(f, " and {} more to work on it", self.headroom)?;
        }
        f.write_str(": out of memory")
    }
}

impl From<OutOfMemory> for io::Error {
    fn from(e: OutOfMemory) -> io::Error {
        io::Error::new(io::ErrorKind::OutOfMemory, e)
    }
}

impl OutOfMemory {
    /// The [`OutOfMemory`] inside an `io::Error`, if it is one.
    pub fn in_io(e: &io::Error) -> Option<OutOfMemory> {
        e.get_ref()?.downcast_ref::<OutOfMemory>().copied()
    }
}

/// Whether sylcol reads whole an object of `size` bytes whose first bytes
/// are `head` (at least `min(size, SNIFF_LEN)` of them): [`sniff`], then
/// the size rules of the module table. `Err` is why not, without reading
/// the rest.
pub fn admit(head: &[u8], size: u64) -> Result<(), AnyError> {
    sniff(head, size)?;
    let too_large = |kind, limit| AnyError::TooLarge { kind, size, limit };
    if let Some(bound) = mcol::max_size(head)
        && size > bound.bytes
    {
        return Err(too_large(Some(Kind::Mcol), SizeLimit::Header(bound)));
    }
    within_budget(Some(kind_of(head)), size)
}

/// Whether an object of `size` bytes is within [`MAX_OBJECT`]; `kind` is
/// its format, when known.
pub fn within_budget(kind: Option<Kind>, size: u64) -> Result<(), AnyError> {
    if size > MAX_OBJECT {
        return Err(AnyError::TooLarge {
            kind,
            size,
            limit: SizeLimit::Budget(MAX_OBJECT),
        });
    }
    Ok(())
}

/// The format of an object [`sniff`] admitted: its magic, else a
/// CollisionSet (the one format without one).
fn kind_of(head: &[u8]) -> Kind {
    match head.get(..4) {
        Some(b"MCOL") => Kind::Mcol,
        Some(b"REGN") => Kind::Regn,
        Some(b"IDXD") => Kind::Idxd,
        Some(b"IXUD") => Kind::Ixud,
        _ => Kind::CollisionSet,
    }
}

/// An empty vector with room for exactly `size` bytes, reserved with
/// `try_reserve_exact`.
pub fn buffer(size: u64) -> Result<Vec<u8>, OutOfMemory> {
    let fail = OutOfMemory {
        bytes: size,
        headroom: 0,
    };
    let mut v = Vec::new();
    let n = usize::try_from(size).map_err(|_| fail)?;
    v.try_reserve_exact(n).map_err(|_| fail)?;
    Ok(v)
}

/// [`buffer`] for an object to be decoded: also checks that
/// [`headroom`] times `size` more can be had (reserved, then freed), so
/// that decoding it does not run out where it cannot fail cleanly.
pub fn object_buffer(size: u64) -> Result<Vec<u8>, OutOfMemory> {
    let bytes = buffer(size)?;
    let headroom = size.saturating_mul(headroom());
    buffer(headroom).map_err(|_| OutOfMemory {
        bytes: size,
        headroom,
    })?;
    Ok(bytes)
}

/// A `Write` into a vector that grows it with `try_reserve`: a write that
/// cannot get memory fails with [`OutOfMemory`] instead of aborting.
pub struct Filling<'a>(pub &'a mut Vec<u8>);

impl Write for Filling<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.try_reserve(buf.len()).is_err() {
            return Err(OutOfMemory {
                bytes: (self.0.len() + buf.len()) as u64,
                headroom: 0,
            }
            .into());
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads an object of `size` declared bytes from `r` (positioned at its
/// first byte): its first [`SNIFF_LEN`] bytes, then, when [`admit`] says
/// yes, the rest into an [`object_buffer`]. `Ok(Err(why))`: refused, and
/// `r` is left after the head. An allocation that fails is an `io::Error`
/// of kind `OutOfMemory` holding an [`OutOfMemory`].
pub fn read_object(r: &mut impl Read, size: u64) -> io::Result<Result<Vec<u8>, AnyError>> {
    read_if(r, size, SNIFF_LEN, |head| {
        admit(head, size.max(head.len() as u64))
    })
}

/// [`read_object`] with another judge: reads the first `head_len` bytes
/// of `r`; when `judge` says yes, the rest into an [`object_buffer`] of
/// `size` bytes.
pub fn read_if<T>(
    r: &mut impl Read,
    size: u64,
    head_len: usize,
    judge: impl FnOnce(&[u8]) -> Result<(), T>,
) -> io::Result<Result<Vec<u8>, T>> {
    let mut head = Vec::new();
    (&mut *r).take(head_len as u64).read_to_end(&mut head)?;
    if let Err(why) = judge(&head) {
        return Ok(Err(why));
    }
    let mut bytes = object_buffer(size.max(head.len() as u64))?;
    bytes.extend_from_slice(&head);
    // `read_to_end` grows with `try_reserve` too, should the source hold
    // more than it declared (a file growing while it is read).
    r.read_to_end(&mut bytes)?;
    Ok(Ok(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mcol_head(triangles: u16, grid: u8) -> Vec<u8> {
        let mut head = vec![0u8; 0x80];
        head[..4].copy_from_slice(b"MCOL");
        head[0x52..0x54].copy_from_slice(&triangles.to_be_bytes());
        head[0x70..0x74].copy_from_slice(&[grid, grid, grid, 1]);
        head
    }

    #[test]
    fn an_mcol_is_held_up_to_what_its_header_allows() {
        let head = mcol_head(12, 2);
        let bound = mcol::max_size(&head).unwrap().bytes;
        assert_eq!(admit(&head, bound), Ok(()));
        let err = admit(&head, bound + 1).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (Some(Kind::Mcol), 0x50));
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("MCOL of {} bytes is too large to read: an MCOL of 0 vertices, 12 triangles and a 2 x 2 x 2 grid takes at most {bound} bytes", bound + 1)),
            "{text}"
        );
    }

    #[test]
    fn no_object_is_held_past_the_budget() {
        let head = mcol_head(u16::MAX, 255);
        assert_eq!(admit(&head, MAX_OBJECT), Ok(()));
        let err = admit(&head, MAX_OBJECT + 1).unwrap_err();
        assert!(matches!(
            err,
            AnyError::TooLarge {
                kind: Some(Kind::Mcol),
                limit: SizeLimit::Budget(MAX_OBJECT),
                ..
            }
        ));
        assert!(
            err.to_string()
                .contains("at most 67108864 bytes (64 MiB) of one object")
        );
        // A library: no header, the budget alone.
        let tri = crate::collisionset::Record::new("rou_a", vec![[0.0; 3]; 3], vec![[0, 1, 2]]);
        let set = crate::collisionset::CollisionSet {
            endian: crate::collisionset::Endian::Big,
            records: vec![tri.unwrap()],
        };
        let lib = crate::collisionset::encode(&set).unwrap();
        let err = admit(&lib, 1 << 30).unwrap_err();
        assert_eq!(err.kind(), Some(Kind::CollisionSet));
        // Other formats are refused as sniff refuses them, whatever their size.
        assert!(matches!(
            admit(&[&b"DATA"[..], &[0; 60]].concat(), 1 << 40),
            Err(AnyError::Unrecognised { .. })
        ));
    }

    #[test]
    fn reading_stops_after_the_head_of_a_refused_object() {
        let mut bytes = mcol_head(0, 0);
        bytes.resize(64 << 10, 0);
        let mut r = &bytes[..];
        let got = read_object(&mut r, bytes.len() as u64).unwrap();
        assert!(matches!(got, Err(AnyError::TooLarge { .. })), "{got:?}");
        assert_eq!(r.len(), bytes.len() - SNIFF_LEN, "only the head was read");
        let small = mcol_head(12, 1);
        let mut r = &small[..];
        assert_eq!(read_object(&mut r, 0x80).unwrap().unwrap(), small);
    }

    #[test]
    fn a_reservation_that_cannot_be_had_is_an_error() {
        let e = buffer(u64::MAX).unwrap_err();
        assert_eq!(e.bytes, u64::MAX);
        assert_eq!(object_buffer(1 << 62).unwrap_err().bytes, 1 << 62);
        let e = OutOfMemory {
            bytes: 10,
            headroom: 40,
        };
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::OutOfMemory);
        assert_eq!(OutOfMemory::in_io(&io), Some(e));
        assert_eq!(
            io.to_string(),
            "cannot hold its 10 bytes in memory and 40 more to work on it: out of memory"
        );
        let mut v = Vec::new();
        Filling(&mut v).write_all(b"abc").unwrap();
        assert_eq!(v, b"abc");
    }
}
