//! Adding an entry from a stream: fixed buffers whatever its size.
//!
//! A Z1 entry's header holds the Adler-32 of the whole data before the
//! compressed stream, so the header is written with a zero checksum, the
//! data is compressed as it is read (zlib writes its own `78 DA` header
//! and trailer), and the header's checksum is patched in afterwards. The
//! compressed size is only known at the end, so the entry is placed as if
//! it took deflate's worst case: it never crosses the part limit.

use std::io::{self, Read, Seek, SeekFrom, Write};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use zerocopy::IntoBytes;

use crate::error::EncodeError;

use super::IndexEntry;
use super::raw::Z1HeaderRaw;
use super::write::{ArchiveWriter, EntryKey, WriteError, encode_error, io_error};
use super::z1::{Z1_HEADER_SIZE, is_z1};

/// zlib's `compressBound`: the largest stream `len` bytes can become.
fn zlib_bound(len: u64) -> u64 {
    len + (len >> 12) + (len >> 14) + (len >> 25) + 13
}

/// Counts the bytes read through it and their Adler-32.
struct Counted<'a> {
    inner: &'a mut dyn Read,
    bytes: u64,
    adler: u32,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.adler = zlib_rs::adler32::adler32(self.adler, &buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

impl ArchiveWriter {
    /// Adds an entry of `len` bytes read from `source`, holding only fixed
    /// buffers: Z1-compressed when `compress`, else raw (a raw entry
    /// starting with `Z1` would read back as compressed and is refused).
    /// A source that does not give exactly `len` bytes is an error. After
    /// an error the archive cannot be finished: drop the writer (its
    /// temporary files go with it).
    pub fn add_stream(
        &mut self,
        key: &EntryKey,
        source: &mut dyn Read,
        len: u64,
        compress: bool,
    ) -> Result<IndexEntry, WriteError> {
        let hash = self.check_key(key)?;
        let too_large = |what| {
            encode_error(
                key,
                EncodeError::TooLarge {
                    what,
                    value: len,
                    limit: u64::from(u32::MAX),
                },
            )
        };
        let size = u32::try_from(len).map_err(|_| too_large("uncompressed size"))?;
        let mut head = [0u8; 2];
        let got = read_up_to(source, &mut head).map_err(|e| read_error(key, e))?;
        if !compress && is_z1(&head[..got]) {
            return Err(encode_error(key, EncodeError::RawEntryNotZ1));
        }
        let bound = if compress {
            Z1_HEADER_SIZE + zlib_bound(len)
        } else {
            len
        };
        let offset = self.place(bound, key)?;
        let level = self.options.level.min(9);
        let part = self.pad_to(offset)?;
        let mut counted = Counted {
            inner: &mut (&head[..got]).chain(source),
            bytes: 0,
            adler: 1,
        };
        let w = &mut part.writer;
        let stored = if compress {
            write_z1(w, &mut counted, size, offset, level)
        } else {
            io::copy(&mut counted, w)
        }
        .map_err(|cause| io_error(&part.path, cause))?;
        if counted.bytes != len {
            return Err(encode_error(
                key,
                EncodeError::SourceLength {
                    expected: len,
                    got: counted.bytes,
                },
            ));
        }
        let stored = u32::try_from(stored).map_err(|_| too_large("stored size"))?;
        Ok(self.record(key, hash, offset, stored))
    }
}

/// Writes a Z1 entry at `offset` of `w` from `data` (`size` bytes); returns
/// the stored size. The header is written with a zero Adler-32 first and
/// again with the data's once the stream is through.
fn write_z1<W: Write + Seek>(
    w: &mut W,
    data: &mut Counted,
    size: u32,
    offset: u64,
    level: u32,
) -> io::Result<u64> {
    w.write_all(Z1HeaderRaw::new(size, 0).as_bytes())?;
    let mut encoder = ZlibEncoder::new(&mut *w, Compression::new(level));
    io::copy(data, &mut encoder)?;
    encoder.finish()?;
    let end = w.stream_position()?;
    w.seek(SeekFrom::Start(offset))?;
    w.write_all(Z1HeaderRaw::new(size, data.adler).as_bytes())?;
    w.seek(SeekFrom::Start(end))?;
    Ok(end - offset)
}

/// Reads until `buf` is full or the source ends; returns the count.
fn read_up_to(source: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match source.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn read_error(key: &EntryKey, cause: io::Error) -> WriteError {
    encode_error(
        key,
        EncodeError::SourceRead {
            cause: cause.to_string(),
        },
    )
}
