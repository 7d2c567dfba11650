//! `sylcol rewrite FILE -o OUT`: decode then encode. For every valid file
//! the output is byte-identical to the input; anything else is a defect
//! reported as a failed check (exit 1), with the first differing byte.
//! The report is `sylcol::report::files::RewriteReport`.

use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::files::RewriteReport;
use sylcol_format::encode_any;

use crate::output::{is_stdout, write_output};
use crate::{Context, Outcome, print};

/// Arguments of `sylcol rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, `ARCHIVE.pak+INNER`, or `-` (standard input).
    pub file: String,
    /// Where to write the re-encoded object (`-`: standard output).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    if is_stdout(&args.output) && ctx.json {
        anyhow::bail!(sylcol::report::error::UsageError(
            "-o - writes the object to standard output, where --json would write the report; pick one".into()
        ));
    }
    let (input, object) = ctx.open.object(&args.file)?.decode()?;
    let encoded =
        encode_any(&object).with_context(|| format!("{}: cannot re-encode", input.name))?;
    write_output(&args.output, &encoded)?;
    let report = RewriteReport::new(
        &input.name,
        &args.output.display().to_string(),
        object.kind().name(),
        &input.bytes,
        &encoded,
    );
    if ctx.json {
        print::report(ctx, &report, String::new)?;
    } else {
        note!("{}", report.text().trim_end_matches('\n'));
    }
    Ok(if report.identical {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
}
