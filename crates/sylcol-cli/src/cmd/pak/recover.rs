//! `sylcol pak recover`: settles the archive builds a killed sylcol left
//! half-done in a folder.

use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::pak::{PakRecovered, RecoveredReplacement};
use sylcol_format::atomic::tidy;

use crate::output::note_removed;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol pak recover`.
#[derive(clap::Args)]
pub(super) struct RecoverArgs {
    /// The folder holding the archive (its index and parts).
    dir: PathBuf,
}

/// Runs `pak recover`: every journal of a killed run in the folder is
/// settled (its new files all in place, or the earlier ones all back),
/// then the killed runs' temporary files are removed (saying so), as
/// every write into a folder does first (`atomic::tidy`). Exit 2 when one
/// could not be settled.
pub(super) fn recover_folder(a: RecoverArgs, ctx: Context) -> anyhow::Result<Outcome> {
    std::fs::read_dir(&a.dir)
        .with_context(|| format!("{}: cannot read the folder", a.dir.display()))?;
    // The first tidy of the folder in this run: it always runs.
    let tidied = tidy(&a.dir).unwrap_or_default();
    note_removed(&a.dir, &tidied.removed);
    let report = PakRecovered {
        folder: a.dir.display().to_string(),
        recovered: (tidied.recovered.iter())
            .map(RecoveredReplacement::of)
            .collect(),
    };
    print::report(ctx, &report, || report.text())?;
    Ok(if report.all_settled() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    })
}
