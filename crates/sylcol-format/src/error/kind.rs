//! What a decoder found broken: one named variant per rule.

use std::fmt;

use crate::chunk::SlotFault;
use crate::collisionset::Endian;

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

    // chunk, POF0, MCOL, REGN, CollisionSet rules
    /// A chunk's data size (at 0x04) puts its POF0 table (at 0x10 + data
    /// size, 8 framing bytes) past the end of the input.
    #[error(
        "data size: {data_size:#x} puts the POF0 table at {pof0_offset:#x}, past the end of the {input_len}-byte input"
    )]
    ChunkDataSizePastInput {
        /// The data size word.
        data_size: u32,
        /// Where it puts the POF0 framing (0x10 + data size).
        pof0_offset: u64,
        /// Length of the input.
        input_len: u64,
    },
    /// No candidate POF0 base lets every slot hold an in-data pointer
    /// ([`crate::chunk::CANDIDATE_BASES`]); the first bad slot under 0x10.
    #[error(
        "POF0: relocated slot {slot:#x}{} cannot hold a pointer under base 0x10: {fault} (base 0 fails too)",
        entry_note(.entry)
    )]
    Pof0NoBase {
        /// Chunk offset of the slot under base 0x10.
        slot: u64,
        /// The POF0 entry naming it (index, chunk offset), given when the
        /// slot lies outside the data.
        entry: Option<(usize, u64)>,
        /// Why it cannot hold a pointer.
        fault: SlotFault,
    },
    /// A POF0 entry encodes distance 0: the slot of the one before, again.
    #[error("POF0: an entry encodes distance 0 (a repeated slot)")]
    Pof0ZeroDistance,
    /// The POF0 entries add up to a slot offset past 32 bits.
    #[error("POF0: slot offset exceeds 32 bits")]
    Pof0SlotPast32Bits,
    /// MCOL: the data (0x10 + data size) ends before the 0x80-byte header does.
    #[error("data size: {data_size:#x} is smaller than the header (0x70)")]
    McolDataSizeInHeader {
        /// The data size word.
        data_size: u32,
    },
    /// MCOL: a block (vertices, triangles, spheres, cells, a list record, a
    /// list) runs past the data end.
    #[error("{what}: {len} bytes at {at:#x} run past the data end {data_end:#x}")]
    McolBlockPastData {
        /// The count or structure that sizes the block.
        what: &'static str,
        /// The block's length in bytes.
        len: u64,
        /// Chunk offset of its first byte.
        at: u64,
        /// The data end (0x10 + data size).
        data_end: u64,
    },
    /// MCOL: an occupied cell's record count (cell +4) is 0, or the counts
    /// so far claim more records than there are relocations.
    #[error(
        "cell record count: {count} (an occupied cell owns at least one list record, and all cells together no more than the {relocations} relocations)"
    )]
    McolCellRecordCount {
        /// The cell's count.
        count: u64,
        /// Number of relocated words.
        relocations: usize,
    },
    /// MCOL: a relocated word is none of the pointer fields (header
    /// 0x54/0x58/0x5C/0x74, cell +8, list record +4).
    #[error(
        "POF0: relocated word at {word:#x} is none of MCOL's pointer fields (header 0x54/0x58/0x5C/0x74, cell +8, list record +4)"
    )]
    McolStrayRelocation {
        /// Chunk offset of the word.
        word: u32,
    },
    /// MCOL: a grid byte at 0x70 is not ceil((max - min) / cell size).
    #[error("grid dimensions: {0}")]
    McolGrid(GridMismatch),
    /// REGN: the data (0x10 + data size) ends inside the 0x88-byte header.
    #[error(
        "data size: {data_size:#x} ends the data at {data_end:#x}, inside the 0x88-byte header"
    )]
    RegnDataSizeInHeader {
        /// The data size word.
        data_size: u32,
        /// The data end it gives (0x10 + data size).
        data_end: u64,
    },
    /// CollisionSet: fewer bytes are left after the last record than a
    /// record's 8-byte prefix.
    #[error(
        "record prefix: record {record} ({}-endian walk): {remaining} trailing bytes, a record needs at least {}",
        .endian.as_str(),
        crate::collisionset::RECORD_FIXED
    )]
    CollisionSetTrailingBytes {
        /// Index of the record the walk expected.
        record: usize,
        /// The walk's byte order.
        endian: Endian,
        /// Bytes left.
        remaining: u64,
    },
    /// CollisionSet: a record's size word (+0) runs past the end of the file.
    #[error(
        "record size: record {record} ({}-endian walk): size word {size} runs past the end of the file ({left} bytes left after the prefix); the walk is desynchronised",
        .endian.as_str()
    )]
    CollisionSetSizePastEnd {
        /// Index of the record.
        record: usize,
        /// The walk's byte order.
        endian: Endian,
        /// The size word.
        size: u64,
        /// Bytes left after the record's 8-byte prefix.
        left: u64,
    },
    /// CollisionSet: a record's name_len (+4) is 0, not a multiple of 8, or
    /// leaves no room for the two counts in the record's size.
    #[error(
        "record name_len: record {record} ({}-endian walk): name_len {name_len} must be a non-zero multiple of 8 (a record has a name) and leave room for the two counts in size {size}",
        .endian.as_str()
    )]
    CollisionSetNameLen {
        /// Index of the record.
        record: usize,
        /// The walk's byte order.
        endian: Endian,
        /// The name_len word.
        name_len: u64,
        /// The size word.
        size: u64,
    },
    /// CollisionSet: a record's size word is not name_len + 8 + 12 nv + 12 nt.
    #[error(
        "record size: record {record} ({}-endian walk): size word {size} != name_len {name_len} + 8 + 12 x {vertices} vertices + 12 x {triangles} triangles = {}; the walk is desynchronised",
        .endian.as_str(),
        .name_len + 8 + 12 * .vertices + 12 * .triangles
    )]
    CollisionSetSizeMismatch {
        /// Index of the record.
        record: usize,
        /// The walk's byte order.
        endian: Endian,
        /// The size word.
        size: u64,
        /// The name_len word.
        name_len: u64,
        /// The vertex count word.
        vertices: u64,
        /// The triangle count word.
        triangles: u64,
    },
    /// CollisionSet: a triangle index is not below the record's vertex count.
    #[error(
        "triangle index: record {record} triangle {triangle} corner {corner}: index {index} must be < vertex count {vertices}"
    )]
    CollisionSetTriangleIndex {
        /// Index of the record.
        record: usize,
        /// Index of the triangle in the record.
        triangle: usize,
        /// Which corner (0, 1, 2).
        corner: usize,
        /// The stored index.
        index: u32,
        /// The record's vertex count.
        vertices: u64,
    },
}

