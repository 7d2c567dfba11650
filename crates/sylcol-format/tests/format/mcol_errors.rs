//! Every kind of bad MCOL input gives a typed error at the right byte
//! offset — never a panic.

use sylcol_format::mcol;
use sylcol_format::{DecodeError, DecodeErrorKind as K, pof0};

fn boxmap() -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../tests/fixtures/box.mcol",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn set_u32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn get_u32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(d[at..at + 4].try_into().unwrap())
}

fn fails(d: &[u8]) -> DecodeError {
    mcol::decode(d).expect_err("should be refused")
}

/// `e` is a count or size that disagrees with the data (of `what`, when
/// given) at byte `offset`.
fn assert_bad_count(e: &DecodeError, what: Option<&str>, offset: u64) {
    let w = match e.kind {
        K::ChunkDataSizePastInput { .. } | K::McolDataSizeInHeader { .. } => "data size",
        K::McolGrid(_) => "grid dimensions",
        K::McolCellRecordCount { .. } => "cell record count",
        K::McolBlockPastData { what, .. } => what,
        _ => panic!("not a count error: {e}"),
    };
    assert!(what.is_none_or(|x| x == w) && e.offset == offset, "{e}");
}

/// Replaces the POF0 table with one built from `slots` (base 0x10).
fn with_slots(d: &[u8], slots: &[u64]) -> Vec<u8> {
    let pof = 0x10 + get_u32(d, 4) as usize;
    let mut out = d[..pof].to_vec();
    let rel: Vec<u64> = slots.iter().map(|s| s - 0x10).collect();
    out.extend(pof0::frame(&pof0::encode_entries(&rel).unwrap()));
    out
}

fn slots_of(d: &[u8]) -> Vec<u64> {
    let m = mcol::decode(d).unwrap();
    let c = sylcol_format::chunk::Chunk::parse(d).unwrap();
    c.slots(m.pof0_base).into_iter().map(u64::from).collect()
}

#[test]
fn truncated() {
    let d = boxmap();
    let e = fails(&d[..0x40]);
    assert!(
        matches!(e.kind, K::Truncated { .. }) && e.offset == 0,
        "{e}"
    );
    // Cut inside the POF0 table.
    let e = fails(&d[..d.len() - 3]);
    assert!(matches!(e.kind, K::Truncated { .. }), "{e}");
    assert_eq!(e.offset, 0x10 + u64::from(get_u32(&d, 4)) + 8);
}

#[test]
fn wrong_magic() {
    let mut d = boxmap();
    d[..4].copy_from_slice(b"MCOX");
    let e = fails(&d);
    assert!(matches!(e.kind, K::BadMagic { .. }) && e.offset == 0, "{e}");
}

#[test]
fn data_size_past_the_end() {
    let mut d = boxmap();
    set_u32(&mut d, 4, 0x0100_0000);
    let e = fails(&d);
    assert_bad_count(&e, Some("data size"), 4);
    // Smaller than the header: the POF0 table at 0x40, inside the header.
    let mut small = boxmap();
    set_u32(&mut small, 4, 0x30);
    let mut small = small[..0x40].to_vec();
    small.extend(pof0::frame(&[]));
    let e = fails(&small);
    assert_eq!(e.offset, 0, "{e}");
    let mut small = boxmap()[..0x80].to_vec();
    set_u32(&mut small, 4, 0x30);
    small.extend(pof0::frame(&[]));
    small.copy_within(0x80..0x88, 0x40);
    let e = fails(&small);
    assert_bad_count(&e, Some("data size"), 4);
}

#[test]
fn pof0_slot_outside_the_data() {
    let d = boxmap();
    let end = 0x10 + u64::from(get_u32(&d, 4));
    let mut slots = slots_of(&d);
    slots.push(end + 0x100);
    let bad = with_slots(&d, &slots);
    let e = fails(&bad);
    assert!(matches!(e.kind, K::Pof0NoBase { .. }), "{e}");
    // The slot lies past the data (a slot may lie past the input too): the
    // error names the POF0 entry that lists it, the last one of the table.
    let last = slots.len() - 1;
    let mut at = end + 8;
    for _ in 0..last {
        at += match bad[at as usize] >> 6 {
            1 => 1,
            2 => 2,
            _ => 4,
        };
    }
    assert_eq!(e.offset, at, "{e}");
    let text = e.to_string();
    let named = format!(
        "relocated slot {:#x} (POF0 entry {last} at {at:#x})",
        end + 0x100
    );
    assert!(text.contains(&named), "{e}");
}

#[test]
fn pointer_into_the_header() {
    let mut d = boxmap();
    set_u32(&mut d, 0x54, 0x20);
    let e = fails(&d);
    assert!(
        matches!(e.kind, K::BadPointer { .. }) && e.offset == 0x54,
        "{e}"
    );
    assert!(e.to_string().contains("header"), "{e}");
}

