//! `sylcol verify PATH... [--json] [--seed N] [--resource-ids FILE]`: every
//! invariant of the seeds, each beside its control, on files, whole
//! archives (every entry sylcol decodes) and `ARCHIVE.pak+INNER` entries.

use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use sylcol::verify::{self, collisionset, mcol, text};
use sylcol_format::Format;

use sylcol_format::text::escape_lines;

use crate::Outcome;
use crate::input::{Input, Item, inputs};

/// Arguments of `sylcol verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Files, whole archives, or `ARCHIVE.pak+INNER` entries.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Seed of the randomised controls (printed, so a run repeats).
    #[arg(long, default_value_t = verify::DEFAULT_SEED)]
    pub seed: u64,
    /// GameResourceIDs, one a line, for the CollisionSet name test.
    #[arg(long, value_name = "FILE")]
    pub resource_ids: Option<PathBuf>,
}

/// One verified object, as `--json` prints it.
#[derive(Serialize)]
#[serde(untagged)]
enum Object {
    Mcol {
        path: String,
        format: &'static str,
        #[serde(flatten)]
        report: mcol::McolReport,
    },
    CollisionSet {
        path: String,
        format: &'static str,
        #[serde(flatten)]
        report: collisionset::CollisionSetReport,
    },
}

/// The whole run, as `--json` prints it.
#[derive(Serialize, Default)]
struct Run {
    seed: u64,
    ok: bool,
    objects: Vec<Object>,
    /// Inputs that could not be read or decoded.
    errors: Vec<String>,
    /// Archive entries in formats verify does not check.
    skipped: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let ids = match &args.resource_ids {
        Some(f) => Some(read_ids(f)?),
        None => None,
    };
    let mut run = Run {
        seed: args.seed,
        ..Run::default()
    };
    for path in &args.paths {
        let objects = match inputs(path) {
            Ok(objects) => objects,
            Err(e) => {
                run.errors.push(crate::message(&e));
                continue;
            }
        };
        let in_archive = objects.archive().is_some();
        if let Some(a) = objects.archive() {
            let problems = a.index.problems.iter();
            run.errors
                .extend(problems.map(|p| format!("{path}: index {p}")));
        }
        for item in objects {
            match item {
                Ok(Item::Whole(input)) => {
                    verify_input(&input, in_archive, ids.as_deref(), &mut run)
                }
                Ok(Item::Other { name, .. }) if in_archive => run.skipped.push(name),
                Ok(Item::Other { name, magic }) => run.errors.push(format!(
                    "{name}: not a format sylcol verifies (magic {})",
                    magic.as_deref().unwrap_or("not printable")
                )),
                Err(e) => run.errors.push(crate::message(&e)),
            }
        }
    }
    run.ok = run.errors.is_empty() && run.objects.iter().all(Object::ok);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        print_text(&run);
    }
    for e in &run.errors {
        note!("sylcol: error: {e}");
    }
    if !run.errors.is_empty() {
        anyhow::bail!("{} input(s) could not be verified", run.errors.len());
    }
    Ok(if run.ok {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
}

/// Verifies one object; `in_archive` entries of other formats are skipped,
/// a lone file of another format is an error.
fn verify_input(input: &Input, in_archive: bool, ids: Option<&[String]>, run: &mut Run) {
    match sylcol_format::detect(&input.bytes) {
        Format::Mcol => match sylcol_format::mcol::decode(&input.bytes) {
            Ok(m) => run.objects.push(Object::Mcol {
                path: input.name.clone(),
                format: "MCOL",
                report: mcol::verify(&m, Some(&input.bytes), run.seed),
            }),
            Err(e) => run.errors.push(format!("{}: invalid MCOL {e}", input.name)),
        },
        Format::CollisionSet => match sylcol_format::collisionset::decode(&input.bytes) {
            Ok(set) => {
                let names: Vec<String> = set.records.iter().map(|r| r.name()).collect();
                let meshes: Vec<collisionset::MeshRef> = set
                    .records
                    .iter()
                    .zip(&names)
                    .map(|(r, name)| collisionset::MeshRef {
                        name,
                        vertices: &r.vertices,
                        triangles: &r.triangles,
                    })
                    .collect();
                let object = collision_set_object(input, &meshes, ids, run.seed);
                run.objects.push(object);
            }
            Err(e) => run
                .errors
                .push(format!("{}: invalid CollisionSet {e}", input.name)),
        },
        Format::Unknown(_) if in_archive => run.skipped.push(input.name.clone()),
        Format::Unknown(magic) => run.errors.push(format!(
            "{}: not a format sylcol verifies (magic {})",
            input.name,
            magic.as_deref().unwrap_or("not printable")
        )),
    }
}

/// A verified CollisionSet library, from its bytes and decoded meshes.
fn collision_set_object(
    input: &Input,
    meshes: &[collisionset::MeshRef],
    ids: Option<&[String]>,
    seed: u64,
) -> Object {
    Object::CollisionSet {
        path: input.name.clone(),
        format: "CollisionSet",
        report: collisionset::verify(&input.bytes, meshes, ids, seed),
    }
}

fn read_ids(path: &PathBuf) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the resource-id list", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

impl Object {
    fn format(&self) -> &'static str {
        match self {
            Object::Mcol { format, .. } | Object::CollisionSet { format, .. } => format,
        }
    }

    fn checks(&self) -> &[verify::Check] {
        match self {
            Object::Mcol { report, .. } => &report.checks,
            Object::CollisionSet { report, .. } => &report.checks,
        }
    }

    fn ok(&self) -> bool {
        match self {
            Object::Mcol { report, .. } => report.ok,
            Object::CollisionSet { report, .. } => report.ok,
        }
    }
}

fn print_text(run: &Run) {
    say!("controls seeded with {} (--seed to change)", run.seed);
    for o in &run.objects {
        say!();
        match o {
            Object::Mcol { path, report, .. } => {
                print!("{}", escape_lines(&text::mcol_text(path, report)))
            }
            Object::CollisionSet { path, report, .. } => {
                print!("{}", escape_lines(&text::collisionset_text(path, report)))
            }
        }
    }
    for format in ["MCOL", "CollisionSet"] {
        let of_format: Vec<&[verify::Check]> = run
            .objects
            .iter()
            .filter(|o| o.format() == format)
            .map(Object::checks)
            .collect();
        if of_format.len() > 1 {
            say!("\nsummary over {} {format} objects", of_format.len());
            print!("{}", escape_lines(&text::summary_table(of_format)));
        }
    }
    if !run.skipped.is_empty() {
        say!("\nskipped {} entries in other formats", run.skipped.len());
    }
    let failed = run.objects.iter().filter(|o| !o.ok()).count();
    say!(
        "\n{} object(s) verified: {} ok, {failed} failed, {} unreadable",
        run.objects.len(),
        run.objects.len() - failed,
        run.errors.len()
    );
}