/// " (POF0 entry N at 0x..)" for a slot named by its entry, else nothing.
fn entry_note(entry: &Option<(usize, u64)>) -> String {
    match entry {
        Some((index, at)) => format!(" (POF0 entry {index} at {at:#x})"),
        None => String::new(),
    }
}

/// An MCOL grid byte that disagrees with the box and cell size: axis `axis`
/// has `cells` cells where (max - min) / cell size implies another count
/// (its ceiling, [`crate::chunk::axis_cells`]). Floats compare by their bits.
#[derive(Debug, Clone, Copy)]
pub struct GridMismatch {
    /// 0, 1, 2 for x, y, z.
    pub axis: usize,
    /// The grid byte (0x70 + axis).
    pub cells: u8,
    /// The box's min along the axis.
    pub min: f32,
    /// The box's max along the axis.
    pub max: f32,
    /// The cell size along the axis.
    pub cell_size: f32,
}

impl GridMismatch {
    /// (max - min) / cell size, unrounded, in f64.
    pub fn quotient(&self) -> f64 {
        (f64::from(self.max) - f64::from(self.min)) / f64::from(self.cell_size)
    }
}

impl PartialEq for GridMismatch {
    fn eq(&self, o: &Self) -> bool {
        (self.axis, self.cells) == (o.axis, o.cells)
            && [self.min, self.max, self.cell_size].map(f32::to_bits)
                == [o.min, o.max, o.cell_size].map(f32::to_bits)
    }
}

impl Eq for GridMismatch {}

impl fmt::Display for GridMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "axis {} has {} cells but (max - min) / cell size = ({} - {}) / {} = {}",
            ["x", "y", "z"].get(self.axis).unwrap_or(&"?"),
            self.cells,
            self.max,
            self.min,
            self.cell_size,
            self.quotient()
        )
    }
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
