//! Assembling the harvest's report ([`Harvest`]) from the workers' results.

use std::collections::HashMap;
use std::time::Duration;

use sylcol::report::ErrorReport;
use sylcol::report::names::{Harvest, HarvestArchive, HarvestStats, Named, Unnamed};
use sylcol_format::ipfb::names::unknown_display;
use sylcol_format::ipfb::{Archive, IndexEntry, NameBook};
use sylcol_format::naming::{Hit, Stats, best_names};

use super::Found;
use super::harvest::Findings;

/// What the harvest went through, besides the hits.
pub struct Run<'a> {
    /// The archives found and opened.
    pub found: &'a [Found],
    /// The same, opened.
    pub archives: &'a [Archive],
    /// Labels, magics of each job.
    pub findings: &'a Findings,
    /// Which archive entry each job read (`None`: a loose file).
    pub sources: &'a [Option<(usize, IndexEntry)>],
    /// The figures.
    pub stats: Stats,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// The report: per archive, the best name of each entry a string named.
pub fn build(run: &Run, hits: &[Hit], errors: Vec<ErrorReport>, output: Option<String>) -> Harvest {
    let best: HashMap<u32, (&Hit, Vec<&Hit>)> = best_names(hits)
        .into_iter()
        .map(|b| (b.0.hash, b))
        .collect();
    let mut magic_at = HashMap::new();
    for (job, source) in run.sources.iter().enumerate() {
        if let Some((a, e)) = source {
            magic_at.insert(
                (*a, e.location(), e.stored_size),
                run.findings.magics[job].clone(),
            );
        }
    }
    let builtin = NameBook::builtin();
    let archives = (run.found.iter().zip(run.archives).enumerate())
        .map(|(a, (f, archive))| {
            let mut block = HarvestArchive {
                path: f.path.display().to_string(),
                pak: f.pak.clone(),
                entry_count: archive.entries().len(),
                named: Vec::new(),
                unnamed: Vec::new(),
            };
            for e in archive.entries() {
                match best.get(&e.hash) {
                    Some((hit, rivals)) => block.named.push(named(hit, rivals, run.findings)),
                    None => {
                        let magic = magic_at
                            .get(&(a, e.location(), e.stored_size))
                            .cloned()
                            .flatten();
                        block.unnamed.push(Unnamed {
                            hash: format!("{:08X}", e.hash),
                            entry: unknown_display(e.hash, magic.as_deref()),
                            builtin: builtin.get(e.hash).map(str::to_string),
                        });
                    }
                }
            }
            block.named.sort_by_key(|n| n.name.to_ascii_lowercase());
            block
        })
        .collect();
    let seconds = run.elapsed.as_secs_f64().max(1e-9);
    let s = run.stats;
    Harvest {
        archives,
        output,
        kept: Vec::new(),
        stats: HarvestStats {
            archives: run.archives.len(),
            files_read: run.sources.len(),
            bytes: s.bytes,
            strings: s.strings,
            candidates: s.candidates,
            seconds: run.elapsed.as_secs_f64(),
            mb_per_second: s.bytes as f64 / 1e6 / seconds,
            candidates_per_second: s.candidates as f64 / seconds,
        },
        errors,
    }
}

fn named(hit: &Hit, rivals: &[&Hit], findings: &Findings) -> Named {
    Named {
        hash: format!("{:08X}", hit.hash),
        name: hit.name.clone(),
        found: hit.found.clone(),
        path: findings.labels.get(hit.source).cloned().unwrap_or_default(),
        offset: hit.offset,
        exact: hit.exact,
        occurrences: hit.occurrences,
        rivals: rivals.iter().map(|h| h.name.clone()).collect(),
    }
}
