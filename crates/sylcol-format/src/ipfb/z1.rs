//! Z1 compressed entries: `Z1`, u32 size, u32 Adler-32, then a zlib stream.
//!
//! [`Z1Reader`] inflates one entry as a stream: it never produces more than
//! the declared size (a decompression bomb stops there with an error), and at
//! the end of the stream it checks the byte count, the zlib trailer's
//! Adler-32 and the Z1 header's Adler-32 against the data it produced.

use std::io::{self, BufRead, Read, Write};

use flate2::{Compression, Decompress, FlushDecompress, Status};

use zerocopy::{FromBytes, IntoBytes};

use super::raw::{Z1_MAGIC, Z1HeaderRaw};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

/// Bytes before the zlib stream: `Z1`, size, Adler-32 (the private `Z1HeaderRaw`).
pub const Z1_HEADER_SIZE: u64 = size_of::<Z1HeaderRaw>() as u64;
/// The bytes [`Z1Header::parse`] reads: the fixed header and the zlib
/// stream's two header bytes. A [`Z1Reader`] takes the stored bytes after
/// them.
pub const Z1_PREFIX_SIZE: u64 = Z1_HEADER_SIZE + 2;
/// The smallest Z1 entry: header, zlib header (2), trailer (4).
pub const Z1_MIN_SIZE: u64 = Z1_HEADER_SIZE + 6;
/// Deflate's largest expansion per input byte (258 bytes per 2-bit code, rounded up).
const DEFLATE_MAX_RATIO: u64 = 1032;

/// The fixed part of a Z1 entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Z1Header {
    /// Uncompressed size the entry declares.
    pub size: u32,
    /// Adler-32 of the uncompressed bytes, as declared.
    pub adler: u32,
    /// The zlib stream's two header bytes (`78 DA` in the game's archives).
    pub zlib_header: [u8; 2],
}

/// Whether stored bytes start a Z1 entry.
pub fn is_z1(prefix: &[u8]) -> bool {
    prefix.starts_with(&Z1_MAGIC)
}

impl Z1Header {
    /// Parses the first [`Z1_PREFIX_SIZE`] (12) bytes of a Z1 entry of
    /// `stored_size` bytes and checks them against that size. Offsets in
    /// errors are entry-relative.
    pub fn parse(prefix: &[u8], stored_size: u64) -> Result<Z1Header, DecodeError> {
        let fixed = Z1HeaderRaw::ref_from_prefix(prefix).ok();
        let (Some((raw, &[cmf, flg, ..])), true) = (fixed, stored_size >= Z1_MIN_SIZE) else {
            return Err(DecodeError::new(
                0,
                DecodeErrorKind::Truncated {
                    what: "Z1 entry (header, zlib header and trailer)",
                    needed: Z1_MIN_SIZE,
                    available: stored_size.min(prefix.len() as u64),
                },
            ));
        };
        let header = Z1Header {
            size: raw.size.get(),
            adler: raw.adler.get(),
            zlib_header: [cmf, flg],
        };
        if cmf & 0x0F != 8
            || cmf >> 4 > 7
            || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0
            || flg & 0x20 != 0
        {
            return Err(DecodeError::new(
                Z1_HEADER_SIZE,
                DecodeErrorKind::ZlibHeader { cmf, flg },
            ));
        }
        let deflate_len = stored_size - Z1_MIN_SIZE;
        let limit = (deflate_len + 1) * DEFLATE_MAX_RATIO;
        if u64::from(header.size) > limit {
            return Err(DecodeError::new(
                core::mem::offset_of!(Z1HeaderRaw, size) as u64,
                DecodeErrorKind::Z1SizePossible {
                    size: header.size,
                    deflate_len,
                    limit,
                },
            ));
        }
        Ok(header)
    }
}

/// Streams the uncompressed bytes of one Z1 entry.
///
/// `inner` yields the entry's bytes after the Z1 header and the two zlib
/// header bytes (bounded to the entry, e.g. with [`Read::take`]). Errors are
/// `io::Error`s of kind `InvalidData` wrapping a [`DecodeError`] whose offset
/// is `base` + the position in the entry.
pub struct Z1Reader<R: BufRead> {
    inner: R,
    inflate: Decompress,
    header: Z1Header,
    adler: u32,
    produced: u64,
    base: u64,
    done: bool,
}

impl<R: BufRead> Z1Reader<R> {
    /// A reader for an entry whose header was parsed; `base` is the entry's
    /// offset in its file (for error offsets).
    pub fn new(inner: R, header: Z1Header, base: u64) -> Self {
        Z1Reader {
            inner,
            inflate: Decompress::new(false),
            header,
            adler: 1,
            produced: 0,
            base,
            done: false,
        }
    }

