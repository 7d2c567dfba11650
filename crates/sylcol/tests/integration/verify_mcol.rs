//! `verify::mcol` on valid maps and on maps with one planted defect each:
//! every defect must be caught by exactly the check meant to catch it.

use sylcol::prelude::*;
use sylcol::verify::mcol::{
    self, McolReport, geometry_names as geo, names, orientation_names as orient,
};
use sylcol::verify::testmaps::{box_map, drop_list_entry, sphere_map};
use sylcol::verify::{CheckId, DEFAULT_SEED, Expect};

fn run(m: &sylcol::format::mcol::Mcol) -> McolReport {
    mcol::verify(m, None, DEFAULT_SEED)
}

fn assert_all_pass(r: &McolReport) {
    for c in &r.checks {
        assert!(c.ok, "{} failed: {} / {}", c.name, c.passed, c.total);
        if c.expect == Expect::All {
            assert_eq!(c.passed, c.total, "{}", c.name);
        }
    }
    assert!(r.ok);
}

#[test]
fn box_map_passes_with_the_seed_figures() {
    let r = run(&box_map());
    assert_all_pass(&r);
    let t = &r.topology;
    assert_eq!((t.vertices, t.triangles, t.edges), (8, 12, 18));
    assert_eq!((t.euler, t.components), (2, 1));
    assert!(t.manifold && t.winding_consistent);
    let bp = r.broadphase.as_ref().unwrap();
    assert_eq!(bp.occupied_cells, 488);
    assert_eq!((bp.missing, bp.extra), (0, 0));
    let s = r.spheres.as_ref().unwrap();
    assert_eq!((s.enclosing, s.tight), (12, 12));
    // The seed's 1.0001: the enclosing radius is 0.99990 of the stored one.
    let m = s.median_ratio.unwrap();
    assert!((m - 1.0 / 1.0001).abs() < 1e-6, "{m}");
}

#[test]
fn sphere_map_passes_and_its_controls_have_power() {
    let r = run(&sphere_map(3, 500.0));
    assert_all_pass(&r);
    assert_eq!(r.topology.triangles, 512);
    assert!(r.topology.manifold);
    let s = r.spheres.as_ref().unwrap();
    // A random other triangle is rarely inside sphere i: the check could fail.
    assert!(s.control * 10 < s.control_total, "{s:?}");
    let bp = r.broadphase.as_ref().unwrap();
    assert_eq!(bp.missing, 0);
    assert!(bp.extra > 0, "a margin leaves harmless extras");
    for c in &r.checks {
        if let Some(ctrl) = &c.control {
            if c.check_id() == orient::FACING {
                // One shell: its facing cannot disagree with another's, and
                // the control says the check had no power here.
                assert_eq!((ctrl.passed, ctrl.total), (1, 1));
                continue;
            }
            assert!(ctrl.passed < c.passed, "{}: control {ctrl:?}", c.name);
        }
    }
}

#[test]
fn controls_repeat_with_the_same_seed_and_move_with_another() {
    let m = sphere_map(2, 0.0);
    assert_eq!(run(&m), run(&m));
    // The seed drives the controls: across seeds their counts vary, while
    // the checks themselves do not.
    let reports: Vec<McolReport> = (1..=8).map(|s| mcol::verify(&m, None, s)).collect();
    assert!(reports.iter().all(|r| r.ok));
    let listed_ctrl: std::collections::BTreeSet<u64> = reports
        .iter()
        .map(|r| {
            let c = r
                .checks
                .iter()
                .find(|c| c.id == geo::LISTED_SPHERE.id)
                .unwrap();
            c.control.as_ref().unwrap().passed
        })
        .collect();
    assert!(listed_ctrl.len() > 1, "{listed_ctrl:?}");
    assert_eq!(reports[6].seed, 7);
}

#[test]
fn dropped_list_entry_is_a_missing_triangle() {
    let mut m = sphere_map(3, 0.0);
    // A triangle listed in several cells; drop it from one.
    drop_list_entry(&mut m);
    let r = run(&m);
    assert_eq!(mcol::failing(&r), vec![geo::MISSING]);
    assert_eq!(r.broadphase.as_ref().unwrap().missing, 1);
}

#[test]
fn vertex_moved_out_of_its_sphere() {
    // Lists built with a margin larger than the move keep the broad phase
    // complete; only the spheres can see the move.
    let mut m = sphere_map(3, 2_000.0);
    let v = m.vertices[10];
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let grow = (len + 1_000.0) / len;
    m.vertices[10] = v.map(|c| c * grow);
    let r = run(&m);
    assert_eq!(mcol::failing(&r), vec![geo::SPHERE_ENCLOSES]);
}

