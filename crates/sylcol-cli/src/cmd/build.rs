//! `sylcol build`: game files from a modder's meshes.

use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::import::{ImportOptions, import_file};

use crate::Outcome;
use crate::input::read_input;
use crate::output::write_atomic;

mod collisionset;

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
}

/// Arguments of `sylcol build mcol`.
#[derive(clap::Args)]
struct McolArgs {
    /// The mesh: .obj, .gltf, .glb or .ply.
    mesh: PathBuf,
    /// Where to write the MCOL object.
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
    /// Merge vertices with identical coordinates before building.
    #[arg(long)]
    weld: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
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

/// What `build mcol` reports.
#[derive(Serialize)]
struct McolSummary {
    output: String,
    vertices: usize,
    triangles: usize,
    bbox_min: [f32; 3],
    bbox_max: [f32; 3],
    cell_size: f32,
    grid: [u8; 3],
    occupied_cells: usize,
    list_entries: usize,
    bytes: usize,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    match args.what {
        What::Mcol(a) => run_mcol(a),
        What::Collisionset(a) => collisionset::run(a),
    }
}

fn run_mcol(a: McolArgs) -> anyhow::Result<Outcome> {
    let mesh = import_file(&a.mesh, &ImportOptions { weld: a.weld })?;
    let options = match &a.grid_from {
        Some(file) => grid_of(file)?,
        None => McolBuildOptions {
            bbox: a.bbox.map(|b| (b.0, b.1)),
            cell: a.cell,
        },
    };
    let mcol = build_mcol(&mesh, &options).with_context(|| format!("{}", a.mesh.display()))?;
    let bytes = sylcol::format::mcol::encode(&mcol)
        .with_context(|| format!("{}: cannot encode the built MCOL", a.mesh.display()))?;
    write_atomic(&a.output, &bytes)?;
    let h = &mcol.header;
    let summary = McolSummary {
        output: a.output.display().to_string(),
        vertices: mcol.vertices.len(),
        triangles: mcol.triangles.len(),
        bbox_min: h.bbox_min,
        bbox_max: h.bbox_max,
        cell_size: h.cell_size[0],
        grid: [h.grid[0], h.grid[1], h.grid[2]],
        occupied_cells: mcol.occupied_cells(),
        list_entries: mcol.list_entries(),
        bytes: bytes.len(),
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_mcol_summary(&summary);
    }
    Ok(Outcome::Ok)
}

/// The bbox and cell size of an existing MCOL.
fn grid_of(file: &str) -> anyhow::Result<McolBuildOptions> {
    let input = read_input(file)?;
    let m = sylcol::format::mcol::decode(&input.bytes)
        .with_context(|| format!("{}: invalid MCOL", input.name))?;
    let [cx, cy, cz] = m.header.cell_size;
    if cx != cy || cy != cz {
        anyhow::bail!(
            "{}: the cell is {cx} x {cy} x {cz}; the builder makes cubic cells only",
            input.name
        );
    }
    Ok(McolBuildOptions {
        bbox: Some((m.header.bbox_min, m.header.bbox_max)),
        cell: Some(cx),
    })
}

fn print_mcol_summary(s: &McolSummary) {
    let v3 = |v: [f32; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
    say!("wrote {} ({} bytes)", s.output, s.bytes);
    say!(
        "  mesh      {} vertices, {} triangles",
        s.vertices,
        s.triangles
    );
    say!(
        "  grid      {}x{}x{} cells of {} from {} to {}",
        s.grid[0],
        s.grid[1],
        s.grid[2],
        s.cell_size,
        v3(s.bbox_min),
        v3(s.bbox_max)
    );
    say!(
        "  lists     {} occupied cells, {} entries",
        s.occupied_cells,
        s.list_entries
    );
}
