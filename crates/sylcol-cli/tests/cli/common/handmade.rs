//! Archives written byte by byte, as an attacker or a broken tool would:
//! any index order, duplicated hashes, entries anywhere in any part, and
//! Z1 streams of zeros far larger than the disk space they take.

use std::path::{Path, PathBuf};

/// One index entry and the bytes to place at its location.
pub struct RawEntry {
    /// The hash the index gives.
    pub hash: u32,
    /// Part number (file `STEM.pNN`).
    pub part: u8,
    /// Offset in the part.
    pub offset: u32,
    /// Stored size the index declares.
    pub size: u32,
    /// Bytes written at `offset` (may be shorter or longer than `size`).
    pub bytes: Vec<u8>,
}

impl RawEntry {
    /// An entry whose declared size is its byte count.
    pub fn new(hash: u32, part: u8, offset: u32, bytes: Vec<u8>) -> RawEntry {
        RawEntry {
            hash,
            part,
            offset,
            size: bytes.len() as u32,
            bytes,
        }
    }
}

/// Writes `dir/STEM.pak` listing `entries` in the order given, and the
/// part files holding their bytes. Returns the index path.
pub fn write_archive(dir: &Path, stem: &str, entries: &[RawEntry]) -> PathBuf {
    let mut index = b"IPFB".to_vec();
    index.extend((entries.len() as u32).to_be_bytes());
    index.extend(0x800u32.to_be_bytes());
    index.extend(0x1000_0000u32.to_be_bytes());
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for e in entries {
        index.extend(e.hash.to_be_bytes());
        index.extend((u32::from(e.part) << 28 | e.offset).to_be_bytes());
        index.extend(e.size.to_be_bytes());
        let part = usize::from(e.part);
        if parts.len() <= part {
            parts.resize(part + 1, Vec::new());
        }
        let end = e.offset as usize + e.bytes.len();
        if parts[part].len() < end {
            parts[part].resize(end, 0);
        }
        parts[part][e.offset as usize..end].copy_from_slice(&e.bytes);
    }
    for (n, bytes) in parts.iter().enumerate() {
        std::fs::write(dir.join(format!("{stem}.p{n:02}")), bytes).unwrap();
    }
    let pak = dir.join(format!("{stem}.pak"));
    std::fs::write(&pak, index).unwrap();
    pak
}

/// Bits written least significant first, as deflate packs them.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// Appends `len` bits of `value`, least significant first.
    fn put(&mut self, value: u64, len: u32) {
        self.acc |= value << self.n;
        self.n += len;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
}

/// A raw deflate stream (one fixed-Huffman block) that inflates to `n`
/// zero bytes: a literal 0, then copies of 258 bytes at distance 1 (13
/// bits each, so 1 GiB takes about 6.8 MB), then literals for the rest.
pub fn deflate_zeros(n: u64) -> Vec<u8> {
    deflate_prefixed(&[], n)
}

/// A raw deflate stream (one fixed-Huffman block) that inflates to
/// `prefix` (as literals) then `n` zero bytes (as [`deflate_zeros`]).
pub fn deflate_prefixed(prefix: &[u8], n: u64) -> Vec<u8> {
    let mut b = Bits {
        out: Vec::with_capacity(prefix.len() * 2 + (n / 258 * 13 / 8) as usize + 16),
        acc: 0,
        n: 0,
    };
    // Fixed Huffman codes are sent most significant bit first, so each is
    // put here bit-reversed: literals 0..=143 are 00110000 + v (8 bits),
    // 144..=255 are 110010000 + v - 144 (9 bits); length 258 (symbol 285)
    // is 11000101, distance 1 is 00000, end of block is 0000000.
    b.put(1, 1); // BFINAL
    b.put(1, 2); // BTYPE 01: fixed Huffman
    let literal = |b: &mut Bits, v: u8| {
        let (code, len) = match v {
            0..=143 => (0x30 + u64::from(v), 8),
            _ => (0x190 + u64::from(v) - 144, 9),
        };
        b.put(code.reverse_bits() >> (64 - len), len);
    };
    for &v in prefix {
        literal(&mut b, v);
    }
    let mut left = n;
    if left > 0 {
        literal(&mut b, 0);
        left -= 1;
    }
    while left >= 258 {
        b.put(0b1010_0011, 13); // length 258, then distance 1 (five 0 bits)
        left -= 258;
    }
    for _ in 0..left {
        literal(&mut b, 0);
    }
    b.put(0, 7); // end of block (symbol 256)
    b.put(0, 7); // flush to a byte boundary
    b.out
}