    /// Entry-relative position of the next unread stored byte.
    fn position(&self) -> u64 {
        Z1_PREFIX_SIZE + self.inflate.total_in()
    }

    fn fail(&self, at: u64, kind: DecodeErrorKind) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            DecodeError::new(self.base + at, kind),
        )
    }

    /// One inflate step into `out`; returns (bytes made, stream ended,
    /// stalled: no input used and no output made).
    fn step(&mut self, out: &mut [u8]) -> io::Result<(usize, bool, bool)> {
        let input = self.inner.fill_buf()?;
        let exhausted = input.is_empty();
        let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
        let status = self.inflate.decompress(input, out, FlushDecompress::None);
        let used = (self.inflate.total_in() - in0) as usize;
        let made = (self.inflate.total_out() - out0) as usize;
        self.inner.consume(used);
        match status {
            Ok(_) if used == 0 && made == 0 && !exhausted => {
                Err(self.fail(self.position(), DecodeErrorKind::DeflateProgress))
            }
            Ok(s) => Ok((made, s == Status::StreamEnd, used == 0 && made == 0)),
            Err(e) => Err(self.fail(
                self.position(),
                DecodeErrorKind::DeflateData {
                    cause: e.to_string(),
                },
            )),
        }
    }

    /// Checks the count and both Adler-32 values once the stream has ended.
    fn finish(&mut self) -> io::Result<()> {
        self.done = true;
        let declared = self.header.size;
        if self.produced != u64::from(declared) {
            return Err(self.fail(
                2,
                DecodeErrorKind::Z1SizeReached {
                    declared,
                    inflated: self.produced,
                },
            ));
        }
        let at = self.position();
        let mut trailer = [0u8; 4];
        if let Err(e) = self.inner.read_exact(&mut trailer) {
            return Err(match e.kind() {
                io::ErrorKind::UnexpectedEof => self.fail(
                    at,
                    DecodeErrorKind::Truncated {
                        what: "zlib Adler-32 trailer",
                        needed: 4,
                        available: 0,
                    },
                ),
                _ => e,
            });
        }
        let trailer = u32::from_be_bytes(trailer);
        if trailer != self.adler {
            return Err(self.fail(
                at,
                DecodeErrorKind::ZlibTrailerAdler {
                    stored: trailer,
                    computed: self.adler,
                },
            ));
        }
        if self.header.adler != self.adler {
            return Err(self.fail(
                6,
                DecodeErrorKind::Z1HeaderAdler {
                    stored: self.header.adler,
                    computed: self.adler,
                },
            ));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for Z1Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let remaining = u64::from(self.header.size) - self.produced;
            let (made, ended, stalled) = if remaining == 0 {
                let (made, ended, stalled) = self.step(&mut [0u8; 1])?;
                if made > 0 {
                    return Err(self.fail(
                        2,
                        DecodeErrorKind::Z1SizeNotPassed {
                            declared: self.header.size,
                        },
                    ));
                }
                (0, ended, stalled)
            } else {
                let cap = buf
                    .len()
                    .min(usize::try_from(remaining).unwrap_or(usize::MAX));
                let (made, ended, stalled) = self.step(&mut buf[..cap])?;
                self.adler = zlib_rs::adler32::adler32(self.adler, &buf[..made]);
                self.produced += made as u64;
                (made, ended, stalled)
            };
            if ended {
                self.finish()?;
                return Ok(made);
            }
            if made > 0 {
                return Ok(made);
            }
            if stalled {
                // `step` errors on a stall with input left: the input ran out.
                return Err(self.fail(
                    self.position(),
                    DecodeErrorKind::Truncated {
                        what: "zlib stream (the stored bytes end before its end marker)",
                        needed: 1,
                        available: 0,
                    },
                ));
            }
        }
    }
}

/// Adler-32 of `data` (zlib's checksum, as the Z1 header stores it).
pub fn adler32(data: &[u8]) -> u32 {
    zlib_rs::adler32::adler32(1, data)
}

/// Encodes `data` as a Z1 entry at zlib `level` (9 gives the game's `78 DA`).
pub fn compress(data: &[u8], level: u32) -> Result<Vec<u8>, EncodeError> {
    let size = u32::try_from(data.len()).map_err(|_| EncodeError::TooLarge {
        what: "Z1 uncompressed size",
        value: data.len() as u64,
        limit: u64::from(u32::MAX),
    })?;
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    out.extend_from_slice(Z1HeaderRaw::new(size, adler32(data)).as_bytes());
    let mut enc = flate2::write::ZlibEncoder::new(out, Compression::new(level.min(9)));
    enc.write_all(data)
        .and_then(|_| enc.finish())
        .map_err(|e| EncodeError::Compression {
            cause: e.to_string(),
        })
}

