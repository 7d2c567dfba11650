//! Human-readable verify reports, laid out like the seeds' tables: one row
//! per check, `passed / total = %`, the control beside it.

use std::fmt::Write;

use super::collisionset::CollisionSetReport;
use super::mcol::McolReport;
#[cfg(test)]
use super::report::CheckId;
use super::report::{Check, Expect, rate};
use crate::topology::Topology;

/// The check table, one row each: status, name, rate, control, note.
pub fn check_table(checks: &[Check]) -> String {
    let id_w = checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let name_w = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let rates: Vec<String> = checks.iter().map(|c| rate(c.passed, c.total)).collect();
    let rate_w = rates.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::new();
    for (c, r) in checks.iter().zip(&rates) {
        let status = match (c.ok, c.expect) {
            (false, _) => "FAIL",
            (true, Expect::Info) => "info",
            (true, _) => "ok",
        };
        let mut line = format!(
            "  {status:<4}  {:<id_w$}  {:<name_w$}  {r:<rate_w$}",
            c.id, c.name
        );
        if let Some(ctrl) = &c.control {
            let _ = write!(
                line,
                "  control ({}): {}",
                ctrl.name,
                rate(ctrl.passed, ctrl.total)
            );
        }
        if let Some(note) = &c.note {
            // A note may quote a name from the file: one line, escaped.
            let _ = write!(line, "  [{}]", sylcol_format::text::escape(note));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The report of an object whose checks are its whole report (REGN, string
/// tables): a heading and the check table.
pub fn checks_text(path: &str, format: &str, ok: bool, checks: &[Check]) -> String {
    format!("{path}: {format}, {}\n{}", verdict(ok), check_table(checks))
}

/// One line of topology figures.
pub fn topology_line(t: &Topology) -> String {
    format!(
        "{} vertices, {} triangles, {} edges ({} shared by two, {} open, {} shared by 3+), \
         manifold {}, winding consistent {}, euler {}, {} component(s), {} degenerate, \
         {} unreferenced vertices",
        t.vertices,
        t.triangles,
        t.edges,
        t.edges_shared_by_two,
        t.boundary_edges,
        t.nonmanifold_edges,
        t.manifold,
        t.winding_consistent,
        t.euler,
        t.components,
        t.degenerate,
        t.unreferenced_vertices
    )
}

/// The full text of one MCOL object's report.
pub fn mcol_text(path: &str, r: &McolReport) -> String {
    let mut out = format!("{path}: MCOL, {}\n", verdict(r.ok));
    out.push_str(&check_table(&r.checks));
    let _ = writeln!(out, "  topology: {}", topology_line(&r.topology));
    if let Some(b) = &r.broadphase {
        let _ = writeln!(
            out,
            "  broad phase: {} / {} occupied cells exact; missing {}, extra {} of {} entries; \
             against triangle AABBs: missing {}, extra {}",
            b.cells_exact,
            b.occupied_cells,
            b.missing,
            b.extra,
            b.entries,
            b.aabb_missing,
            b.aabb_extra
        );
    }
    if let Some(s) = &r.spheres {
        let median = s.median_ratio.map_or("-".to_string(), |m| m.to_string());
        let _ = writeln!(
            out,
            "  spheres: enclosing {}, tight {}, median max|v-c|/r {median}; control {}",
            rate(s.enclosing, s.triangles),
            rate(s.tight, s.triangles),
            rate(s.control, s.control_total)
        );
    }
    out
}

/// The full text of one CollisionSet library's report.
pub fn collisionset_text(path: &str, r: &CollisionSetReport) -> String {
    let mut out = format!(
        "{path}: CollisionSet ({}-endian), {} meshes, {}\n",
        r.endian,
        r.meshes.len(),
        verdict(r.ok)
    );
    out.push_str(&check_table(&r.checks));
    let _ = writeln!(
        out,
        "  topology (all meshes): {}",
        topology_line(&r.topology)
    );
    let hist: Vec<String> = r
        .euler_histogram
        .iter()
        .map(|(e, n)| format!("chi {e}: {n}"))
        .collect();
    let _ = writeln!(
        out,
        "  manifold meshes: {}; euler histogram: {}",
        rate(r.manifold_meshes, r.meshes.len() as u64),
        hist.join(", ")
    );
    let fam: Vec<String> = r.families.iter().map(|(f, n)| format!("{f} {n}")).collect();
    let _ = writeln!(out, "  families: {}", fam.join(", "));
    out
}

/// One check summed over several objects.
struct SummaryRow {
    id: &'static str,
    name: &'static str,
    objects_ok: u64,
    objects: u64,
    passed: u64,
    total: u64,
    control: Option<(u64, u64)>,
}

/// Over several objects of one format: per check, the objects that pass it
/// and the cases summed over all of them (the seeds' "11 / 11" tables).
pub fn summary_table<'a>(reports: impl IntoIterator<Item = &'a [Check]>) -> String {
    let mut rows: Vec<SummaryRow> = Vec::new();
    for checks in reports {
        for c in checks {
            let i = match rows.iter().position(|r| r.id == c.id) {
                Some(i) => i,
                None => {
                    rows.push(SummaryRow {
                        id: c.id,
                        name: c.name,
                        objects_ok: 0,
                        objects: 0,
                        passed: 0,
                        total: 0,
                        control: None,
                    });
                    rows.len() - 1
                }
            };
            let r = &mut rows[i];
            r.objects_ok += u64::from(c.ok && (c.expect != Expect::Info || c.passed == c.total));
            r.objects += 1;
            r.passed += c.passed;
            r.total += c.total;
            if let Some(ctrl) = &c.control {
                let (p, t) = r.control.unwrap_or((0, 0));
                r.control = Some((p + ctrl.passed, t + ctrl.total));
            }
        }
    }
    let id_w = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let name_w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let objs: Vec<String> = rows
        .iter()
        .map(|r| format!("{} / {}", r.objects_ok, r.objects))
        .collect();
    let obj_w = objs.iter().map(String::len).max().unwrap_or(0);
    let rates: Vec<String> = rows.iter().map(|r| rate(r.passed, r.total)).collect();
    let rate_w = rates.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::new();
    for ((r, o), rt) in rows.iter().zip(&objs).zip(&rates) {
        let mut line = format!(
            "  {:<id_w$}  {:<name_w$}  {o:>obj_w$} objects  {rt:<rate_w$}",
            r.id, r.name
        );
        if let Some((p, t)) = r.control {
            let _ = write!(line, "  control: {}", rate(p, t));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "FAILED" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_objects_and_sums_cases() {
        const X: CheckId = CheckId::new("t.x", "x");
        const I: CheckId = CheckId::new("t.i", "i");
        let a = vec![
            Check::all(X, 2, 2).with_control("c", 0, 2),
            Check::info(I, 1, 4),
        ];
        let b = vec![Check::all(X, 1, 3), Check::info(I, 4, 4)];
        let t = summary_table([a.as_slice(), b.as_slice()]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "  t.x  x  1 / 2 objects  3 / 5 = 60.00 %  control: 0 / 2 = 0.00 %"
        );
        assert_eq!(lines[1], "  t.i  i  1 / 2 objects  5 / 8 = 62.50 %");
    }

    #[test]
    fn rows_align_and_show_controls() {
        let checks = vec![
            Check::all(CheckId::new("t.short", "short"), 3, 3),
            Check::all(CheckId::new("t.long", "a much longer name"), 1, 2)
                .with_control("ctrl", 0, 2),
            Check::info(CheckId::new("t.info", "info row"), 5, 9).with_note("n"),
        ];
        let t = check_table(&checks);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("  ok    t.short  short "));
        assert!(lines[1].starts_with("  FAIL  t.long   a much longer name  1 / 2 = 50.00 %"));
        assert!(lines[1].ends_with("control (ctrl): 0 / 2 = 0.00 %"));
        assert!(lines[2].contains("info  t.info   info row"), "{}", lines[2]);
        let col = |l: &str, s: &str| l.find(s).unwrap();
        assert_eq!(col(lines[0], "3 / 3"), col(lines[1], "1 / 2"));
    }
}
