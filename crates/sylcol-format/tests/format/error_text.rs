//! The named errors of the chunk, POF0, MCOL, REGN and CollisionSet rules
//! say word for word what the prose errors they replace said (the CLI
//! prints them; scripts may match them).

use sylcol_format::chunk::SlotFault;
use sylcol_format::collisionset::Endian;
use sylcol_format::{DecodeErrorKind as K, EncodeError as E};

fn said(kind: K) -> String {
    kind.to_string()
}

#[test]
fn decode_errors() {
    let cases = [
        (
            K::ChunkDataSizePastInput {
                data_size: 0x1000,
                pof0_offset: 0x1010,
                input_len: 48,
            },
            "data size: 0x1000 puts the POF0 table at 0x1010, past the end of the 48-byte input",
        ),
        (
            K::Pof0NoBase {
                slot: 0xad9c_f790,
                entry: Some((7, 0x1486)),
                fault: SlotFault::Outside { data_end: 0x1460 },
            },
            "POF0: relocated slot 0xad9cf790 (POF0 entry 7 at 0x1486) cannot hold a pointer under \
             base 0x10: the slot lies outside the data (0x10..0x1460) (base 0 fails too)",
        ),
        (
            K::Pof0NoBase {
                slot: 0x18,
                entry: None,
                fault: SlotFault::PastData {
                    value: 0x4000,
                    target: 0x4010,
                    data_end: 0x30,
                },
            },
            "POF0: relocated slot 0x18 cannot hold a pointer under base 0x10: it holds 0x4000, \
             whose target 0x4010 lies past the data end 0x30 (base 0 fails too)",
        ),
        (
            K::Pof0ZeroDistance,
            "POF0: an entry encodes distance 0 (a repeated slot)",
        ),
        (K::Pof0SlotPast32Bits, "POF0: slot offset exceeds 32 bits"),
        (
            K::McolDataSizeInHeader { data_size: 0x30 },
            "data size: 0x30 is smaller than the header (0x70)",
        ),
        (
            K::McolBlockPastData {
                what: "vertex count (0x50)",
                len: 786_420,
                at: 0x90,
                data_end: 0xc630,
            },
            "vertex count (0x50): 786420 bytes at 0x90 run past the data end 0xc630",
        ),
        (
            K::McolCellRecordCount {
                count: 0,
                relocations: 12,
            },
            "cell record count: 0 (an occupied cell owns at least one list record, and all cells \
             together no more than the 12 relocations)",
        ),
        (
            K::McolStrayRelocation { word: 0x90 },
            "POF0: relocated word at 0x90 is none of MCOL's pointer fields (header \
             0x54/0x58/0x5C/0x74, cell +8, list record +4)",
        ),
        (
            K::RegnDataSizeInHeader {
                data_size: 0x40,
                data_end: 0x50,
            },
            "data size: 0x40 ends the data at 0x50, inside the 0x88-byte header",
        ),
    ];
    for (kind, text) in cases {
        assert_eq!(said(kind), text);
    }
}

#[test]
fn grid_mismatch_prints_its_floats_as_before() {
    let m = sylcol_format::mcol::GridMismatch {
        axis: 1,
        cells: 9,
        min: -25_000.0,
        max: 25_000.0,
        cell_size: 10_000.0,
    };
    let text = "grid dimensions: axis y has 9 cells but (max - min) / cell size = \
                (25000 - -25000) / 10000 = 5";
    assert_eq!(said(K::McolGrid(m)), text);
    assert_eq!(E::McolGrid(m).to_string(), text);
    let m = sylcol_format::mcol::GridMismatch {
        cell_size: 0.0,
        ..m
    };
    assert!(said(K::McolGrid(m)).ends_with("/ 0 = inf"));
}

