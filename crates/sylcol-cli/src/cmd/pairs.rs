//! `sylcol pairs ARCHIVE [--names FILE] [--json]`: which REGN goes with
//! which MCOL, and the evidence for each pairing (docs/formats/regn.md).

use std::path::PathBuf;

use serde::Serialize;
use sylcol::pairs::{By, Grid, Object, pair};
use sylcol_format::{mcol, regn};

use crate::Outcome;
use crate::input::open_archive;

/// Arguments of `sylcol pairs`.
#[derive(clap::Args)]
pub struct Args {
    /// The archive holding the MCOL and REGN entries.
    archive: String,
    /// A name list (one name a line, `pak+inner` or bare); a `names.txt`
    /// beside the archive is read too.
    #[arg(long)]
    names: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// One pairing, as reported.
#[derive(Serialize)]
struct PairRow {
    regn: String,
    mcol: String,
    /// `"name"` or `"grid"`.
    by: &'static str,
    /// The grids compared (the REGN's; the MCOL's when they differ).
    grid: String,
    grids_agree: bool,
    evidence: String,
}

/// A REGN left unpaired.
#[derive(Serialize)]
struct AmbiguousRow {
    regn: String,
    grid: String,
    candidates: Vec<String>,
    rivals: Vec<String>,
    evidence: String,
}

#[derive(Serialize)]
struct Report {
    archive: String,
    regn: usize,
    mcol: usize,
    pairs: Vec<PairRow>,
    ambiguous: Vec<AmbiguousRow>,
    unpaired_mcol: Vec<String>,
    failures: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let archive = open_archive(&args.archive, args.names.as_deref())?;
    let (mut regns, mut mcols, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for e in archive.entries() {
        let info = match archive.probe(e) {
            Ok(info) => info,
            Err(err) => {
                failures.push(err.to_string());
                continue;
            }
        };
        let wanted = matches!(info.magic.as_deref(), Some("MCOL" | "REGN"));
        if !wanted {
            continue;
        }
        let object = archive
            .read_entry(&info)
            .map_err(anyhow::Error::from)
            .and_then(|bytes| grid_of(&bytes).map_err(anyhow::Error::from));
        match object {
            Ok((is_regn, grid)) => {
                let o = Object {
                    display: info.display.clone(),
                    name: info.name.clone(),
                    grid,
                };
                if is_regn {
                    regns.push(o)
                } else {
                    mcols.push(o)
                }
            }
            Err(err) => failures.push(format!("{}+{}: {err:#}", args.archive, info.display)),
        }
    }
    let report = report(&args.archive, &regns, &mcols, failures);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report);
    }
    let all_paired = report.ambiguous.is_empty() && report.failures.is_empty();
    Ok(if all_paired {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
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

fn report(path: &str, regns: &[Object], mcols: &[Object], failures: Vec<String>) -> Report {
    let p = pair(regns, mcols);
    let pairs = p
        .pairs
        .iter()
        .map(|x| {
            let (r, m) = (&regns[x.regn], &mcols[x.mcol]);
            let grid = if x.grids_agree {
                r.grid.describe()
            } else {
                format!("{} / MCOL: {}", r.grid.describe(), m.grid.describe())
            };
            let evidence = match (x.by, x.grids_agree) {
                (By::Name, true) => "one stem, .rgn / .col; the grids agree".to_string(),
                (By::Name, false) => "one stem, .rgn / .col; the grids DIFFER".to_string(),
                (By::Grid, _) => {
                    "the only unpaired MCOL with an identical bbox, cell size and grid".to_string()
                }
            };
            PairRow {
                regn: r.display.clone(),
                mcol: m.display.clone(),
                by: if x.by == By::Name { "name" } else { "grid" },
                grid,
                grids_agree: x.grids_agree,
                evidence,
            }
        })
        .collect();
    let ambiguous = p
        .ambiguous
        .iter()
        .map(|a| {
            let evidence = match (a.candidates.len(), a.rivals.len()) {
                (0, _) => "no unpaired MCOL has this grid".to_string(),
                (n, 0) => format!("{n} unpaired MCOLs share this grid"),
                (n, k) => format!("{n} unpaired MCOLs and {} REGNs share this grid", k + 1),
            };
            AmbiguousRow {
                regn: regns[a.regn].display.clone(),
                grid: regns[a.regn].grid.describe(),
                candidates: a
                    .candidates
                    .iter()
                    .map(|&m| mcols[m].display.clone())
                    .collect(),
                rivals: a.rivals.iter().map(|&r| regns[r].display.clone()).collect(),
                evidence,
            }
        })
        .collect();
    Report {
        archive: path.to_string(),
        regn: regns.len(),
        mcol: mcols.len(),
        pairs,
        ambiguous,
        unpaired_mcol: p
            .unpaired_mcol
            .iter()
            .map(|&m| mcols[m].display.clone())
            .collect(),
        failures,
    }
}

fn print(r: &Report) {
    let by_name = r.pairs.iter().filter(|p| p.by == "name").count();
    println!(
        "{}: {} REGN, {} MCOL: {} paired ({by_name} by name, {} by grid), {} not paired",
        r.archive,
        r.regn,
        r.mcol,
        r.pairs.len(),
        r.pairs.len() - by_name,
        r.ambiguous.len()
    );
    for p in &r.pairs {
        println!(
            "  {:<28} <-> {:<28} by {}: {}",
            p.regn, p.mcol, p.by, p.evidence
        );
        println!("      {}", p.grid);
    }
    for a in &r.ambiguous {
        println!("  {:<28} AMBIGUOUS: {}", a.regn, a.evidence);
        println!("      {}", a.grid);
        if !a.candidates.is_empty() {
            println!("      candidates: {}", a.candidates.join(", "));
        }
    }
    if !r.unpaired_mcol.is_empty() {
        println!("  MCOL without a REGN: {}", r.unpaired_mcol.join(", "));
    }
    for f in &r.failures {
        eprintln!("sylcol: {f}");
    }
}
