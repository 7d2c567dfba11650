//! Error types shared by every format module.

use std::fmt;

/// A decode failure: the byte offset (from the start of the object being
/// decoded) where the broken invariant was found, and what broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DecodeError {
    /// Byte offset within the decoded object.
    pub offset: u64,
    /// What invariant failed there.
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: {}", self.offset, self.kind)
    }
}

impl DecodeError {
    /// Builds an error at `offset`.
    pub fn new(offset: impl TryInto<u64>, kind: DecodeErrorKind) -> Self {
        DecodeError {
            offset: offset.try_into().unwrap_or(u64::MAX),
            kind,
        }
    }

    /// The same error moved by `base` bytes (for an object nested in a larger one).
    pub fn shifted(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

/// The invariants a decoder checks. Each names the rule, not the symptom.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    // archive (IPFB, Z1), IDXD and other rules
    /// IDXD: `count` records of `record_size` bytes at `at`, and the 4-byte
    /// word that follows them, fit in the `available` bytes left there.
    #[error(
        "{what}: {count} records of {record_size} bytes (and the 4-byte word after them) need {} bytes at {at:#x}, only {available} remain",
        records_and_word(*.count, *.record_size)
    )]
    IdxdRecordsFit {
        /// The count word (`record count`, `pair count`).
        what: &'static str,
        /// The count word's value.
        count: u64,
        /// Bytes per record.
        record_size: u64,
        /// Where the records start.
        at: u64,
        /// Bytes from `at` to the end of the input.
        available: u64,
    },
    /// IDXD: the pool size (bytes) fits the bytes after the records.
    #[error("pool size: {size} bytes, only {remaining} remain")]
    IdxdPoolSizeFits {
        /// The pool size word.
        size: u32,
        /// Bytes after the pool size word.
        remaining: u64,
    },
    /// IXUD: the pool size, read as bytes (when even) or as 2-byte units,
    /// fits the bytes after the records.
    #[error(
        "pool size: {size} read as bytes{} or as 2-byte units ({} bytes) does not fit the {remaining} bytes that remain",
        odd_units_note(*.size),
        2 * u64::from(*.size)
    )]
    IxudPoolSizeFits {
        /// The pool size word.
        size: u32,
        /// Bytes after the pool size word.
        remaining: u64,
    },
    /// IPFB: the zero hash that ends the entry table (as the game reads it)
    /// is followed by no slot, of those the header declares, that holds a
    /// hash.
    #[error(
        "IPFB entry table: a zero hash in slot {slot} ends the table (the game stops there too), but {hidden} of the {declared} declared slots after it hold a hash: those entries are never read"
    )]
    IndexEndsAtZeroHash {
        /// The slot of the zero hash.
        slot: u64,
        /// Declared slots after it that hold a hash.
        hidden: u64,
        /// Slots the header declares.
        declared: u32,
    },
    /// IPFB: the header's alignment word is the game's
    /// ([`ALIGNMENT`](crate::ipfb::ALIGNMENT)); a problem noted, not fatal.
    #[error(
        "alignment word is {found:#x}, the game's archives use {:#x}",
        crate::ipfb::ALIGNMENT
    )]
    IndexAlignmentWord {
        /// The word found.
        found: u32,
    },
    /// IPFB: the header's part size word is
    /// [`PART_SIZE`](crate::ipfb::PART_SIZE); a problem noted, not fatal.
    #[error(
        "part size word is {found:#x}, expected {:#x}; locations are still read as part << 28 | offset",
        crate::ipfb::PART_SIZE
    )]
    IndexPartSizeWord {
        /// The word found.
        found: u32,
    },
    /// IPFB: entries are sorted by increasing unsigned hash; `hash`
    /// follows the larger `previous`.
    #[error(
        "hash out of order: {hash:08X} follows {previous:08X} (entries must be sorted by unsigned hash)"
    )]
    IndexHashOrder {
        /// The hash of the entry before.
        previous: u32,
        /// The hash of this entry.
        hash: u32,
    },
    /// IPFB: no two entries have the same hash (sorted by strictly
    /// increasing hash); this entry repeats the one before.
    #[error(
        "duplicate hash: {hash:08X} follows {hash:08X} (entries must be sorted by unsigned hash)"
    )]
    IndexHashUnique {
        /// The repeated hash.
        hash: u32,
    },
    /// IPFB: the part file an entry lies in exists next to the index.
    #[error("part file {file} is missing next to {archive}")]
    PartFilePresent {
        /// The part number (`location >> 28`).
        part: u8,
        /// The part file's name.
        file: String,
        /// The index file, as named.
        archive: String,
    },
    /// Z1: the zlib header announces deflate (method 8, window at most
    /// 32 KiB, check bits right) without a preset dictionary.
    #[error("zlib header {cmf:02X} {flg:02X} is not a deflate stream without a preset dictionary")]
    ZlibHeader {
        /// The CMF byte.
        cmf: u8,
        /// The FLG byte.
        flg: u8,
    },
    /// Z1: the declared size is one the stored deflate bytes can inflate
    /// to (deflate expands at most 1032:1).
    #[error(
        "Z1 declared size: {size} bytes, more than {deflate_len} deflate bytes can hold (at most {limit})"
    )]
    Z1SizePossible {
        /// The declared (uncompressed) size.
        size: u32,
        /// Stored bytes after the Z1 and zlib headers.
        deflate_len: u64,
        /// The most those bytes can inflate to.
        limit: u64,
    },
    /// Z1: each inflate step, given input, consumes some or makes some.
    #[error("deflate data makes no progress")]
    DeflateProgress,
    /// Z1: the deflate data is well formed (`cause` is the inflater's
    /// message).
    #[error("corrupt deflate data: {cause}")]
    DeflateData {
        /// What the inflater found wrong.
        cause: String,
    },
    /// Z1: the stream inflates to exactly the declared size; this one
    /// ends after `inflated` bytes.
    #[error("Z1 declared size: {declared} bytes, but the stream inflates to {inflated}")]
    Z1SizeReached {
        /// The declared size.
        declared: u32,
        /// The bytes the stream inflated to.
        inflated: u64,
    },
    /// Z1: the stream inflates to no more than the declared size
    /// (inflation stopped there: a decompression bomb).
    #[error("Z1 declared size: {declared} bytes, but the stream inflates past it (stopped there)")]
    Z1SizeNotPassed {
        /// The declared size.
        declared: u32,
    },
    /// Z1: the zlib trailer's Adler-32 is that of the inflated bytes.
    #[error("zlib trailer Adler-32 {stored:08X} does not match the inflated data's {computed:08X}")]
    ZlibTrailerAdler {
        /// The trailer's value.
        stored: u32,
        /// The inflated bytes'.
        computed: u32,
    },
    /// Z1: the Z1 header's Adler-32 is that of the inflated bytes.
    #[error("Z1 header Adler-32 {stored:08X} does not match the inflated data's {computed:08X}")]
    Z1HeaderAdler {
        /// The header's value.
        stored: u32,
        /// The inflated bytes'.
        computed: u32,
    },
    /// The bytes could be read at all (an I/O failure under a decoder,
    /// not a broken rule of the format; `cause` is the system's message).
    #[error("read failed: {cause}")]
    ReadFailed {
        /// The I/O error's message.
        cause: String,
    },

    // shared rules
    /// The input ends before a structure that must be there.
    #[error("truncated: {what} needs {needed} bytes, only {available} remain")]
    Truncated {
        /// The structure.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// A magic number is not the expected one.
    #[error("bad magic: expected {expected:?}, found {found:?}")]
    BadMagic {
        /// The magic the format has.
        expected: String,
        /// The bytes found in its place.
        found: String,
    },
    /// A size or count field disagrees with the data around it.
    ///
    /// Old free-text kind, being replaced by named variants (issue 34).
    #[error("{what}: {detail}")]
    BadCount {
        /// The field.
        what: &'static str,
        /// How it disagrees.
        detail: String,
    },
    /// A pointer (after relocation) lands outside where it may.
    #[error("pointer {what} = {value:#x} (target {target:#x}) {detail}")]
    BadPointer {
        /// The pointer field.
        what: String,
        /// Its stored value.
        value: u64,
        /// Where it points after relocation.
        target: u64,
        /// Why that is not allowed.
        detail: String,
    },
    /// A POF0 table is malformed or names a slot that cannot hold a pointer.
    ///
    /// Old free-text kind, being replaced by named variants (issue 34).
    #[error("POF0: {0}")]
    Pof0(String),
    /// An index refers past the end of the array it indexes.
    #[error("{what} index {index} out of range (must be < {limit})")]
    IndexOutOfRange {
        /// The index field.
        what: &'static str,
        /// Its value.
        index: u64,
        /// The length of the array it indexes.
        limit: u64,
    },
    /// Two structures claim the same bytes.
    #[error("{what} overlaps {other}")]
    Overlap {
        /// The one structure.
        what: String,
        /// The other, whose bytes it claims too.
        other: String,
    },
    /// Any other broken rule, stated in words.
    ///
    /// Old free-text kind, being replaced by named variants (issue 34).
    #[error("{0}")]
    Invalid(String),
}

