//! MCOL decode / encode on the hand-made fixtures written by
//! `tests/fixtures/make_fixtures.py`, an independent writer.

use sylcol_format::mcol::{self, CellLink, Mcol};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn decode(name: &str) -> (Vec<u8>, Mcol) {
    let bytes = fixture(name);
    let m = mcol::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    (bytes, m)
}

#[test]
fn box_map_matches_the_seed() {
    let (bytes, m) = decode("box.mcol");
    assert_eq!((m.vertices.len(), m.triangles.len()), (8, 12));
    assert_eq!(m.header.dims(), [10, 10, 10]);
    assert_eq!(m.header.prefix.bbox_min, [-250000.0; 3]);
    assert_eq!(m.header.prefix.bbox_max, [250000.0; 3]);
    assert_eq!(m.header.prefix.cell_size, [50000.0; 3]);
    assert_eq!(m.occupied_cells(), 488);
    assert_eq!(m.records.len(), 488);
    assert_eq!(m.pof0_base, 0x10);
    let l = m.layout.as_ref().unwrap();
    assert_eq!(l.spheres, 0x80);
    // Block lengths of the seed's table: 0x54 = 96, 0x58 = 80, spheres = 12.
    assert_eq!(l.triangles - l.vertices, 96);
    assert_eq!(l.cells - l.triangles, 80);
    assert_eq!(l.vertices - l.spheres, 12 * 16);
    // Every corner is a +-250 000 box corner.
    assert!(
        m.vertices
            .iter()
            .all(|v| v.iter().all(|c| c.abs() == 250000.0))
    );
    // The sphere of a box-face right triangle: 250 000 * sqrt(2) * 1.0001.
    let r = 250000.0 * 2f64.sqrt() * 1.0001;
    assert!(
        m.spheres
            .iter()
            .all(|s| (f64::from(s[3]) - r).abs() / r < 1e-6)
    );
    assert_eq!(mcol::encode(&m).unwrap(), bytes);
}

#[test]
fn every_fixture_rewrites_byte_identical() {
    for name in ["box.mcol", "twin.mcol", "quirks.mcol"] {
        let (bytes, m) = decode(name);
        assert_eq!(mcol::encode(&m).unwrap(), bytes, "{name}");
    }
}

#[test]
fn quirks_are_kept() {
    let (_, twin) = decode("twin.mcol");
    let (_, q) = decode("quirks.mcol");
    assert_eq!(q.pof0_base, 0);
    assert_eq!(twin.pof0_base, 0x10);
    assert_eq!(q.vertices, twin.vertices);
    assert_eq!(q.triangles, twin.triangles);
    assert_eq!(q.header.prefix.word_08, [0x11111111, 0x22222222]);
    assert_eq!(q.header.words_78, [0x78787878, 0x7C7C7C7C]);
    let layout = q.layout.as_ref().unwrap();
    assert_eq!(layout.trailer, b"\0\0\0\0\0\0\0\0\0\0\0\0END!");
    assert!(layout.gaps.iter().any(|g| g.bytes.len() == 0x20));
    // Lists stored in reverse: the first record's list lies last.
    assert!(layout.lists.first() > layout.lists.last());
    // The same cell lists, whatever the storage order.
    for i in 0..twin.cells.len() {
        let a: Vec<&[u16]> = twin.cell_lists(i).collect();
        let b: Vec<&[u16]> = q.cell_lists(i).collect();
        assert_eq!(a, b, "cell {i}");
    }
    // Empty cells keep their bytes.
    assert!(
        q.cells
            .iter()
            .any(|c| matches!(c.link, CellLink::Raw(0)) && c.sphere[0] == 1.5 && c.index[3] == 0)
    );
}

#[test]
fn a_moved_vertex_encodes_in_place() {
    let (bytes, mut m) = decode("twin.mcol");
    m.vertices[3][1] += 10.0;
    let out = mcol::encode(&m).unwrap();
    assert_eq!(out.len(), bytes.len());
    let back = mcol::decode(&out).unwrap();
    assert_eq!(back.vertices, m.vertices);
    let differing = bytes.iter().zip(&out).filter(|(a, b)| a != b).count();
    assert!((1..=4).contains(&differing), "{differing} bytes differ");
}

#[test]
fn a_changed_list_encodes_to_a_valid_file() {
    for name in ["twin.mcol", "quirks.mcol"] {
        let (_, mut m) = decode(name);
        m.records[0].triangles.push(15);
        m.records[1].triangles.clear();
        let out = mcol::encode(&m).unwrap();
        let back = mcol::decode(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.records[0].triangles, m.records[0].triangles);
        assert!(back.records[1].triangles.is_empty());
        assert_eq!(
            back.header,
            Mcol { ..m.clone() }
                .header
                .with_data_size(back.header.data_size)
        );
        assert_eq!(back.cells, m.cells);
        assert_eq!(
            mcol::encode(&back).unwrap(),
            out,
            "{name}: the re-encoded file is stable"
        );
    }
}