#[test]
fn open_edge() {
    // Give one triangle its own copy of a corner: same position, new index.
    let mut m = sphere_map(2, 0.0);
    let t = m.triangles[5];
    m.vertices.push(m.vertices[t[0] as usize]);
    m.triangles[5][0] = (m.vertices.len() - 1) as u16;
    let r = run(&m);
    assert_eq!(mcol::failing(&r), vec![names::EDGES_TWO, orient::ORIENTED]);
    assert_eq!(r.topology.boundary_edges, 4);
}

#[test]
fn turned_over_triangle() {
    // Still closed and manifold, so only the orientation check sees it.
    let mut m = sphere_map(2, 0.0);
    m.triangles[5].swap(1, 2);
    let r = run(&m);
    assert_eq!(mcol::failing(&r), vec![orient::ORIENTED]);
    let c = r
        .checks
        .iter()
        .find(|c| c.check_id() == orient::ORIENTED)
        .unwrap();
    assert_eq!(c.total - c.passed, 3);
    // Its control, every triangle's winding at random, keeps about half.
    let ctrl = c.control.as_ref().unwrap();
    assert!(
        ctrl.passed * 3 < ctrl.total * 2 && ctrl.passed * 3 > ctrl.total,
        "{ctrl:?}"
    );
}

#[test]
fn inside_out_component() {
    use sylcol::build::mcol::{McolBuildOptions, build_mcol};
    use sylcol::query::fixtures::{cuboid, merged};
    // Two outward boxes, then the small one turned inside out.
    let big = cuboid(glam::Vec3::splat(-40.0), glam::Vec3::splat(-10.0));
    let mut small = cuboid(glam::Vec3::splat(10.0), glam::Vec3::splat(20.0));
    let good = build_mcol(&merged(&big, &small), &McolBuildOptions::default()).unwrap();
    assert_all_pass(&run(&good));
    for t in &mut small.triangles {
        t.swap(1, 2);
    }
    let bad = build_mcol(&merged(&big, &small), &McolBuildOptions::default()).unwrap();
    let r = run(&bad);
    assert_eq!(mcol::failing(&r), vec![orient::FACING]);
    let c = r
        .checks
        .iter()
        .find(|c| c.check_id() == orient::FACING)
        .unwrap();
    assert_eq!((c.passed, c.total), (1, 2));
    assert_eq!(
        c.note.as_deref(),
        Some("first against: the component of triangle 12")
    );
    // With two shells, turning either over alone is caught.
    assert_eq!(c.control.as_ref().unwrap().passed, 0);
    assert_eq!(r.facing.as_ref().unwrap().outward, 1);
}

#[test]
fn duplicated_triangle() {
    // The copy gets its own sphere and joins every list of the original.
    let mut m = sphere_map(2, 0.0);
    let dup = m.triangles.len() as u16;
    m.triangles.push(m.triangles[3]);
    m.spheres.push(m.spheres[3]);
    for rec in &mut m.records {
        if rec.triangles.contains(&3) {
            rec.triangles.push(dup);
        }
    }
    let r = run(&m);
    assert_eq!(mcol::failing(&r), vec![names::EDGES_TWO, orient::ORIENTED]);
    assert_eq!(r.topology.nonmanifold_edges, 3);
}

#[test]
fn header_and_cell_defects() {
    let mut m = box_map();
    m.header.prefix.extent[1] += 1.0;
    m.header.prefix.pads[2] = 1f32.to_bits();
    let occupied = m.cells.iter().position(|c| c.record().is_some()).unwrap();
    m.cells[occupied].index[3] = 0;
    let r = run(&m);
    let mut failing = mcol::failing(&r);
    failing.sort_unstable();
    let mut want = vec![names::PADS, names::EXTENT, names::GRID, names::CELL_BYTE3];
    want.sort_unstable();
    assert_eq!(failing, want);
}

#[test]
fn swapped_cell_links_break_order_not_ownership() {
    let mut m = box_map();
    let occ: Vec<usize> = (0..m.cells.len())
        .filter(|&i| m.cells[i].record().is_some())
        .take(2)
        .collect();
    let (a, b) = (m.cells[occ[0]].link, m.cells[occ[1]].link);
    m.cells[occ[0]].link = b;
    m.cells[occ[1]].link = a;
    let r = run(&m);
    let failing = mcol::failing(&r);
    assert!(failing.contains(&names::CELL_ORDER), "{failing:?}");
    assert!(!failing.contains(&names::ONE_TO_ONE));
}

#[test]
fn out_of_range_index_skips_geometry_without_panicking() {
    let mut m = box_map();
    m.triangles[0][1] = 200;
    let r = run(&m);
    assert!(mcol::failing(&r).contains(&names::INDEX_RANGE));
    assert!(r.broadphase.is_none() && r.spheres.is_none());
}

mod encoded {
    use super::*;
    use sylcol::format::mcol::{decode, encode};
    use sylcol::verify::mcol::chunk_names;

    fn verify_bytes(bytes: &[u8]) -> McolReport {
        let m = decode(bytes).expect("decodes");
        mcol::verify(&m, Some(bytes), DEFAULT_SEED)
    }

