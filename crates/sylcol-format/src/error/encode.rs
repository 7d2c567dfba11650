//! Why a model cannot be written: one named variant per rule.

use super::GridMismatch;

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

    // chunk, POF0, MCOL, REGN, CollisionSet rules
    /// POF0 slots must be ascending without duplicates.
    #[error("POF0 slots must be ascending without duplicates: {slot:#x} after {previous:#x}")]
    Pof0NotAscending {
        /// The slot (base-relative).
        slot: u64,
        /// The slot before it.
        previous: u64,
    },
    /// The first POF0 slot is the base itself (distance 0).
    #[error("POF0 slot 0 coincides with the base")]
    Pof0SlotAtBase,
    /// A POF0 slot is not a multiple of 4 bytes from the one before (or the base).
    #[error("POF0 slot {slot:#x} is not a multiple of 4 from {from:#x}")]
    Pof0Misaligned {
        /// The slot (base-relative).
        slot: u64,
        /// The slot before it, or 0 (the base).
        from: u64,
    },
    /// A relocated slot lies before the POF0 base its table is measured from.
    #[error("slot {slot:#x} lies before the POF0 base {base:#x}")]
    Pof0SlotBeforeBase {
        /// Chunk offset of the slot.
        slot: u64,
        /// The POF0 base.
        base: u32,
    },
    /// MCOL: one sphere per triangle.
    #[error("{spheres} spheres for {triangles} triangles (one per triangle)")]
    McolSpheres {
        /// Number of spheres.
        spheres: usize,
        /// Number of triangles.
        triangles: usize,
    },
    /// MCOL: one cell per grid cell (nx * ny * nz).
    #[error("{cells} cells for a {dims:?} grid")]
    McolCells {
        /// Number of cells.
        cells: usize,
        /// The grid (nx, ny, nz).
        dims: [usize; 3],
    },
    /// MCOL: a grid byte is not ceil((max - min) / cell size).
    #[error("grid dimensions: {0}")]
    McolGrid(GridMismatch),
    /// MCOL: the POF0 base must be a multiple of 4 at most 0x54 (the first slot).
    #[error("POF0 base {base:#x} must be a multiple of 4 below the first slot")]
    McolPof0Base {
        /// The model's POF0 base.
        base: u32,
    },
    /// MCOL: a triangle indexes past the vertices.
    #[error("triangle {triangle:?} indexes past {vertices} vertices")]
    McolTriangleIndex {
        /// The triangle's vertex indices.
        triangle: [u16; 3],
        /// Number of vertices.
        vertices: usize,
    },
    /// MCOL: a list record names a triangle past the triangles.
    #[error("list record {record} names a triangle past {triangles}")]
    McolListTriangle {
        /// Index of the list record.
        record: usize,
        /// Number of triangles.
        triangles: usize,
    },
    /// MCOL: an occupied cell links records past the list records (or none).
    #[error("cell {cell} links records {first}..{} of {records}", u64::from(*.first) + u64::from(*.count))]
    McolCellLink {
        /// Index of the cell.
        cell: usize,
        /// Its first record.
        first: u32,
        /// Its record count.
        count: u32,
        /// Number of list records.
        records: usize,
    },
    /// REGN: relocated slots must be ascending without duplicates.
    #[error("relocated slots must be ascending without duplicates")]
    RegnSlotsNotAscending,
    /// REGN: laid out afresh, the last section may not be empty.
    #[error("the last section is empty: its pointer would address the data end, outside the data")]
    RegnLastSectionEmpty,
    /// CollisionSet: a library holds at least one record.
    #[error("a CollisionSet holds at least one record (an empty one would encode to 0 bytes)")]
    CollisionSetEmpty,
    /// CollisionSet: a new record's name must be non-empty printable ASCII
    /// without spaces.
    #[error("record name {name:?}: must be non-empty printable ASCII without spaces")]
    CollisionSetRecordName {
        /// The name refused.
        name: String,
    },
    /// CollisionSet: a record's name field must be a non-empty multiple of 8 bytes.
    #[error(
        "record {record} ({name:?}): name field of {len} bytes must be a non-empty multiple of 8"
    )]
    CollisionSetNameField {
        /// Index of the record.
        record: usize,
        /// Its name.
        name: String,
        /// The name field's length.
        len: usize,
    },
    /// CollisionSet: a triangle index must be below the record's vertex count.
    #[error(
        "record {record} ({name:?}) triangle {triangle}: index {index} must be < vertex count {vertices}"
    )]
    CollisionSetTriangleIndex {
        /// Index of the record.
        record: usize,
        /// Its name.
        name: String,
        /// Index of the triangle in the record.
        triangle: usize,
        /// The index.
        index: u32,
        /// The record's vertex count.
        vertices: u64,
    },
}
