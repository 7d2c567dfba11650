//! REGN and IDXD / IXUD on the hand-made fixtures written by
//! `tests/fixtures/make_fixtures.py`, an independent writer that follows
//! docs/formats/regn.md and idxd.md (values below are the writer's).

use sylcol_format::idxd::{self, Flavour, Lookup, NO_STRING, PoolSizeUnit};
use sylcol_format::ipfb::make_entry_id;
use sylcol_format::regn::{self, GridEncoding, Rule};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn twin_regn_reads_as_the_writer_laid_it_out() {
    let bytes = fixture("twin.regn");
    let r = regn::decode(&bytes).unwrap();
    assert_eq!(regn::encode(&r).unwrap(), bytes);
    assert_eq!(r.header.prefix.bbox_min, [-25_000.0; 3]);
    assert_eq!(r.header.prefix.cell_size, [10_000.0; 3]);
    let grid = regn::grid_reading(&r).unwrap();
    assert_eq!((grid.encoding, grid.dims), (GridEncoding::U32, [5, 5, 5]));
    // 125 dense cells, 63 items, 63 * 1.5 rounded refs, 8 tets, 14 verts, 16 faces.
    assert_eq!(r.header.counts, [125, 63, 94, 8, 14, 16]);
    let strides: Vec<_> = r.sections().iter().map(|s| s.stride).collect();
    assert_eq!(
        strides,
        [Some(32), Some(8), Some(2), Some(8), Some(12), Some(8)]
    );
    // Stored out of pointer order: vertices first, right after the header.
    assert_eq!(r.sections()[4].target, Some(0x88));
    let v = r.vertices().unwrap();
    assert_eq!(v.len(), 14);
    assert_eq!(v[12], [-9000.0, -7000.0, 3000.0]);
    // The six header pointers plus one relocated word per occupied cell.
    assert_eq!(r.slots.len(), 6 + 63);
    for a in regn::assumptions(&r) {
        assert!(a.holds() && a.cases > 0, "{:?} {:?}", a.rule, a.breaks);
    }
    let scan = regn::cell_scan(&r, grid.dims);
    assert_eq!(scan.len(), 1);
    assert_eq!((scan[0].occupied.len(), scan[0].empty), (63, 62));
}

#[test]
fn quirks_regn_decodes_and_reports_every_break() {
    let bytes = fixture("quirks.regn");
    let r = regn::decode(&bytes).unwrap();
    assert_eq!(regn::encode(&r).unwrap(), bytes);
    assert_eq!(r.pof0_base, 0);
    assert_eq!(r.trailer, b"TAIL");
    assert_eq!(&r.body[..16], (0x80..0x90).collect::<Vec<u8>>());
    let all = regn::assumptions(&r);
    let get = |rule| all.iter().find(|a| a.rule == rule).unwrap();
    let p = get(Rule::PointersRelocated);
    assert_eq!((p.held, p.breaks[0].offset), (5, 0x84));
    // The vertices' span runs over the padding and over the faces, whose
    // pointer is not relocated: 168 + 4 + 128 bytes for 14 records.
    let s = get(Rule::SpansDivide);
    assert_eq!(s.breaks[0].offset, 0x68);
    assert!(s.breaks[0].detail.contains("300 bytes"), "{:?}", s.breaks);
    let c = get(Rule::CellCountOne);
    assert_eq!((c.held, c.cases), (62, 63));
    let cells = r.sections()[0].target.unwrap();
    assert_eq!(c.breaks[0].offset, cells + 4);
    for rule in [Rule::HeaderSlots, Rule::Pads, Rule::Extent, Rule::GridDims] {
        assert!(get(rule).holds(), "{rule:?}");
    }
}

#[test]
fn names_idxd_and_ixud_read_as_written() {
    for (name, flavour, unit) in [
        ("names.idxd", Flavour::Idxd, PoolSizeUnit::Bytes),
        ("names.ixud", Flavour::Ixud, PoolSizeUnit::Units),
        ("bytes.ixud", Flavour::Ixud, PoolSizeUnit::Bytes),
    ] {
        let bytes = fixture(name);
        let t = idxd::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((t.flavour, t.pool_size_unit), (flavour, unit), "{name}");
        assert_eq!(idxd::encode(&t).unwrap(), bytes, "{name}");
        assert!(t.trailer.is_empty());
        let pool = t.pool();
        for r in &t.records {
            match pool.lookup(r.string) {
                Lookup::String(i) => assert_eq!(r.hash, make_entry_id(&pool.text(i)), "{name}"),
                Lookup::None => assert_eq!(r.hash, 0),
                other => panic!("{name}: {other:?}"),
            }
        }
        let text = idxd::text::to_text(&t);
        let back = idxd::text::from_text(&text).unwrap();
        assert_eq!(idxd::encode(&back).unwrap(), bytes, "{name}: text form");
    }
    let t = idxd::decode(&fixture("names.ixud")).unwrap();
    let pool = t.pool();
    assert_eq!(pool.strings.len(), 6);
    assert_eq!(pool.text(5), "Écran titre");
    assert_eq!(pool.text(3), "dat\\stage\\S01.tbl");
    // Records 0 and 2 share string 0; record 3 has none.
    assert_eq!(t.records[0].string, t.records[2].string);
    assert_eq!(t.records[3].string, NO_STRING);
    assert_eq!((t.records[4].p1, t.records[4].p2), (0x100, 0x200));
    assert_eq!(t.pairs[0].second, NO_STRING);
    assert_eq!(
        pool.text_at(t.pairs[1].first).as_deref(),
        Some("S01_AsteroidVolume_wp.col")
    );
}

#[test]
fn damaged_idxd_keeps_its_bad_offsets() {
    let bytes = fixture("damaged.idxd");
    let t = idxd::decode(&bytes).unwrap();
    assert_eq!(idxd::encode(&t).unwrap(), bytes);
    assert_eq!(t.trailer, [1, 2, 3]);
    let pool = t.pool();
    assert_eq!(pool.lookup(t.records[1].string), Lookup::NotAStart);
    assert_eq!(pool.lookup(t.pairs[0].second), Lookup::Outside);
}
