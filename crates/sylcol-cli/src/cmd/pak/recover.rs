//! `sylcol pak recover`: settles the archive builds a killed sylcol left
//! half-done in a folder.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::pak::{PakRecovered, RecoveredReplacement};
use sylcol_atomic::{preview, tidy};
use sylcol_format::text::escape_lines;

use crate::output::note_removed;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak recover`.
#[derive(clap::Args)]
pub(super) struct RecoverArgs {
    /// The folder holding the archive (its index and parts).
    dir: PathBuf,
    /// Only say what would be renamed and removed; change nothing.
    #[arg(long, short = 'n')]
    dry_run: bool,
}

/// Runs `pak recover`: every journal of a killed run in the folder is
/// settled (its new files all in place, or the earlier ones all back),
/// then the killed runs' temporary files are removed (saying so), as
/// every write into a folder does first (`sylcol_atomic::tidy`). In text mode
/// each rename and removal is printed before any is taken; `--dry-run`
/// stops there. A journal that cannot be trusted is refused and changes
/// nothing. Exit 2 when one is refused or could not be settled.
pub(super) fn recover_folder(a: RecoverArgs, ctx: Context) -> anyhow::Result<Outcome> {
    std::fs::read_dir(&a.dir)
        .with_context(|| format!("{}: cannot read the folder", a.dir.display()))?;
    let planned: Vec<RecoveredReplacement> = preview(&a.dir)
        .iter()
        .map(RecoveredReplacement::of)
        .collect();
    let recovered = if a.dry_run {
        planned
    } else {
        if !ctx.json {
            let mut out = std::io::stdout().lock();
            for r in planned.iter().filter(|r| !r.steps.is_empty()) {
                writeln!(out, "{}", escape_lines(&r.intent()))?;
            }
            out.flush()?;
        }
        // The first tidy of the folder in this run: it always runs.
        let tidied = tidy(&a.dir).unwrap_or_default();
        note_removed(&a.dir, &tidied.removed);
        (tidied.recovered.iter())
            .map(RecoveredReplacement::of)
            .collect()
    };
    let report = PakRecovered {
        folder: a.dir.display().to_string(),
        dry_run: a.dry_run,
        recovered,
    };
    print::report(ctx, &report, || report.text())?;
    Ok(if report.all_settled() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    })
}
