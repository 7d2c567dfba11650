//! `sylcol probe FILE [--json]`: analyse any POF0-relocated chunk (MCOL,
//! REGN, an unknown magic) — header words, relocated slots and their
//! targets, the distance histogram, runs of equal stride, and where each
//! header pointer lands. Works on chunks sylcol cannot decode. The report
//! is `sylcol::report::probe`.

use sylcol::report::error::InvalidInput;
use sylcol::report::probe::{probe_report, probe_text};
use sylcol_format::probe::probe;

use crate::{Context, Outcome, print};

/// Arguments of `sylcol probe`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, `ARCHIVE.pak+INNER`, or `-` (standard input).
    pub file: String,
    /// In text output, list at most this many runs and slots.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    let input = ctx.open.any(&args.file)?;
    let p = probe(&input.bytes).map_err(|error| InvalidInput {
        path: input.name.clone(),
        what: "not a POF0 chunk:",
        error,
    })?;
    let report = probe_report(&input.name, &p);
    print::report(ctx, &report, || probe_text(&input.name, &p, args.limit))?;
    Ok(Outcome::Ok)
}