/// An encode failure: the model cannot be written in this format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    // archive (IPFB, Z1), IDXD and other rules
    /// IXUD: the pool holds whole 2-byte units.
    #[error("an IXUD pool holds whole 2-byte units; this one has {bytes} bytes")]
    IxudPoolWholeUnits {
        /// The pool's length in bytes (odd).
        bytes: u64,
    },
    /// IDXD: the pool size counts bytes; a table asking for 2-byte units
    /// cannot be written as IDXD.
    #[error("an IDXD pool size counts bytes (its unit is a byte)")]
    IdxdPoolSizeInBytes,
    /// Z1: the zlib compressor failed (`cause` is its message).
    #[error("zlib compression failed: {cause}")]
    Compression {
        /// The compressor's error message.
        cause: String,
    },
    /// IPFB: an entry stored raw does not start with `Z1`, or it would
    /// read back as compressed.
    #[error("a raw entry starting with \"Z1\" would read back as compressed; compress it")]
    RawEntryNotZ1,
    /// IPFB: no entry has hash 0, which ends an index.
    #[error("hash 00000000 ends an index; no entry may have it")]
    HashNotZero,
    /// IPFB: a streamed entry's source gives exactly the length announced.
    #[error("the source gave {got} bytes, {expected} were expected (did the file change?)")]
    SourceLength {
        /// The length announced.
        expected: u64,
        /// The bytes it gave.
        got: u64,
    },
    /// IPFB: a streamed entry's source can be read (`cause` is the I/O
    /// error's message).
    #[error("cannot read: {cause}")]
    SourceRead {
        /// The I/O error's message.
        cause: String,
    },
    /// IPFB rewrite: the stored bytes of an entry kept in place lie inside
    /// the source part they are kept from.
    #[error("its {len} stored bytes are kept, but the source part does not hold them")]
    KeptSpanInPart {
        /// The entry's stored size.
        len: u32,
    },

    // shared rules
    /// A count does not fit its on-disk field.
    #[error("{what}: {value} does not fit (limit {limit})")]
    TooLarge {
        /// The count.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The most its field holds.
        limit: u64,
    },
    /// The model is inconsistent with itself.
    ///
    /// Old free-text kind, being replaced by named variants (issue 34).
    #[error("{0}")]
    Invalid(String),
}

/// Bytes that `count` records of `record_size` bytes and one 4-byte word take.
fn records_and_word(count: u64, record_size: u64) -> u64 {
    count.saturating_mul(record_size).saturating_add(4)
}

/// The note an odd IXUD pool size gets: it cannot be whole UTF-16 units
/// when read as bytes.
fn odd_units_note(size: u32) -> &'static str {
    if size % 2 == 1 {
        " (odd: not whole UTF-16 units)"
    } else {
        ""
    }
}