#[test]
fn collisionset_decode_errors() {
    let (record, endian) = (3, Endian::Little);
    let cases = [
        (
            K::CollisionSetTrailingBytes {
                record,
                endian,
                remaining: 3,
            },
            "record prefix: record 3 (little-endian walk): 3 trailing bytes, a record needs at \
             least 16",
        ),
        (
            K::CollisionSetSizePastEnd {
                record,
                endian,
                size: 4096,
                left: 100,
            },
            "record size: record 3 (little-endian walk): size word 4096 runs past the end of the \
             file (100 bytes left after the prefix); the walk is desynchronised",
        ),
        (
            K::CollisionSetNameLen {
                record,
                endian: Endian::Big,
                name_len: 12,
                size: 164,
            },
            "record name_len: record 3 (big-endian walk): name_len 12 must be a non-zero multiple \
             of 8 (a record has a name) and leave room for the two counts in size 164",
        ),
        (
            K::CollisionSetSizeMismatch {
                record,
                endian,
                size: 176,
                name_len: 24,
                vertices: 4,
                triangles: 8,
            },
            "record size: record 3 (little-endian walk): size word 176 != name_len 24 + 8 + 12 x 4 \
             vertices + 12 x 8 triangles = 176; the walk is desynchronised",
        ),
        (
            K::CollisionSetTriangleIndex {
                record,
                triangle: 0,
                corner: 2,
                index: 4,
                vertices: 4,
            },
            "triangle index: record 3 triangle 0 corner 2: index 4 must be < vertex count 4",
        ),
    ];
    for (kind, text) in cases {
        assert_eq!(said(kind), text);
    }
}

#[test]
fn encode_errors() {
    let cases = [
        (
            E::Pof0NotAscending {
                slot: 8,
                previous: 8,
            },
            "POF0 slots must be ascending without duplicates: 0x8 after 0x8",
        ),
        (E::Pof0SlotAtBase, "POF0 slot 0 coincides with the base"),
        (
            E::Pof0Misaligned { slot: 6, from: 0 },
            "POF0 slot 0x6 is not a multiple of 4 from 0x0",
        ),
        (
            E::Pof0SlotBeforeBase {
                slot: 8,
                base: 0x10,
            },
            "slot 0x8 lies before the POF0 base 0x10",
        ),
        (
            E::McolSpheres {
                spheres: 11,
                triangles: 12,
            },
            "11 spheres for 12 triangles (one per triangle)",
        ),
        (
            E::McolCells {
                cells: 26,
                dims: [3, 3, 3],
            },
            "26 cells for a [3, 3, 3] grid",
        ),
        (
            E::McolPof0Base { base: 0x56 },
            "POF0 base 0x56 must be a multiple of 4 below the first slot",
        ),
        (
            E::McolTriangleIndex {
                triangle: [0, 1, 8],
                vertices: 8,
            },
            "triangle [0, 1, 8] indexes past 8 vertices",
        ),
        (
            E::McolListTriangle {
                record: 2,
                triangles: 12,
            },
            "list record 2 names a triangle past 12",
        ),
        (
            E::McolCellLink {
                cell: 5,
                first: 3,
                count: 2,
                records: 4,
            },
            "cell 5 links records 3..5 of 4",
        ),
        (
            E::RegnSlotsNotAscending,
            "relocated slots must be ascending without duplicates",
        ),
        (
            E::RegnLastSectionEmpty,
            "the last section is empty: its pointer would address the data end, outside the data",
        ),
        (
            E::CollisionSetEmpty,
            "a CollisionSet holds at least one record (an empty one would encode to 0 bytes)",
        ),
        (
            E::CollisionSetRecordName { name: "a b".into() },
            "record name \"a b\": must be non-empty printable ASCII without spaces",
        ),
        (
            E::CollisionSetNameField {
                record: 1,
                name: "rou_e010".into(),
                len: 13,
            },
            "record 1 (\"rou_e010\"): name field of 13 bytes must be a non-empty multiple of 8",
        ),
        (
            E::CollisionSetTriangleIndex {
                record: 1,
                name: "rou_e010".into(),
                triangle: 0,
                index: 9,
                vertices: 4,
            },
            "record 1 (\"rou_e010\") triangle 0: index 9 must be < vertex count 4",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
}
