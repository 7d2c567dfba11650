//! `sylcol build idxd TEXT -o OUT`: an IDXD / IXUD string table from its
//! text form (what `export` writes; docs/formats/idxd.md). Exporting a
//! table and building the text back gives the original bytes.

use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::report::build::TableBuilt;
use sylcol_format::idxd;

use super::{print_built, refuse_two_stdouts};
use crate::input::read_file;
use crate::output::write_output;
use crate::{Context, Outcome};

/// Arguments of `sylcol build idxd`.
#[derive(clap::Args)]
pub struct Args {
    /// The text form (`-`: standard input).
    text: PathBuf,
    /// Where to write the table (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
}

/// Runs the command.
pub fn run(a: Args, ctx: Context) -> anyhow::Result<Outcome> {
    refuse_two_stdouts(&a.output, ctx)?;
    let name = a.text.display().to_string();
    let bytes = read_file(&name)?;
    let text = String::from_utf8(bytes).with_context(|| format!("{name}: not UTF-8 text"))?;
    let table = idxd::text::from_text(&text)
        .with_context(|| format!("{name}: not a string table's text form"))?;
    let encoded = idxd::encode(&table).with_context(|| format!("{name}: cannot encode"))?;
    write_output(&a.output, &encoded)?;
    let report = TableBuilt::new(
        &name,
        &a.output.display().to_string(),
        &table,
        encoded.len(),
    );
    print_built(&a.output, ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}
