//! `sylcol verify PATH... [--verbose | --failures] [--seed N]
//! [--resource-ids FILE]`: every invariant of the seeds, each beside its
//! control, on files, whole archives (every entry sylcol decodes) and
//! `ARCHIVE.pak+INNER` entries. The report is
//! `sylcol::report::verify::VerifyRun`; its text is a line per object
//! (`Detail`), objects with the same bytes written once.

use std::path::PathBuf;

use sylcol::report::verify::VerifyRun;
use sylcol::report::verify::summary::Detail;
use sylcol::verify;

use crate::input::read_file;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Files, whole archives, `ARCHIVE.pak+INNER` entries, or `-`.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Seed of the randomised controls (printed, so a run repeats).
    #[arg(long, default_value_t = verify::DEFAULT_SEED)]
    pub seed: u64,
    /// GameResourceIDs, one a line, for the CollisionSet name test.
    #[arg(long, value_name = "FILE")]
    pub resource_ids: Option<PathBuf>,
    /// Every check of every object with its control, the figures given
    /// for information, and a table per format.
    #[arg(long, short = 'v', conflicts_with = "failures")]
    pub verbose: bool,
    /// Only the objects that failed, with their failing checks (nothing
    /// when every check holds). `--json` always has every object.
    #[arg(long)]
    pub failures: bool,
}

/// Runs the command: exit 2 when an input could not be read or decoded
/// (the others are still verified), else 1 when a check failed.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    let ids = match &args.resource_ids {
        Some(f) => Some(read_ids(f)?),
        None => None,
    };
    let mut run = VerifyRun::new(args.seed);
    for path in &args.paths {
        match ctx.open.objects(path) {
            Ok(objects) => run.push_objects(path, objects, ids.as_deref()),
            Err(e) => run.error(e.report()),
        }
    }
    let detail = match (args.verbose, args.failures) {
        (true, _) => Detail::Verbose,
        (_, true) => Detail::Failures,
        _ => Detail::Summary,
    };
    run.names = ctx.open.names_used();
    let text = run.text(detail);
    // `--failures` with nothing failed prints nothing at all (not even
    // where the names came from), so that a script can test for silence.
    if ctx.json || !text.is_empty() {
        print::report(ctx, &run, || text)?;
    }
    print::errors(&run.errors, ctx);
    Ok(if !run.errors.is_empty() {
        Outcome::InputErrors
    } else if run.ok {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
}

fn read_ids(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let bytes = read_file(&path.display().to_string())?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}