/// A Z1 entry declaring `declared` bytes whose stream inflates to
/// `prefix` then `zeros` zero bytes: an object's first bytes in front of
/// a bomb.
pub fn z1_prefixed(prefix: &[u8], declared: u32, zeros: u64) -> Vec<u8> {
    const MOD: u64 = 65521;
    let (mut a, mut b) = (1u64, 0u64);
    for &v in prefix {
        a = (a + u64::from(v)) % MOD;
        b = (b + a) % MOD;
    }
    // Each zero byte adds `a` (unchanged) to `b`.
    b = (b + a * (zeros % MOD)) % MOD;
    let adler = (b << 16 | a) as u32;
    let mut out = b"Z1".to_vec();
    out.extend(declared.to_be_bytes());
    out.extend(adler.to_be_bytes());
    out.extend([0x78, 0xDA]);
    out.extend(deflate_prefixed(prefix, zeros));
    out.extend(adler.to_be_bytes());
    out
}

/// A Z1 entry declaring `declared` bytes whose stream inflates to `n`
/// zero bytes (equal for an honest entry; smaller declared: a bomb).
pub fn z1_zeros(declared: u32, n: u64) -> Vec<u8> {
    let adler = ((n % 65521) as u32) << 16 | 1;
    let mut out = b"Z1".to_vec();
    out.extend(declared.to_be_bytes());
    out.extend(adler.to_be_bytes());
    out.extend([0x78, 0xDA]);
    out.extend(deflate_zeros(n));
    out.extend(adler.to_be_bytes());
    out
}

/// One record of a journal written by hand, as an attacker plants it
/// (the layout is in `sylcol_atomic::journal`).
pub struct JournalRecord<'a> {
    /// Where the new file goes.
    pub dest: &'a str,
    /// Its temporary name.
    pub temp: &'a str,
    /// The earlier file's backup (`None`: no earlier file).
    pub backup: Option<&'a str>,
    /// The new file's device, inode, size and modification time in
    /// nanoseconds (`None`: unknown).
    pub id: Option<[u64; 4]>,
}

/// The records' bytes after the magic: the count, then each record.
fn journal_body(records: &[JournalRecord]) -> Vec<u8> {
    let mut out = (records.len() as u32).to_le_bytes().to_vec();
    for r in records {
        let flags = u8::from(r.backup.is_some()) | u8::from(r.id.is_some()) << 1;
        out.push(flags);
        for word in r.id.unwrap_or_default() {
            out.extend(word.to_le_bytes());
        }
        for name in [r.dest, r.temp, r.backup.unwrap_or("")] {
            out.extend((name.len() as u32).to_le_bytes());
            out.extend(name.as_bytes());
        }
    }
    out
}

/// A journal in the first format (`SYLJRNL1`, no checksum), which sylcol
/// before issue 33 read and acted on whatever paths it named.
pub fn journal_v1(records: &[JournalRecord]) -> Vec<u8> {
    let mut out = b"SYLJRNL1".to_vec();
    out.extend(journal_body(records));
    out
}

/// A journal in the current format (`SYLJRNL2`, then a CRC-32 of every
/// byte before it), its checksum computed here, independently of sylcol.
pub fn journal_v2(records: &[JournalRecord]) -> Vec<u8> {
    let mut out = b"SYLJRNL2".to_vec();
    out.extend(journal_body(records));
    out.extend(crc32(&out).to_le_bytes());
    out
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn crc32_is_the_standard_one() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
}
