//! `sylcol names harvest PATH... [-o names.txt]`: every entry of every
//! archive under PATH, inflated as a stream, searched for strings; string
//! tables (IDXD / IXUD) give their pools; every string's variants are
//! hashed and matched against every entry hash of every archive.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use sylcol::report::names::Harvest;
use sylcol_format::idxd::{self, decode_lossy};
use sylcol_format::ipfb::{Archive, IndexEntry};
use sylcol_format::naming::{Harvester, Hit, Targets};
use sylcol_format::text::{escape, is_hidden_control};

use super::report::{self, Run};
use super::{open_all, walk};
use crate::cmd::pak::extract::progress_bar;
use crate::{Context, Outcome, print};

/// Read buffer per worker.
const BUFFER: usize = 256 * 1024;
/// Largest string table read whole to use its pool (larger ones are scanned).
const MAX_TABLE: u64 = 64 << 20;

/// Arguments of `sylcol names harvest`.
#[derive(clap::Args)]
pub struct Args {
    /// Archives (`.pak`) or folders holding them (a disc folder).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write the names found here, in the `--names` format (`pak+inner`
    /// lines), instead of beside the archives. Without it, each archive's
    /// names are merged into the `names.txt` beside it (or, where that
    /// folder cannot be written, into a per-user cache file), which every
    /// command opening the archive reads.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also scan the files that are not archives (folders: every other file).
    #[arg(long)]
    loose: bool,
}

/// One unit of work: an archive entry (one per stored location) or a loose file.
#[derive(Clone, Copy)]
enum Job {
    Entry { archive: usize, entry: IndexEntry },
    Loose(usize),
}

/// What the workers learn besides hits: each job's label and magic, failures.
#[derive(Default)]
pub struct Findings {
    /// Per job: how to name it in the report.
    pub labels: Vec<String>,
    /// Per job: the entry's magic, when printable.
    pub magics: Vec<Option<String>>,
    /// Entries or files that could not be read.
    pub failures: Vec<anyhow::Error>,
}

/// Runs the command: exit 2 when an entry or file could not be read (the
/// others are harvested).
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    if let Some(path) = &args.output {
        crate::output::refuse_stdout(
            path,
            "the report is written there: name a file for the names (names.txt)",
        )?;
    }
    let started = Instant::now();
    let found = walk(&args.paths)?;
    let archives = open_all(&found.archives)?;
    let loose = if args.loose {
        found.loose.clone()
    } else {
        Vec::new()
    };
    let targets = Targets::new(
        archives
            .iter()
            .flat_map(|a| a.entries().iter().map(|e| e.hash)),
    );
    let jobs = jobs(&archives, loose.len());
    let total: u64 = jobs.iter().map(|j| job_size(j, &loose)).sum();
    let bar = progress_bar(total);
    let next = AtomicUsize::new(0);
    let findings = Mutex::new(Findings {
        labels: vec![String::new(); jobs.len()],
        magics: vec![None; jobs.len()],
        failures: Vec::new(),
    });
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().max(1));
    let harvester = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut h = Harvester::new(&targets);
                    let mut buf = vec![0u8; BUFFER];
                    loop {
                        let source = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(source) else { break };
                        let shared = Shared {
                            archives: &archives,
                            found: &found,
                            loose: &loose,
                            findings: &findings,
                        };
                        work(source, job, &shared, &mut h, &mut buf);
                        bar.inc(job_size(job, &loose));
                    }
                    h
                })
            })
            .collect();
        let mut all = Harvester::new(&targets);
        for w in workers {
            all.merge(w.join().expect("a harvest worker panicked"));
        }
        all
    });
    bar.finish_and_clear();
    let stats = harvester.stats();
    let findings = findings.into_inner().expect("no worker panicked");
    let hits = without_controls(harvester.into_hits(), &findings, ctx);
    let errors: Vec<_> = findings.failures.iter().map(print::error_report).collect();
    let run = Run {
        found: &found.archives,
        archives: &archives,
        findings: &findings,
        sources: &jobs_sources(&jobs),
        stats,
        elapsed: started.elapsed(),
    };
    let output = args.output.as_ref().map(|p| p.display().to_string());
    let mut report = report::build(&run, &hits, errors, output);
    match &args.output {
        Some(path) => crate::output::write_atomic(path, report.names_file().as_bytes())
            .with_context(|| format!("{}: cannot write the names", path.display()))?,
        None => keep_beside(&mut report, &found.archives)?,
    }
    print::errors(&report.errors, ctx);
    print::report(ctx, &report, || report.text())?;
    Ok(if report.errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    })
}

/// Keeps each archive's names where every command opening it reads them
/// (`sylcol::source::keep`: the `names.txt` beside it, else the cache).
fn keep_beside(report: &mut Harvest, found: &[super::Found]) -> anyhow::Result<()> {
    for (a, f) in report.archives.iter().zip(found) {
        if a.named.is_empty() {
            continue;
        }
        let names: Vec<String> = a.named.iter().map(|n| n.name.clone()).collect();
        let kept = sylcol::source::keep(&f.path, &names)?;
        report.kept.push(kept);
    }
    Ok(())
}