/// Inflates a whole Z1 entry held in memory (checks as [`Z1Reader`]).
pub fn decompress(entry: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let header = Z1Header::parse(entry, entry.len() as u64)?;
    let mut reader = Z1Reader::new(&entry[Z1_PREFIX_SIZE as usize..], header, 0);
    let mut out = Vec::with_capacity((header.size as usize).min(entry.len() * 8));
    reader.read_to_end(&mut out).map_err(into_decode_error)?;
    Ok(out)
}

/// The [`DecodeError`] inside an `io::Error` from [`Z1Reader`], or a
/// generic one for a plain I/O failure.
pub fn into_decode_error(e: io::Error) -> DecodeError {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<DecodeError>())
    {
        Some(d) => d.clone(),
        None => DecodeError::new(
            0,
            DecodeErrorKind::ReadFailed {
                cause: e.to_string(),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..50_000u32)
            .flat_map(|i| (i % 251).to_be_bytes())
            .collect()
    }

    #[test]
    fn round_trip_with_game_header() {
        let data = sample();
        let z = compress(&data, 9).unwrap();
        assert_eq!(&z[..2], b"Z1");
        assert_eq!(&z[10..12], &[0x78, 0xDA]);
        assert_eq!(decompress(&z).unwrap(), data);
        assert_eq!(
            decompress(&compress(&[], 9).unwrap()).unwrap(),
            Vec::<u8>::new()
        );
    }

    fn kind_at(z: &[u8]) -> (u64, DecodeErrorKind) {
        let e = decompress(z).unwrap_err();
        (e.offset, e.kind)
    }

    #[test]
    fn lies_are_caught() {
        use DecodeErrorKind as K;
        let data = sample();
        let good = compress(&data, 6).unwrap();
        // declared size too small: a bomb stops at the declared size
        let mut small = good.clone();
        small[2..6].copy_from_slice(&1000u32.to_be_bytes());
        let (at, kind) = kind_at(&small);
        assert_eq!((at, &kind), (2, &K::Z1SizeNotPassed { declared: 1000 }));
        assert!(kind.to_string().contains("inflates past"), "{kind}");
        // declared size too large
        let mut large = good.clone();
        large[2..6].copy_from_slice(&(data.len() as u32 + 1).to_be_bytes());
        let (at, kind) = kind_at(&large);
        let (declared, inflated) = (200_001, 200_000);
        assert_eq!((at, &kind), (2, &K::Z1SizeReached { declared, inflated }));
        assert!(kind.to_string().contains("inflates to 200000"), "{kind}");
        // header Adler-32 wrong
        let mut adler = good.clone();
        adler[9] ^= 1;
        let (at, kind) = kind_at(&adler);
        assert!(at == 6 && matches!(kind, K::Z1HeaderAdler { .. }), "{kind}");
        assert!(kind.to_string().contains("Z1 header Adler-32"), "{kind}");
        // trailer Adler-32 wrong
        let mut trailer = good.clone();
        let n = trailer.len();
        trailer[n - 1] ^= 1;
        let (at, kind) = kind_at(&trailer);
        assert_eq!(at, n as u64 - 4);
        assert!(matches!(kind, K::ZlibTrailerAdler { .. }), "{kind}");
        assert!(kind.to_string().contains("zlib trailer"), "{kind}");
        // stream cut short
        let (_, kind) = kind_at(&good[..good.len() / 2]);
        assert!(matches!(kind, K::Truncated { .. }), "{kind}");
        // bad zlib header, and an impossible declared size
        let mut hdr = good.clone();
        hdr[10] = 0x79;
        let (at, kind) = kind_at(&hdr);
        assert!(
            at == 10 && matches!(kind, K::ZlibHeader { cmf: 0x79, .. }),
            "{kind}"
        );
        let mut huge = good.clone();
        huge[2..6].copy_from_slice(&u32::MAX.to_be_bytes());
        let (_, kind) = kind_at(&huge);
        assert!(
            matches!(kind, K::Z1SizePossible { size: u32::MAX, .. }),
            "{kind}"
        );
        assert!(kind.to_string().contains("more than"), "{kind}");
    }

    #[test]
    fn adler_matches_zlib_definition() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(b""), 1);
    }
}
