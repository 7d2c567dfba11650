//! REGN: a chunk laid out by hand from the stated layout, its assumptions,
//! damaged copies, and properties.

use proptest::prelude::*;

use super::*;
use crate::error::DecodeErrorKind;

fn be(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn f(words: &[f32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// Section bytes of the hand-laid chunk: sparse cell records (32 bytes:
/// index, count 1, item number, 0, sphere), 8-byte items, u16 refs,
/// 16-byte tetrahedra, 12-byte vertices, 8-byte faces.
fn sections() -> [(u16, Vec<u8>); 6] {
    let mut cells = vec![0, 0, 0, 1];
    cells.extend(be(&[1, 0, 0, 0, 0, 0, 0]));
    cells.extend([4, 4, 4, 1]);
    cells.extend(be(&[1, 1, 0, 0, 0, 0, 0]));
    let items = be(&[0, 2, 2, 2]);
    let refs = vec![0, 0, 0, 1, 0, 0, 0, 0];
    let tets = be(&[0, 1, 2, 3]);
    let verts = f(&[
        0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0, 100.0,
    ]);
    let faces = be(&[0x0001_0002, 3, 0x0001_0003, 2]);
    [
        (2, cells),
        (2, items),
        (4, refs),
        (1, tets),
        (4, verts),
        (2, faces),
    ]
}

/// The whole chunk, written word by word (POF0 encoded by hand: slots
/// 0x70..0x84 from base 0x10 are 0x58, then five 0x41).
fn hand_regn() -> Vec<u8> {
    let mut d = b"REGN".to_vec();
    let body: usize = sections().iter().map(|s| s.1.len()).sum();
    d.extend(be(&[(0x88 + body - 0x10) as u32, 0xAAAA_AAAA, 0xBBBB_BBBB]));
    d.extend(f(&[-25_000.0, -25_000.0, -25_000.0, 1.0]));
    d.extend(f(&[25_000.0, 25_000.0, 25_000.0, 1.0]));
    d.extend(f(&[50_000.0, 50_000.0, 50_000.0, 0.0]));
    d.extend(f(&[10_000.0, 10_000.0, 10_000.0]));
    d.extend(be(&[0x4C4C_4C4C, 5, 5, 5, 0x5C5C_5C5C]));
    for (count, _) in sections() {
        d.extend(count.to_be_bytes());
    }
    d.extend(be(&[0x6C6C_6C6C]));
    let mut at = 0x88u32;
    for (_, bytes) in sections() {
        d.extend(be(&[at - 0x10]));
        at += bytes.len() as u32;
    }
    assert_eq!(d.len(), 0x88);
    for (_, bytes) in sections() {
        d.extend(bytes);
    }
    d.extend(b"POF0");
    d.extend(be(&[8]));
    d.extend([0x58, 0x41, 0x41, 0x41, 0x41, 0x41, 0, 0]);
    d
}

#[test]
fn decodes_the_hand_laid_chunk() {
    let bytes = hand_regn();
    let r = decode(&bytes).unwrap();
    assert_eq!(r.pof0_base, 0x10);
    assert_eq!(r.slots, POINTER_SLOTS);
    assert_eq!(r.header.prefix.bbox_min, [-25_000.0; 3]);
    assert_eq!(r.header.prefix.cell_size, [10_000.0; 3]);
    assert_eq!(r.header.counts, [2, 2, 4, 1, 4, 2]);
    assert_eq!(r.header.prefix.word_08, [0xAAAA_AAAA, 0xBBBB_BBBB]);
    assert_eq!(
        (r.header.prefix.word_4c, r.header.word_6c),
        (0x4C4C_4C4C, 0x6C6C_6C6C)
    );
    let s = r.sections();
    let spans: Vec<_> = s.iter().map(|s| s.span.unwrap()).collect();
    assert_eq!(spans, [64, 16, 8, 16, 48, 16]);
    let strides: Vec<_> = s.iter().map(|s| s.stride.unwrap()).collect();
    assert_eq!(strides, [32, 8, 2, 16, 12, 8]);
    assert_eq!(s[0].target, Some(0x88));
    assert_eq!(s[4].count_at, 0x68);
    assert_eq!(r.vertex_section().map(|v| v.index), Some(4));
    assert_eq!(r.vertices().unwrap()[3], [0.0, 0.0, 100.0]);
    assert_eq!(
        grid_reading(&r),
        Some(GridReading {
            encoding: GridEncoding::U32,
            dims: [5; 3]
        })
    );
    assert_eq!(encode(&r).unwrap(), bytes);
}

#[test]
fn every_assumption_holds_on_the_hand_laid_chunk() {
    let r = decode(&hand_regn()).unwrap();
    let all = assumptions(&r);
    assert_eq!(all.len(), Rule::ALL.len());
    for a in &all {
        assert!(a.holds(), "{:?}: {:?}", a.rule, a.breaks);
        assert!(a.cases > 0, "{:?} tested nothing", a.rule);
    }
    let scan = cell_scan(&r, [5; 3]);
    assert_eq!(scan.len(), 1);
    assert_eq!(scan[0].section.index, 0);
    assert_eq!(scan[0].occupied, [0x88, 0xA8]);
}

/// The assumption `rule` on `bytes`, which must still decode.
fn broken(bytes: &[u8], rule: Rule) -> Assumption {
    let r = decode(bytes).unwrap();
    assert_eq!(
        encode(&r).unwrap(),
        bytes,
        "a damaged chunk still rewrites exactly"
    );
    assumptions(&r)
        .into_iter()
        .find(|a| a.rule == rule)
        .unwrap()
}

#[test]
fn each_break_is_reported_at_its_offset() {
    let base = hand_regn();
    // A pointer the POF0 table does not list (drop the last entry).
    let mut d = base.clone();
    let pof0 = d.len() - 8;
    d[pof0 + 5] = 0;
    let a = broken(&d, Rule::PointersRelocated);
    assert_eq!((a.held, a.cases, a.breaks[0].offset), (5, 6, 0x84));
    // A count that does not divide its span: section 2 (u16 at 0x64) = 3.
    let mut d = base.clone();
    d[0x65] = 3;
    let a = broken(&d, Rule::SpansDivide);
    assert_eq!((a.held, a.breaks[0].offset), (5, 0x64));
    assert!(a.breaks[0].detail.contains("8 bytes"), "{:?}", a.breaks);
    // A cell whose count is 2 (second record's count word at 0xA8 + 4).
    let mut d = base.clone();
    d[0xAF] = 2;
    let a = broken(&d, Rule::CellCountOne);
    assert_eq!((a.held, a.cases, a.breaks[0].offset), (1, 2, 0xAC));
    // A grid that does not match: 0x58 (z as u32) = 6.
    let mut d = base.clone();
    d[0x5B] = 6;
    assert_eq!(broken(&d, Rule::GridDims).breaks[0].offset, 0x50);
    // Pad and extent.
    let mut d = base.clone();
    d[0x2C..0x30].copy_from_slice(&0.5f32.to_be_bytes());
    assert_eq!(broken(&d, Rule::Pads).breaks[0].offset, 0x2C);
    let mut d = base.clone();
    d[0x34..0x38].copy_from_slice(&1.0f32.to_be_bytes());
    assert_eq!(broken(&d, Rule::Extent).breaks[0].offset, 0x34);
    // A second cell-like section: no single cell section, no count check.
    let mut d = base.clone();
    d[0x88..0x8C].copy_from_slice(&[9, 0, 0, 1]);
    let a = broken(&d, Rule::CellSection);
    assert_eq!((a.held, a.breaks[0].offset), (0, 0x70));
    // No section but the cells' has 2 records (items and faces: 4).
    let mut d = base;
    d[0x63] = 4;
    d[0x6B] = 4;
    let a = broken(&d, Rule::ItemsPerCell);
    assert_eq!(a.breaks[0].offset, 0x60);
}

#[test]
fn a_relocated_header_word_that_is_no_pointer_is_reported() {
    let mut d = hand_regn();
    // Relocate 0x4C too: entries from base 0x10 are 0x3C/4 = 15, then 0x70 - 0x4C = 9 words.
    let pof0 = d.len() - 16;
    d.truncate(pof0);
    d[0x4C..0x50].copy_from_slice(&0x80u32.to_be_bytes());
    d.extend(b"POF0");
    d.extend(be(&[8]));
    d.extend([0x4F, 0x49, 0x41, 0x41, 0x41, 0x41, 0x41, 0]);
    let a = broken(&d, Rule::HeaderSlots);
    assert_eq!((a.held, a.cases, a.breaks[0].offset), (6, 7, 0x4C));
}

#[test]
fn decode_errors_name_the_offset() {
    let base = hand_regn();
    let err = |d: &[u8]| decode(d).unwrap_err();
    let mut d = base.clone();
    d[..4].copy_from_slice(b"MCOL");
    assert!(matches!(err(&d).kind, DecodeErrorKind::BadMagic { .. }));
    assert_eq!(err(&base[..0x80]).offset, 0);
    // A data size past the end.
    let mut d = base.clone();
    d[4..8].copy_from_slice(&0x1_0000u32.to_be_bytes());
    assert_eq!(err(&d).offset, 4);
    // A data size inside the header (and a POF0 table there).
    let mut d = base.clone();
    d[4..8].copy_from_slice(&0x10u32.to_be_bytes());
    assert!(decode(&d).is_err());
    // A section pointer past the data.
    let mut d = base.clone();
    d[0x74..0x78].copy_from_slice(&0x9000u32.to_be_bytes());
    assert_eq!(err(&d).offset, 0x74);
    // A section pointer into the header.
    let mut d = base;
    d[0x78..0x7C].copy_from_slice(&0x20u32.to_be_bytes());
    let e = err(&d);
    assert_eq!(e.offset, 0x78);
    assert!(e.to_string().contains("header"), "{e}");
}

#[test]
fn from_sections_lays_out_what_decode_reads() {
    let header = decode(&hand_regn()).unwrap().header;
    let new = sections().map(|(count, bytes)| NewSection { count, bytes });
    let r = from_sections(header, new).unwrap();
    assert_eq!(encode(&r).unwrap(), hand_regn());
    let mut empty_last = sections().map(|(count, bytes)| NewSection { count, bytes });
    empty_last[5].bytes.clear();
    assert!(from_sections(header, empty_last).is_err());
}

proptest! {
    #[test]
    fn damaged_chunks_never_panic(at in 0usize..400, value in any::<u8>(), cut in 0usize..420) {
        let mut d = hand_regn();
        if at < d.len() {
            d[at] = value;
        }
        d.truncate(cut.max(1));
        if let Ok(r) = decode(&d) {
            prop_assert_eq!(encode(&r).unwrap(), d);
            let _ = assumptions(&r);
        }
    }

    #[test]
    fn any_sections_round_trip(lens in proptest::collection::vec(0usize..40, 6), counts in proptest::collection::vec(any::<u16>(), 6)) {
        let header = decode(&hand_regn()).unwrap().header;
        let new: [NewSection; 6] = std::array::from_fn(|i| NewSection {
            count: counts[i],
            bytes: vec![i as u8 + 1; if i == 5 { lens[i] + 1 } else { lens[i] }],
        });
        let r = from_sections(header, new).unwrap();
        let bytes = encode(&r).unwrap();
        let back = decode(&bytes).unwrap();
        prop_assert_eq!(&back, &r);
        for s in back.sections() {
            let len = if s.index == 5 { lens[5] + 1 } else { lens[s.index] };
            // Empty sections share the next one's target and so its span.
            if len > 0 {
                prop_assert_eq!(s.span, Some(len as u64));
            }
        }
    }
}
