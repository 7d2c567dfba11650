//! `sylcol rewrite` (in progress).

use crate::Outcome;

/// Arguments of `sylcol rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("{}: not implemented yet", args.file)
}