#[test]
fn pointer_past_the_end() {
    let mut d = boxmap();
    set_u32(&mut d, 0x58, 0x00FF_0000);
    let e = fails(&d);
    assert_eq!(e.offset, 0x58, "{e}");
    assert!(e.to_string().contains("past the data end"), "{e}");
}

#[test]
fn header_pointer_not_relocated() {
    let d = boxmap();
    let slots: Vec<u64> = slots_of(&d).into_iter().filter(|&s| s != 0x58).collect();
    let e = fails(&with_slots(&d, &slots));
    assert!(
        matches!(e.kind, K::BadPointer { .. }) && e.offset == 0x58,
        "{e}"
    );
}

#[test]
fn a_relocation_that_is_no_pointer_field() {
    let d = boxmap();
    let mut slots = slots_of(&d);
    slots.push(0x90); // inside the sphere block; holds a small value
    slots.sort_unstable();
    let e = fails(&with_slots(&d, &slots));
    assert!(
        matches!(e.kind, K::McolStrayRelocation { word: 0x90 }) && e.offset == 0x90,
        "{e}"
    );
}

#[test]
fn counts_that_do_not_fit_their_blocks() {
    // A vertex count running past the data.
    let mut d = boxmap();
    d[0x50..0x52].copy_from_slice(&0xFFFFu16.to_be_bytes());
    let e = fails(&d);
    assert_bad_count(&e, None, 0x54);
    // A vertex count whose block runs into the triangles.
    let mut d = boxmap();
    d[0x50..0x52].copy_from_slice(&9u16.to_be_bytes());
    let e = fails(&d);
    assert!(matches!(e.kind, K::Overlap { .. }), "{e}");
    // A list record whose count runs past the data.
    let mut d = boxmap();
    let m = mcol::decode(&d).unwrap();
    let rec = m.layout.unwrap().records[0] as usize;
    set_u32(&mut d, rec, 0x0010_0000);
    let e = fails(&d);
    assert_bad_count(&e, None, rec as u64);
    // An occupied cell claiming zero records.
    let mut d = boxmap();
    let cells = 0x10 + get_u32(&d, 0x74) as usize;
    set_u32(&mut d, cells + 4, 0);
    let e = fails(&d);
    assert_bad_count(&e, None, cells as u64 + 4);
}

#[test]
fn list_entry_out_of_range() {
    let mut d = boxmap();
    let m = mcol::decode(&d).unwrap();
    let list = m.layout.unwrap().lists[3] as usize;
    d[list..list + 2].copy_from_slice(&12u16.to_be_bytes());
    let e = fails(&d);
    assert!(
        matches!(
            e.kind,
            K::IndexOutOfRange {
                index: 12,
                limit: 12,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset, list as u64);
}

#[test]
fn triangle_index_out_of_range() {
    let mut d = boxmap();
    let tris = 0x10 + get_u32(&d, 0x58) as usize;
    d[tris + 4..tris + 6].copy_from_slice(&8u16.to_be_bytes());
    let e = fails(&d);
    assert!(
        matches!(
            e.kind,
            K::IndexOutOfRange {
                index: 8,
                limit: 8,
                ..
            }
        ) && e.offset == tris as u64 + 4,
        "{e}"
    );
}

#[test]
fn grid_disagrees_with_bbox_and_cell_size() {
    let mut d = boxmap();
    d[0x71] = 9;
    let e = fails(&d);
    assert_bad_count(&e, Some("grid dimensions"), 0x71);
    let mut d = boxmap();
    set_u32(&mut d, 0x48, 0f32.to_bits());
    let e = fails(&d);
    assert_eq!(e.offset, 0x72, "{e}");
}

#[test]
fn overlapping_records_are_refused() {
    // Two cells whose records would overlap by 16 bytes.
    let mut d = boxmap();
    let m = mcol::decode(&d).unwrap();
    let cells = 0x10 + get_u32(&d, 0x74) as usize;
    let occupied = m.cells.iter().position(|c| c.record().is_some()).unwrap();
    let at = cells + 32 * occupied + 8;
    let v = get_u32(&d, at);
    set_u32(&mut d, at, v + 16);
    let e = fails(&d);
    assert!(
        e.to_string().contains("overlaps") || e.to_string().contains("relocated"),
        "{e}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// Arbitrary corruption never panics; a decode that succeeds re-encodes
    /// to the same bytes.
    #[test]
    fn corruption_never_panics(
        edits in proptest::collection::vec((0usize..50704, proptest::prelude::any::<u8>()), 1..8),
        cut in 0usize..60000,
    ) {
        let mut d = std::fs::read(format!("{}/../../tests/fixtures/twin.mcol", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for (at, b) in edits {
            let n = d.len();
            d[at % n] = b;
        }
        d.truncate(cut.max(1));
        if let Ok(m) = mcol::decode(&d) {
            proptest::prop_assert_eq!(mcol::encode(&m).unwrap(), d);
        }
    }
}
