//! `sylcol info FILE [--json]`: what an object is and where its parts lie
//! (the report is `sylcol::report::info`).

use sylcol::report::info::InfoDocument;

use crate::input::is_archive;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol info`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, `ARCHIVE.pak+INNER`, a whole `.pak`, or `-`
    /// (standard input).
    pub file: String,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    if is_archive(&args.file) {
        return archive_info(&args.file, ctx);
    }
    let input = ctx.open.object(&args.file)?.whole()?;
    let mut info = InfoDocument::object(&input.name, &input.bytes)?;
    info.names = ctx.open.names_used();
    print::report(ctx, &info, || info.text())?;
    Ok(Outcome::Ok)
}

/// `info` on a whole archive: a row per entry it can decode, the entries
/// of other formats, and every failure (exit 2 when there is one).
fn archive_info(path: &str, ctx: Context) -> anyhow::Result<Outcome> {
    let mut report = InfoDocument::archive(path);
    report.push_objects(path, ctx.open.objects(path)?);
    report.names = ctx.open.names_used();
    let failed = !report.errors.is_empty();
    print::report(ctx, &report, || report.text())?;
    print::errors(&report.errors, ctx);
    Ok(if failed {
        Outcome::InputErrors
    } else {
        Outcome::Ok
    })
}
