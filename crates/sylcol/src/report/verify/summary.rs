//! The text forms of a `verify` run: a summary line per object (the
//! default), every table and figure (`--verbose`), or only what failed
//! (`--failures`). Objects with identical bytes are written once, with
//! the entries that share them.

use std::fmt::Write;

use super::{Verified, VerifyRun};
use crate::report::shared::sharing_line;
use crate::verify::report::{Check, Expect};
use crate::verify::text::{check_table, summary_table};

/// How much of a run the text form shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// One line per object (ok / info / FAILED), each failing check in full.
    #[default]
    Summary,
    /// Every object's checks and figures, and a table per format.
    Verbose,
    /// Only the objects that failed, with their failing checks.
    Failures,
}

/// An object's verdict as the summary marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every check holds.
    Ok,
    /// Every check holds; some figure reported for information is not
    /// 100 % (`--verbose` shows it).
    Info,
    /// A check failed.
    Failed,
}

impl Verdict {
    /// The verdict of `v`.
    pub fn of(v: &Verified) -> Verdict {
        if !v.ok() {
            Verdict::Failed
        } else if v.checks().iter().any(partial_info) {
            Verdict::Info
        } else {
            Verdict::Ok
        }
    }

    /// The marker at the start of a summary line.
    pub fn marker(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Info => "info",
            Verdict::Failed => "FAILED",
        }
    }
}

/// An information row that does not hold for every case.
fn partial_info(c: &Check) -> bool {
    c.expect == Expect::Info && c.passed != c.total
}

impl VerifyRun {
    /// The human-readable form at `detail`.
    pub fn text(&self, detail: Detail) -> String {
        let failed = self.objects.iter().filter(|o| !o.report.ok()).count();
        if detail == Detail::Failures && failed == 0 {
            return String::new();
        }
        let mut out = format!("controls seeded with {} (--seed to change)\n", self.seed);
        if detail == Detail::Verbose {
            out.push('\n');
        }
        for (i, o) in self.objects.iter().enumerate() {
            if self.shared().is_copy(i) || (detail == Detail::Failures && o.report.ok()) {
                continue;
            }
            let block = match detail {
                Detail::Verbose => o.report.text(),
                _ => summary_line(&o.report),
            };
            out.push_str(&block);
            if self.shared().count(i) > 1 {
                let mut names = vec![o.report.path()];
                names.extend(o.shares_content_with.iter().map(String::as_str));
                let _ = writeln!(out, "  {}", sharing_line(&names));
            }
            if detail == Detail::Verbose {
                out.push('\n');
            }
        }
        if detail == Detail::Verbose {
            out.push_str(&self.format_tables());
        }
        if detail == Detail::Failures {
            return out;
        }
        out.push_str(&self.totals(failed));
        out
    }

    /// Per format with several distinct objects: each check over them all.
    fn format_tables(&self) -> String {
        let mut out = String::new();
        for format in ["MCOL", "CollisionSet", "REGN", "IDXD", "IXUD"] {
            let of_format: Vec<&[Check]> = self
                .objects
                .iter()
                .enumerate()
                .filter(|(i, o)| o.report.format() == format && !self.shared().is_copy(*i))
                .map(|(_, o)| o.report.checks())
                .collect();
            if of_format.len() > 1 {
                let n = of_format.len();
                let _ = writeln!(out, "summary over {n} {format} objects");
                out.push_str(&summary_table(of_format));
                out.push('\n');
            }
        }
        out
    }

    /// The closing lines: skipped entries, the counts, where to look next.
    fn totals(&self, failed: usize) -> String {
        let mut out = String::from("\n");
        if !self.skipped.is_empty() {
            let n = self.skipped.len();
            let _ = writeln!(out, "skipped {n} entries in other formats");
        }
        let copies = (0..self.objects.len())
            .filter(|&i| self.shared().is_copy(i))
            .count();
        let _ = write!(
            out,
            "{} object(s) verified: {} ok, {failed} failed, {} unreadable",
            self.objects.len(),
            self.objects.len() - failed,
            self.errors.len()
        );
        if copies > 0 {
            let distinct = self.objects.len() - copies;
            let _ = write!(out, " ({distinct} distinct contents)");
        }
        out.push('\n');
        out
    }
}

/// `MARK  PATH: FORMAT, N checks`, then each failing check's row.
fn summary_line(v: &Verified) -> String {
    let checks = v.checks();
    let verdict = Verdict::of(v);
    let what = match verdict {
        Verdict::Failed => {
            let bad = checks.iter().filter(|c| !c.ok).count();
            format!("{bad} of {} checks failed", checks.len())
        }
        Verdict::Info => {
            let n = checks.iter().filter(|c| partial_info(c)).count();
            format!(
                "{} checks hold; {n} figure(s) for information (--verbose)",
                checks.len()
            )
        }
        Verdict::Ok => format!("{} checks hold", checks.len()),
    };
    let mut out = format!(
        "{:<6}  {}: {}, {what}\n",
        verdict.marker(),
        v.path(),
        v.format()
    );
    let failing: Vec<Check> = checks.iter().filter(|c| !c.ok).cloned().collect();
    out.push_str(&check_table(&failing));
    out
}
