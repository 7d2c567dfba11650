//! `sylcol names guess PATTERN [--archive A]`: expand a naming hypothesis,
//! hash every candidate, report which exist in which archive.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use sylcol::report::error::UsageError;
use sylcol::report::names::{Guess, Guessed};
use sylcol_format::naming::{Pattern, Targets};

use super::{open_all, walk};
use crate::{Context, Outcome, print};

/// Arguments of `sylcol names guess`.
#[derive(clap::Args)]
pub struct Args {
    /// The pattern: `{a,b}` alternatives (nestable), `{01..16}` ranges
    /// (zero-padded when a bound is); `/` is read as `\`. At most 2^20
    /// candidates in all.
    pattern: String,
    /// An archive (`.pak`) or a folder of them to look the candidates up in
    /// (repeatable). Without one, every candidate is printed with its hash.
    #[arg(long, value_name = "A")]
    archive: Vec<PathBuf>,
}

/// Runs the command: exit 1 when no candidate is an entry.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    // A pattern that cannot be read, or expands past MAX_CANDIDATES, is a
    // usage error (exit 2), refused before any candidate is made.
    let pattern = Pattern::parse(&args.pattern).map_err(|e| UsageError(e.to_string()))?;
    if args.archive.is_empty() {
        return list(&pattern, ctx.json);
    }
    let found_archives = walk(&args.archive)?.archives;
    let archives = open_all(&found_archives)?;
    let mut holders: HashMap<u32, Vec<usize>> = HashMap::new();
    for (a, archive) in archives.iter().enumerate() {
        for e in archive.entries() {
            holders.entry(e.hash).or_default().push(a);
        }
    }
    let targets = Targets::new(holders.keys().copied());
    let started = Instant::now();
    let mut hits = Vec::new();
    pattern.for_each(|choice, hash| {
        if targets.contains(hash) {
            hits.push((pattern.render(choice), hash));
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let found = hits
        .into_iter()
        .map(|(name, hash)| Guessed {
            entries: holders[&hash]
                .iter()
                .map(|&a| format!("{}+{name}", found_archives[a].pak))
                .collect(),
            hash: format!("{hash:08X}"),
            name,
        })
        .collect();
    let count = u64::try_from(pattern.count()).unwrap_or(u64::MAX);
    let report = Guess {
        pattern: args.pattern.clone(),
        candidates: count,
        archives: archives.len(),
        seconds,
        candidates_per_second: count as f64 / seconds.max(1e-9),
        found,
    };
    print::report(ctx, &report, || report.text())?;
    Ok(if report.found.is_empty() {
        Outcome::ChecksFailed
    } else {
        Outcome::Ok
    })
}

/// Without an archive: every candidate and its hash.
fn list(pattern: &Pattern, json: bool) -> anyhow::Result<Outcome> {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut result = Ok(());
    let mut first = true;
    if json {
        write!(out, "[")?;
    }
    pattern.for_each(|choice, hash| {
        if result.is_err() {
            return;
        }
        let name = pattern.render(choice);
        result = if json {
            let sep = if first { "" } else { "," };
            first = false;
            let name = serde_json::to_string(&name).unwrap_or_default();
            write!(
                out,
                "{sep}\n  {{\"name\": {name}, \"hash\": \"{hash:08X}\"}}"
            )
        } else {
            writeln!(out, "{hash:08X} {name}")
        };
    });
    result?;
    if json {
        writeln!(out, "\n]")?;
    }
    out.flush()?;
    Ok(Outcome::Ok)
}
