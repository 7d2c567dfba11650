//! `sylcol view PATH... -o view.html`: the viewer as one self-contained
//! HTML file, every object's scene and verify report embedded; it opens
//! offline, without a server.

use std::path::PathBuf;

use anyhow::anyhow;

use crate::cmd::serve::catalog;
use crate::output::{is_stdout, write_output};
use crate::{Context, Outcome};

/// Arguments of `sylcol view`.
#[derive(clap::Args)]
pub struct Args {
    /// Files, whole archives, or `ARCHIVE.pak+INNER` entries to show.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// The HTML file to write (`-`: standard output).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    let catalog = catalog(&args.paths, ctx.open)?;
    let page = sylcol_serve::assets::standalone_html(&catalog).map_err(|e| anyhow!(e))?;
    write_output(&args.output, page.as_bytes())?;
    let to = if is_stdout(&args.output) {
        "standard output".to_string()
    } else {
        args.output.display().to_string()
    };
    eprintln!(
        "wrote {} objects to {to} ({} bytes)",
        catalog.objects().len(),
        page.len()
    );
    Ok(Outcome::Ok)
}
