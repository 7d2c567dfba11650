//! `sylcol pairs ARCHIVE [--names FILE]`: which REGN goes with which MCOL,
//! and the evidence for each pairing (docs/formats/regn.md).

use sylcol::pairs::{Grid, Object};
use sylcol::report::error::ObjectError;
use sylcol::report::names::Pairs;
use sylcol_format::{mcol, regn};

use crate::{Context, Outcome, print};

/// Arguments of `sylcol pairs`.
#[derive(clap::Args)]
pub struct Args {
    /// The archive holding the MCOL and REGN entries.
    archive: String,
}

/// Runs the command: exit 1 when a REGN stays unpaired, 2 when an entry
/// could not be read.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = ctx.open.archive(&args.archive)?;
    let (mut regns, mut mcols, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for e in archive.entries() {
        let info = match archive.probe(e) {
            Ok(info) => info,
            Err(err) => {
                errors.push(print::error_report(&err.into()));
                continue;
            }
        };
        if !matches!(info.magic.as_deref(), Some("MCOL" | "REGN")) {
            continue;
        }
        let object = match archive.read_object(&info, false) {
            Ok(Ok(bytes)) => grid_of(&bytes).map_err(anyhow::Error::from),
            Ok(Err(error)) => {
                // Named by its path already: no context to add.
                let path = format!("{}+{}", args.archive, info.display);
                errors.push(print::error_report(&ObjectError { path, error }.into()));
                continue;
            }
            Err(e) => Err(e.into()),
        };
        match object {
            Ok((is_regn, grid)) => {
                let o = Object {
                    display: info.display.clone(),
                    name: info.name.clone(),
                    grid,
                };
                if is_regn {
                    regns.push(o);
                } else {
                    mcols.push(o);
                }
            }
            Err(err) => errors.push(print::error_report(
                &err.context(format!("{}+{}", args.archive, info.display)),
            )),
        }
    }
    let mut report = Pairs::of(&args.archive, &regns, &mcols, errors);
    report.names = ctx.open.names_used();
    print::errors(&report.errors, ctx);
    print::report(ctx, &report, || report.text())?;
    Ok(if !report.errors.is_empty() {
        Outcome::InputErrors
    } else if !report.ambiguous.is_empty() {
        Outcome::ChecksFailed
    } else {
        Outcome::Ok
    })
}

/// Decodes an MCOL or REGN entry: (is it a REGN, its grid).
fn grid_of(bytes: &[u8]) -> Result<(bool, Grid), sylcol_format::DecodeError> {
    if bytes.starts_with(b"REGN") {
        Ok((true, Grid::of_regn(&regn::decode(bytes)?)))
    } else {
        Ok((false, Grid::of_mcol(&mcol::decode(bytes)?)))
    }
}
