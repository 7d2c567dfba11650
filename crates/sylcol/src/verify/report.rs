//! The result of one invariant check, and of the control run beside it.

use serde::Serialize;

/// What a check must show to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Every case passes (`passed == total`).
    All,
    /// No case passes (`passed == 0`): a test that must not fire.
    None,
    /// Reported, never failing: a figure to read, not a rule.
    Info,
}

/// The same test run where it should *not* hold (a random triangle, a
/// shuffled name): it shows the check could have failed.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Control {
    /// What the control tests.
    pub name: String,
    /// Cases where the control test held.
    pub passed: u64,
    /// Cases tried.
    pub total: u64,
}

/// A check's stable id and its sentence, declared once per check:
/// `pub const X: CheckId = CheckId::new("mcol.lists.packed", "lists packed after the records");`
///
/// The id (`FORMAT.GROUP.NAME`, lower case) is what scripts and tests match
/// on; the sentence may be reworded. `docs/verify.md` lists every id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckId {
    /// The stable id, e.g. `mcol.broadphase.listed`.
    pub id: &'static str,
    /// What is checked, in words.
    pub name: &'static str,
}

impl CheckId {
    /// A check id with its sentence.
    pub const fn new(id: &'static str, name: &'static str) -> Self {
        CheckId { id, name }
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.id, self.name)
    }
}

/// One invariant, counted over every case it applies to.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Check {
    /// The stable id (`mcol.lists.packed`); see [`CheckId`].
    pub id: &'static str,
    /// What is checked, in words.
    pub name: &'static str,
    /// Cases where the invariant holds.
    pub passed: u64,
    /// Cases tested.
    pub total: u64,
    /// The control beside it, where the seeds have one.
    pub control: Option<Control>,
    /// Whether the check passed its expectation.
    pub ok: bool,
    /// What `ok` requires.
    pub expect: Expect,
    /// A figure or the first failing case, when there is one to give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    /// A check over `total` cases of which `passed` hold.
    pub fn new(check: CheckId, passed: u64, total: u64, expect: Expect) -> Self {
        let ok = match expect {
            Expect::All => passed == total,
            Expect::None => passed == 0,
            Expect::Info => true,
        };
        Check {
            id: check.id,
            name: check.name,
            passed,
            total,
            control: None,
            ok,
            expect,
            note: None,
        }
    }

    /// A check every case of which must hold.
    pub fn all(check: CheckId, passed: u64, total: u64) -> Self {
        Check::new(check, passed, total, Expect::All)
    }

    /// A check reported for information.
    pub fn info(check: CheckId, passed: u64, total: u64) -> Self {
        Check::new(check, passed, total, Expect::Info)
    }

    /// A single yes/no identity as a 1-case check.
    pub fn holds(check: CheckId, holds: bool) -> Self {
        Check::all(check, u64::from(holds), 1)
    }

    /// The id and sentence this check was made from.
    pub fn check_id(&self) -> CheckId {
        CheckId::new(self.id, self.name)
    }

    /// Attaches a control.
    pub fn with_control(mut self, name: impl Into<String>, passed: u64, total: u64) -> Self {
        self.control = Some(Control {
            name: name.into(),
            passed,
            total,
        });
        self
    }

    /// Attaches a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Attaches a note only when `note` is `Some`.
    pub fn with_note_opt(self, note: Option<String>) -> Self {
        match note {
            Some(n) => self.with_note(n),
            None => self,
        }
    }
}

/// `passed / total = p %`, the seeds' way of writing a rate.
pub fn rate(passed: u64, total: u64) -> String {
    if total == 0 {
        return format!("{passed} / {total}");
    }
    format!(
        "{passed} / {total} = {:.2} %",
        100.0 * passed as f64 / total as f64
    )
}

/// The checks of a list that failed (info rows never fail).
pub fn failing(checks: &[Check]) -> Vec<CheckId> {
    checks
        .iter()
        .filter(|c| !c.ok && c.expect != Expect::Info)
        .map(Check::check_id)
        .collect()
}

/// Whether every check of a list passed.
pub fn all_ok(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.ok)
}

/// The median of `values` (NaN-free), or `None` when empty.
pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: CheckId = CheckId::new("test.a", "a");

    #[test]
    fn expectations() {
        assert!(Check::all(A, 3, 3).ok);
        assert!(!Check::all(A, 2, 3).ok);
        assert!(Check::new(A, 0, 46, Expect::None).ok);
        assert!(!Check::new(A, 1, 46, Expect::None).ok);
        assert!(Check::info(A, 0, 9).ok);
        assert_eq!(
            failing(&[Check::all(A, 2, 3), Check::info(A, 0, 1)]),
            vec![A]
        );
        assert_eq!(rate(63, 4768), "63 / 4768 = 1.32 %");
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