/// The hits whose name can be a `names.txt` line: a name holding a
/// control character (a newline in a table string would be a second line,
/// an ESC would act on the terminal) is skipped, with a note that shows it
/// escaped (`sylcol_format::text::escape`), and never written.
fn without_controls(hits: Vec<Hit>, findings: &Findings, ctx: Context) -> Vec<Hit> {
    let (refused, kept): (Vec<Hit>, Vec<Hit>) = hits
        .into_iter()
        .partition(|h| h.name.chars().any(is_hidden_control));
    for h in &refused {
        if !ctx.json {
            let found = findings.labels.get(h.source).map_or("", String::as_str);
            note!(
                "sylcol: names harvest: skipped \"{}\" for entry {:08X} (found in {found} at {:#x}): \
                 a name holding a control character cannot be a names.txt line",
                escape(&h.name),
                h.hash,
                h.offset
            );
        }
    }
    kept
}

/// One job per stored location of each archive (the sample library's
/// eighteen names share one), then the loose files.
fn jobs(archives: &[Archive], loose: usize) -> Vec<Job> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (a, archive) in archives.iter().enumerate() {
        for e in archive.entries() {
            if seen.insert((a, e.part, e.offset, e.stored_size)) {
                out.push(Job::Entry {
                    archive: a,
                    entry: *e,
                });
            }
        }
    }
    out.extend((0..loose).map(Job::Loose));
    out
}

/// For the report: which archive entry each job read (`None`: a loose file).
fn jobs_sources(jobs: &[Job]) -> Vec<Option<(usize, IndexEntry)>> {
    jobs.iter()
        .map(|j| match j {
            Job::Entry { archive, entry } => Some((*archive, *entry)),
            Job::Loose(_) => None,
        })
        .collect()
}

fn job_size(job: &Job, loose: &[PathBuf]) -> u64 {
    match job {
        Job::Entry { entry, .. } => u64::from(entry.stored_size),
        Job::Loose(i) => std::fs::metadata(&loose[*i]).map_or(0, |m| m.len()),
    }
}

/// What every worker reads.
struct Shared<'a> {
    archives: &'a [Archive],
    found: &'a super::Walk,
    loose: &'a [PathBuf],
    findings: &'a Mutex<Findings>,
}

/// Job number `source`: its strings into `h`, its label and failures into the findings.
fn work(source: usize, job: &Job, ctx: &Shared, h: &mut Harvester, buf: &mut [u8]) {
    let findings = ctx.findings;
    let result = match *job {
        Job::Entry { archive, entry } => {
            let path = ctx.found.archives[archive].path.display().to_string();
            harvest_entry(
                &ctx.archives[archive],
                &path,
                &entry,
                source,
                h,
                buf,
                findings,
            )
        }
        Job::Loose(i) => {
            let path = &ctx.loose[i];
            set(findings, source, path.display().to_string(), None);
            std::fs::File::open(path)
                .and_then(|mut f| h.scan(source, &mut f, buf))
                .with_context(|| format!("{}: cannot read", path.display()))
        }
    };
    if let Err(e) = result {
        findings
            .lock()
            .expect("no worker panicked")
            .failures
            .push(e);
    }
}

fn set(findings: &Mutex<Findings>, source: usize, label: String, magic: Option<String>) {
    let mut f = findings.lock().expect("no worker panicked");
    f.labels[source] = label;
    f.magics[source] = magic;
}

/// One archive entry: a string table's pool, or a streamed scan.
fn harvest_entry(
    archive: &Archive,
    path: &str,
    entry: &IndexEntry,
    source: usize,
    h: &mut Harvester,
    buf: &mut [u8],
    findings: &Mutex<Findings>,
) -> anyhow::Result<()> {
    let info = archive
        .probe(entry)
        .with_context(|| format!("{path}: cannot read"))?;
    let label = format!("{path}+{}", info.display);
    set(findings, source, label.clone(), info.magic.clone());
    let table = matches!(info.magic.as_deref(), Some("IDXD" | "IXUD")) && info.size <= MAX_TABLE;
    if table {
        let bytes = archive
            .read_entry(&info)
            .with_context(|| format!("{label}: cannot read"))?;
        match idxd::decode(&bytes) {
            Ok(t) => {
                h.count_bytes(bytes.len() as u64);
                let pool = t.pool();
                for s in &pool.strings {
                    let text = decode_lossy(s.bytes(pool.bytes), t.flavour);
                    h.offer(source, t.pool_offset() + s.start as u64, text.as_bytes());
                }
            }
            // Not a table after all: its bytes are scanned like any entry's.
            Err(_) => h.scan(source, &mut bytes.as_slice(), buf)?,
        }
        return Ok(());
    }
    let mut reader = archive
        .open_entry(&info)
        .with_context(|| format!("{label}: cannot read"))?;
    h.scan(source, &mut reader as &mut dyn Read, buf)
        .with_context(|| format!("{label}: cannot read"))
}
