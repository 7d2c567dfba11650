//! `sylcol build`: game files from a modder's meshes (and string tables
//! from their text form).

use std::path::PathBuf;

use anyhow::Context as _;
use sylcol::TriMesh;
use sylcol::build::hull::{self, HullFault, HullVerdict, OptOuts};
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::import::{ImportOptions, import_file};
use sylcol::report::build::McolBuilt;
use sylcol::report::error::{ErrorKind, ErrorReport, Unsupported, UsageError};
use sylcol_format::Object;

use crate::input::Opener;
use crate::output::{is_stdout, write_output};
use crate::{Context, Outcome, print};

mod collisionset;
mod idxd;

/// Arguments of `sylcol build`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Build an MCOL map hull from an OBJ, glTF/GLB or PLY mesh.
    Mcol(McolArgs),
    /// Build a CollisionSet library from meshes, or edit one in place.
    Collisionset(collisionset::Args),
    /// Build an IDXD / IXUD string table from its text form (`export` writes it).
    Idxd(idxd::Args),
}

/// Arguments of `sylcol build mcol`.
#[derive(clap::Args)]
struct McolArgs {
    /// The mesh: .obj, .gltf, .glb or .ply.
    mesh: PathBuf,
    /// Where to write the MCOL object (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// The grid box; default: the mesh bounds rounded out to whole cells.
    #[arg(long, value_name = "MINX,MINY,MINZ,MAXX,MAXY,MAXZ", value_parser = parse_bbox, allow_hyphen_values = true)]
    bbox: Option<Bbox>,
    /// The cell size; default: the smallest round size (1, 2, 5 x 10^k)
    /// giving at most 10 cells per axis.
    #[arg(long, value_name = "SIZE")]
    cell: Option<f32>,
    /// Take the grid (bbox and cell size) from an existing MCOL: a file or
    /// `ARCHIVE.pak+INNER`. Keeps a modded map on the original's grid.
    #[arg(long, value_name = "MCOL", conflicts_with_all = ["bbox", "cell"])]
    grid_from: Option<String>,
    /// Merge vertices with identical coordinates (and drop unused ones)
    /// before building.
    #[arg(long)]
    weld: bool,
    /// Write the map even when the mesh is not a closed, consistently
    /// oriented hull (open, degenerate, turned over...): a warning on
    /// stderr names what is wrong. Without it such a mesh is refused
    /// (exit 1), as `sylcol verify` would fail the map.
    #[arg(long)]
    allow_open: bool,
}

#[derive(Clone, Copy)]
struct Bbox([f32; 3], [f32; 3]);

fn parse_bbox(s: &str) -> Result<Bbox, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<Result<_, _>>()?;
    match v[..] {
        [a, b, c, d, e, f] => Ok(Bbox([a, b, c], [d, e, f])),
        _ => Err(format!("expected 6 numbers, found {}", v.len())),
    }
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    match args.what {
        What::Mcol(a) => run_mcol(a, ctx),
        What::Collisionset(a) => collisionset::run(a, ctx),
        What::Idxd(a) => idxd::run(a, ctx),
    }
}

/// `-o -` and `--json` would both write to standard output.
pub fn refuse_two_stdouts(output: &std::path::Path, ctx: Context) -> anyhow::Result<()> {
    if is_stdout(output) && ctx.json {
        anyhow::bail!(UsageError(
            "-o - writes the object to standard output, where --json would write the report; pick one".into()
        ));
    }
    Ok(())
}

/// Prints a build report: on standard output, or on standard error when
/// the object itself went to standard output.
pub fn print_built<T: serde::Serialize>(
    output: &std::path::Path,
    ctx: Context,
    report: &T,
    text: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if is_stdout(output) {
        note!("{}", text().trim_end_matches('\n'));
        return Ok(());
    }
    print::report(ctx, report, text)
}

fn run_mcol(a: McolArgs, ctx: Context) -> anyhow::Result<Outcome> {
    refuse_two_stdouts(&a.output, ctx)?;
    let import = ImportOptions {
        weld: a.weld,
        limit: Some(sylcol::build::mcol::COUNT_LIMIT),
    };
    let mesh = import_file(&a.mesh, &import)?;
    let options = match &a.grid_from {
        Some(file) => grid_of(ctx.open, file)?,
        None => McolBuildOptions {
            bbox: a.bbox.map(|b| (b.0, b.1)),
            cell: a.cell,
        },
    };
    let mcol = build_mcol(&mesh, &options).with_context(|| format!("{}", a.mesh.display()))?;
    let name = a.mesh.display().to_string();
    let hull = screen_hull(&name, &mesh, |_| true, &a.hull_options(), ctx);
    if hull.refused {
        return Ok(Outcome::ChecksFailed);
    }
    let bytes = sylcol::format::mcol::encode(&mcol)
        .with_context(|| format!("{}: cannot encode the built MCOL", a.mesh.display()))?;
    write_output(&a.output, &bytes)?;
    let mut report = McolBuilt::new(&name, &a.output.display().to_string(), &mcol, bytes.len());
    report.warnings = hull.warnings;
    print_built(&a.output, ctx, &report, || report.text())?;
    Ok(Outcome::Ok)
}

impl McolArgs {
    fn hull_options(&self) -> HullOptions {
        HullOptions {
            allow_open: self.allow_open,
            welded: self.weld,
        }
    }
}

/// The flags that decide what the hull checks do.
struct HullOptions {
    /// `--allow-open`: write anyway, with a warning.
    allow_open: bool,
    /// `--weld` was given (no hint to give it).
    welded: bool,
}

/// Runs the hull checks on `mesh` (called `name` in messages,
/// [`hull::screen_hull`]) and prints what they found on stderr: a refusal
/// (with `--json`, a `hull` error document) when a fault `refuses` holds
/// for is found without `--allow-open`, else a warning (with `--json`,
/// only in the report).
fn screen_hull(
    name: &str,
    mesh: &TriMesh,
    refuses: impl Fn(&HullFault) -> bool,
    options: &HullOptions,
    ctx: Context,
) -> HullVerdict {
    let opt_outs = OptOuts {
        allow_open: "--allow-open",
        weld_hint: !options.welded,
    };
    let verdict = hull::screen_hull(name, mesh, refuses, options.allow_open, opt_outs);
    let Some(text) = &verdict.message else {
        return verdict;
    };
    match (ctx.json, verdict.refused) {
        (true, true) => print::errors(
            &[ErrorReport {
                message: text.clone(),
                path: Some(name.to_string()),
                offset: None,
                kind: ErrorKind::Hull,
            }],
            ctx,
        ),
        // The report's `warnings` carry them; standard error holds only
        // error documents with --json.
        (true, false) => {}
        (false, _) => eprintln!("sylcol: {text}"),
    }
    verdict
}

/// The bbox and cell size of an existing MCOL.
fn grid_of(open: &Opener, file: &str) -> anyhow::Result<McolBuildOptions> {
    let input = open.object(file)?.whole()?;
    let Object::Mcol(m) = input.decode()? else {
        anyhow::bail!(Unsupported {
            path: input.name.clone(),
            detail: "--grid-from needs an MCOL, this is another format".into(),
        });
    };
    let [cx, cy, cz] = m.header.prefix.cell_size;
    if cx != cy || cy != cz {
        anyhow::bail!(
            "{}: the cell is {cx} x {cy} x {cz}; the builder makes cubic cells only",
            input.name
        );
    }
    Ok(McolBuildOptions {
        bbox: Some((m.header.prefix.bbox_min, m.header.prefix.bbox_max)),
        cell: Some(cx),
    })
}
