//! REGN checks: every assumption of `docs/formats/regn.md`, as checks that
//! name the offset of their first break, and the vertex section against
//! the bbox beside a control.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::regn::{self, Regn, Rule};

use super::report::{Check, CheckId};

/// The check ids (docs/verify.md, "REGN").
pub mod names {
    use crate::verify::report::CheckId;

    /// The six section pointers are relocated.
    pub const POINTERS: CheckId = CheckId::new(
        "regn.pof0.pointers",
        "the six section pointers 0x70..0x84 are relocated",
    );
    /// Relocated header words are section pointers only.
    pub const HEADER_SLOTS: CheckId = CheckId::new(
        "regn.pof0.header_slots",
        "relocated header words are section pointers only",
    );
    /// Pad words 1.0 / 1.0 / 0.0.
    pub const PADS: CheckId =
        CheckId::new("regn.header.pads", "bbox pad words are 1.0 / 1.0 / 0.0");
    /// extent == max - min.
    pub const EXTENT: CheckId = CheckId::new("regn.header.extent", "extent == max - min");
    /// The grid at 0x50.
    pub const GRID: CheckId = CheckId::new(
        "regn.header.grid",
        "0x50 holds ceil((max - min) / cell) per axis",
    );
    /// Counts divide spans.
    pub const SPANS: CheckId = CheckId::new(
        "regn.sections.stride",
        "each section's count divides its span",
    );
    /// One cell section.
    pub const CELLS: CheckId = CheckId::new(
        "regn.cells.section",
        "one section holds cell records (x, y, z, 1)",
    );
    /// Every occupied cell's count is 1.
    pub const COUNT_ONE: CheckId =
        CheckId::new("regn.cells.count_one", "every occupied cell's count is 1");
    /// Items per occupied cell.
    pub const ITEMS: CheckId = CheckId::new(
        "regn.items.per_cell",
        "a section holds one item per occupied cell",
    );
    /// One section of stride 12.
    pub const VERTEX_SECTION: CheckId =
        CheckId::new("regn.vertices.section", "exactly one section has stride 12");
    /// The vertices lie in the bbox.
    pub const VERTICES_IN_BBOX: CheckId = CheckId::new(
        "regn.vertices.in_bbox",
        "12-byte vertices inside the bbox, none tiny",
    );
}

/// The check id of each format-level assumption.
fn id_of(rule: Rule) -> CheckId {
    match rule {
        Rule::PointersRelocated => names::POINTERS,
        Rule::HeaderSlots => names::HEADER_SLOTS,
        Rule::Pads => names::PADS,
        Rule::Extent => names::EXTENT,
        Rule::GridDims => names::GRID,
        Rule::SpansDivide => names::SPANS,
        Rule::CellSection => names::CELLS,
        Rule::CellCountOne => names::COUNT_ONE,
        Rule::ItemsPerCell => names::ITEMS,
    }
}

/// What `verify` reports for a REGN.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RegnReport {
    /// Whether every check passed.
    pub ok: bool,
    /// The seed of the randomised control.
    pub seed: u64,
    /// The checks: the format's assumptions, then the vertex section's.
    pub checks: Vec<Check>,
}

/// Runs every REGN check.
pub fn verify(r: &Regn, seed: u64) -> RegnReport {
    let mut checks: Vec<Check> = regn::assumptions(r)
        .into_iter()
        .map(|a| {
            let note = a.breaks.first().map(|b| {
                let more = a.cases - a.held;
                let more = if more > 1 {
                    format!(" ({more} in all)")
                } else {
                    String::new()
                };
                format!("first at {:#x}: {}{more}", b.offset, b.detail)
            });
            Check::all(id_of(a.rule), a.held, a.cases).with_note_opt(note)
        })
        .collect();
    checks.extend(vertex_checks(r, seed));
    RegnReport {
        ok: checks.iter().all(|c| c.ok),
        seed,
        checks,
    }
}

