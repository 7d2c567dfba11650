//! The named error variants of issue 34 for the IPFB index, Z1, IDXD /
//! IXUD and archive writer rules print the words the free-text kinds they
//! replace printed (the CLI's text and JSON compare messages): each
//! expected line is the old `format!` with the same values filled in.

use sylcol_format::{DecodeErrorKind as K, EncodeError as E};

fn text(kind: K) -> String {
    kind.to_string()
}

#[test]
fn idxd_decode_messages_are_unchanged() {
    let records = K::IdxdRecordsFit {
        what: "pair count",
        count: 1000,
        record_size: 12,
        at: 0x3c,
        available: 16,
    };
    assert_eq!(
        text(records),
        "pair count: 1000 records of 12 bytes (and the 4-byte word after them) need 12004 bytes at 0x3c, only 16 remain"
    );
    let idxd = K::IdxdPoolSizeFits {
        size: 9,
        remaining: 4,
    };
    assert_eq!(text(idxd), "pool size: 9 bytes, only 4 remain");
    let odd = K::IxudPoolSizeFits {
        size: 15,
        remaining: 8,
    };
    assert_eq!(
        text(odd),
        "pool size: 15 read as bytes (odd: not whole UTF-16 units) or as 2-byte units (30 bytes) does not fit the 8 bytes that remain"
    );
    let even = K::IxudPoolSizeFits {
        size: 0xFFFF_FFFE,
        remaining: 8,
    };
    assert_eq!(
        text(even),
        "pool size: 4294967294 read as bytes or as 2-byte units (8589934588 bytes) does not fit the 8 bytes that remain"
    );
}

#[test]
fn index_messages_are_unchanged() {
    let hidden = K::IndexEndsAtZeroHash {
        slot: 2,
        hidden: 1,
        declared: 4,
    };
    assert_eq!(
        text(hidden),
        "IPFB entry table: a zero hash in slot 2 ends the table (the game stops there too), but 1 of the 4 declared slots after it hold a hash: those entries are never read"
    );
    assert_eq!(
        text(K::IndexAlignmentWord { found: 0x10 }),
        "alignment word is 0x10, the game's archives use 0x800"
    );
    assert_eq!(
        text(K::IndexPartSizeWord { found: 0 }),
        "part size word is 0x0, expected 0x10000000; locations are still read as part << 28 | offset"
    );
    let order = K::IndexHashOrder {
        previous: 0xA,
        hash: 0x2CF7_EB47,
    };
    assert_eq!(
        text(order),
        "hash out of order: 2CF7EB47 follows 0000000A (entries must be sorted by unsigned hash)"
    );
    assert_eq!(
        text(K::IndexHashUnique { hash: 5 }),
        "duplicate hash: 00000005 follows 00000005 (entries must be sorted by unsigned hash)"
    );
    let missing = K::PartFilePresent {
        part: 1,
        file: "Test.p01".into(),
        archive: "dir/Test.pak".into(),
    };
    assert_eq!(
        text(missing),
        "part file Test.p01 is missing next to dir/Test.pak"
    );
}

#[test]
fn z1_messages_are_unchanged() {
    assert_eq!(
        text(K::ZlibHeader {
            cmf: 0x79,
            flg: 0x0A
        }),
        "zlib header 79 0A is not a deflate stream without a preset dictionary"
    );
    let possible = K::Z1SizePossible {
        size: u32::MAX,
        deflate_len: 10,
        limit: 11352,
    };
    assert_eq!(
        text(possible),
        "Z1 declared size: 4294967295 bytes, more than 10 deflate bytes can hold (at most 11352)"
    );
    assert_eq!(text(K::DeflateProgress), "deflate data makes no progress");
    let corrupt = K::DeflateData {
        cause: "invalid block type".into(),
    };
    assert_eq!(text(corrupt), "corrupt deflate data: invalid block type");
    let short = K::Z1SizeReached {
        declared: 200_001,
        inflated: 200_000,
    };
    assert_eq!(
        text(short),
        "Z1 declared size: 200001 bytes, but the stream inflates to 200000"
    );
    assert_eq!(
        text(K::Z1SizeNotPassed { declared: 1000 }),
        "Z1 declared size: 1000 bytes, but the stream inflates past it (stopped there)"
    );
    let trailer = K::ZlibTrailerAdler {
        stored: 0x11E6_0398,
        computed: 1,
    };
    assert_eq!(
        text(trailer),
        "zlib trailer Adler-32 11E60398 does not match the inflated data's 00000001"
    );
    let header = K::Z1HeaderAdler {
        stored: 0xAB,
        computed: 0x11E6_0398,
    };
    assert_eq!(
        text(header),
        "Z1 header Adler-32 000000AB does not match the inflated data's 11E60398"
    );
    let read = K::ReadFailed {
        cause: "disk on fire".into(),
    };
    assert_eq!(text(read), "read failed: disk on fire");
}

#[test]
fn encode_messages_are_unchanged() {
    let cases = [
        (
            E::IxudPoolWholeUnits { bytes: 7 },
            "an IXUD pool holds whole 2-byte units; this one has 7 bytes",
        ),
        (
            E::IdxdPoolSizeInBytes,
            "an IDXD pool size counts bytes (its unit is a byte)",
        ),
        (
            E::Compression {
                cause: "no space".into(),
            },
            "zlib compression failed: no space",
        ),
        (
            E::RawEntryNotZ1,
            "a raw entry starting with \"Z1\" would read back as compressed; compress it",
        ),
        (
            E::HashNotZero,
            "hash 00000000 ends an index; no entry may have it",
        ),
        (
            E::SourceLength {
                expected: 4,
                got: 3,
            },
            "the source gave 3 bytes, 4 were expected (did the file change?)",
        ),
        (
            E::SourceRead {
                cause: "gone".into(),
            },
            "cannot read: gone",
        ),
        (
            E::KeptSpanInPart { len: 2048 },
            "its 2048 stored bytes are kept, but the source part does not hold them",
        ),
    ];
    for (error, expected) in cases {
        assert_eq!(error.to_string(), expected);
    }
}