    #[test]
    fn encoded_maps_pass_every_check_including_the_format_ones() {
        for m in [box_map(), sphere_map(3, 500.0)] {
            let bytes = encode(&m).unwrap();
            let r = verify_bytes(&bytes);
            assert_all_pass(&r);
            let names: Vec<CheckId> = r.checks.iter().map(|c| c.check_id()).collect();
            for n in [
                chunk_names::POF0_AT,
                chunk_names::HEADER_SLOTS,
                chunk_names::SPHERES_AT_80,
                chunk_names::SLOT_COUNT,
                chunk_names::SLOTS_EXPLAINED,
                names::ADVANCE,
                names::PACKED,
                names::BLOCKS,
            ] {
                assert!(names.contains(&n), "{n} not run");
            }
        }
    }

    /// B record `k`'s list pointer moved 2 bytes on: its list now starts one
    /// entry late and ends with the next list's first entry.
    fn shift_pointer(bytes: &mut [u8], record_offset: u32) {
        let at = record_offset as usize + 4;
        let p = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        bytes[at..at + 4].copy_from_slice(&(p + 2).to_be_bytes());
    }

    #[test]
    fn list_pointer_off_by_two_breaks_only_the_pointer_identity() {
        // With a margin, some lists start with a harmless extra: shifting
        // such a list drops that extra, so the broad phase stays complete
        // and only the pointer arithmetic can see the defect.
        let m = sphere_map(3, 2_000.0);
        let mut bytes = encode(&m).unwrap();
        let layout = decode(&bytes).unwrap().layout.unwrap();
        let spec = sylcol::grid::GridSpec::from_header(&m.header);
        let mesh = sylcol::TriMesh::from_mcol(&m);
        let exact = sylcol::grid::build_cell_lists(&mesh, &spec, 0.0);
        let occupied: Vec<usize> = (0..m.cells.len())
            .filter(|&c| m.cells[c].record().is_some())
            .collect();
        let k = (1..m.records.len() - 1)
            .find(|&k| {
                let first = m.records[k].triangles[0] as u32;
                let next = m.records[k + 1].triangles[0];
                !exact[occupied[k]].contains(&first) && !m.records[k].triangles.contains(&next)
            })
            .expect("a list that starts with an extra");
        shift_pointer(&mut bytes, layout.records[k]);
        let r = verify_bytes(&bytes);
        assert_eq!(mcol::failing(&r), vec![names::ADVANCE]);
        let c = r.checks.iter().find(|c| c.id == names::ADVANCE.id).unwrap();
        assert_eq!(
            c.total - c.passed,
            2,
            "the pairs before and after record {k}"
        );
    }

    #[test]
    fn list_pointer_off_by_two_on_an_exact_list_also_misses_a_triangle() {
        let m = sphere_map(3, 0.0);
        let mut bytes = encode(&m).unwrap();
        let layout = decode(&bytes).unwrap().layout.unwrap();
        shift_pointer(&mut bytes, layout.records[5]);
        let r = verify_bytes(&bytes);
        let mut failing = mcol::failing(&r);
        failing.sort_unstable();
        let mut want = vec![geo::MISSING, names::ADVANCE];
        want.sort_unstable();
        assert_eq!(failing, want);
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// With exact lists, every dropped entry is exactly one missing pair,
        /// and nothing but list-coverage checks notices.
        #[test]
        fn each_dropped_entry_is_one_missing_pair(picks in prop::collection::vec((0usize..1000, 0usize..1000), 1..6)) {
            let mut m = sphere_map(2, 0.0);
            let mut dropped = 0;
            for (r, e) in picks {
                let r = r % m.records.len();
                let list = &mut m.records[r].triangles;
                if !list.is_empty() {
                    list.remove(e % list.len());
                    dropped += 1;
                }
            }
            let report = run(&m);
            prop_assert_eq!(report.broadphase.as_ref().unwrap().missing, dropped);
            for f in mcol::failing(&report) {
                prop_assert!([geo::MISSING, names::EVERY_LISTED, names::ENTRY_MAX].contains(&f), "{}", f);
            }
        }

        /// Whatever bytes decode, verify reports on them without panicking.
        #[test]
        fn corrupted_files_that_decode_never_panic(
            edits in prop::collection::vec((0usize..100_000, any::<u8>()), 1..8),
        ) {
            let mut bytes = sylcol::format::mcol::encode(&sphere_map(1, 500.0)).unwrap();
            let n = bytes.len();
            for (at, b) in edits {
                bytes[at % n] = b;
            }
            if let Ok(m) = sylcol::format::mcol::decode(&bytes) {
                let r = mcol::verify(&m, Some(&bytes), DEFAULT_SEED);
                prop_assert_eq!(r.ok, mcol::failing(&r).is_empty());
            }
        }
    }
}