/// The stride-12 section read as f32[3] points: finite, inside the bbox,
/// no coordinate tiny but 0; the control reads 12-byte windows at random
/// 4-aligned offsets of the other sections the same way.
fn vertex_checks(r: &Regn, seed: u64) -> Vec<Check> {
    let twelve = r.sections().iter().filter(|s| s.stride == Some(12)).count() as u64;
    let mut out = vec![
        Check::holds(names::VERTEX_SECTION, twelve == 1)
            .with_note(format!("{twelve} sections of stride 12")),
    ];
    let Some(vertices) = r.vertices() else {
        return out;
    };
    let h = &r.header;
    // Inside the bbox alone has no power: small integers read as f32 are
    // denormals near 0, inside any box. A coordinate must also be 0 or at
    // least 1e-6 of the cell size in magnitude.
    let inside = |v: &[f32; 3]| {
        (0..3).all(|k| {
            let tiny = v[k] != 0.0 && v[k].abs() < 1e-6 * h.prefix.cell_size[k].abs();
            v[k].is_finite()
                && !tiny
                && v[k] >= h.prefix.bbox_min[k]
                && v[k] <= h.prefix.bbox_max[k]
        })
    };
    let held = vertices.iter().filter(|v| inside(v)).count() as u64;
    let first_out = vertices.iter().position(|v| !inside(v));
    let section = r.vertex_section().and_then(|s| s.target).unwrap_or(0);
    let note = first_out.map(|i| {
        format!(
            "first at {:#x}: {:?} outside the bbox or tiny",
            section + 12 * i as u64,
            vertices[i]
        )
    });
    let (c_held, c_total) = control(r, seed, &inside);
    out.push(
        Check::all(names::VERTICES_IN_BBOX, held, vertices.len() as u64)
            .with_note_opt(note)
            .with_control(
                "12 random bytes of the other sections as f32[3]",
                c_held,
                c_total,
            ),
    );
    out
}

fn control(r: &Regn, seed: u64, inside: &dyn Fn(&[f32; 3]) -> bool) -> (u64, u64) {
    let vertex = r.vertex_section().map(|s| s.index);
    let others: Vec<&[u8]> = (r.sections().iter())
        .filter(|s| Some(s.index) != vertex)
        .filter_map(|s| r.section_bytes(s))
        .filter(|b| b.len() >= 12)
        .collect();
    if others.is_empty() {
        return (0, 0);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4E47);
    let tries = 1000u64;
    let held = (0..tries)
        .filter(|_| {
            let b = others[rng.random_range(0..others.len())];
            let at = rng.random_range(0..=b.len() - 12) & !3;
            let v = std::array::from_fn(|k| {
                f32::from_be_bytes([
                    b[at + 4 * k],
                    b[at + 4 * k + 1],
                    b[at + 4 * k + 2],
                    b[at + 4 * k + 3],
                ])
            });
            inside(&v)
        })
        .count() as u64;
    (held, tries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Regn {
        let path = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        regn::decode(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn the_twin_region_passes_and_its_control_is_low() {
        let r = verify(&fixture("twin.regn"), 7);
        assert!(r.ok, "{:#?}", r.checks);
        let v = r
            .checks
            .iter()
            .find(|c| c.id == "regn.vertices.in_bbox")
            .unwrap();
        assert_eq!((v.passed, v.total), (14, 14));
        let ctrl = v.control.as_ref().unwrap();
        assert!(
            ctrl.passed * 2 < ctrl.total,
            "control {}/{}",
            ctrl.passed,
            ctrl.total
        );
    }

    #[test]
    fn the_quirks_region_fails_with_offsets() {
        let r = verify(&fixture("quirks.regn"), 7);
        assert!(!r.ok);
        let failing: Vec<&str> = r.checks.iter().filter(|c| !c.ok).map(|c| c.id).collect();
        assert_eq!(
            failing,
            [
                "regn.pof0.pointers",
                "regn.sections.stride",
                "regn.cells.count_one",
                "regn.vertices.section"
            ]
        );
        let pointers = &r.checks[0];
        assert!(
            pointers
                .note
                .as_deref()
                .unwrap()
                .starts_with("first at 0x84"),
            "{pointers:?}"
        );
    }
}
