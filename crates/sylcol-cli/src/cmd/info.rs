//! `sylcol info FILE [--json]`: what an object is and where its parts lie.

use anyhow::{Context, bail};
use serde::Serialize;
use sylcol_format::Format;
use sylcol_format::chunk::Chunk;
use sylcol_format::collisionset::{self, CollisionSet};
use sylcol_format::mcol::{self, Mcol};

use sylcol_format::text::escape_lines;

use crate::Outcome;
use crate::input::{Input, Item, inputs, is_archive, read_object};

/// Arguments of `sylcol info`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if is_archive(&args.file) {
        return archive_info(&args);
    }
    let input = read_object(&args.file)?.whole("decodes")?;
    let summary = summarize(&input)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary.json)?);
    } else {
        print!("{}", escape_lines(&summary.text));
    }
    Ok(Outcome::Ok)
}

/// `info` on a whole archive: a row per entry it can decode (format and
/// summary), the entries of other formats, and every failure.
fn archive_info(args: &Args) -> anyhow::Result<Outcome> {
    let entries = inputs(&args.file)?;
    let mut failures: Vec<String> = entries.archive().map_or_else(Vec::new, |a| {
        a.index
            .problems
            .iter()
            .map(|p| format!("index {p}"))
            .collect()
    });
    let (mut rows, mut other) = (Vec::new(), Vec::new());
    for item in entries {
        let input = match item {
            Ok(Item::Whole(input)) => input,
            Ok(Item::Other { name, magic }) => {
                other.push(serde_json::json!({ "entry": entry_of(&name), "magic": magic }));
                continue;
            }
            Err(e) => {
                failures.push(crate::message(&e));
                continue;
            }
        };
        let entry = entry_of(&input.name);
        // A format without a magic may still decode, so try every entry;
        // an entry nothing decodes is "other" only when its magic is unknown.
        match (summarize(&input), sylcol_format::detect(&input.bytes)) {
            (Ok(s), _) => rows.push(serde_json::json!({ "entry": entry, "format": s.json["format"], "summary": s.json })),
            (Err(_), Format::Unknown(magic)) => other.push(serde_json::json!({ "entry": entry, "magic": magic })),
            (Err(e), _) => failures.push(crate::message(&e)),
        }
    }
    if args.json {
        let all = serde_json::json!({ "format": "IPFB", "path": args.file, "entries": rows, "other": other, "failures": failures });
        println!("{}", serde_json::to_string_pretty(&all)?);
    } else {
        print_archive_rows(&args.file, &rows, &other, &failures);
    }
    Ok(if failures.is_empty() {
        Outcome::Ok
    } else {
        Outcome::ChecksFailed
    })
}

fn print_archive_rows(
    path: &str,
    rows: &[serde_json::Value],
    other: &[serde_json::Value],
    failures: &[String],
) {
    say!(
        "{path}: IPFB archive, {} decoded, {} of other formats, {} failed",
        rows.len(),
        other.len(),
        failures.len()
    );
    for r in rows {
        let counts: Vec<String> = ["records", "vertices", "triangles"]
            .iter()
            .filter_map(|k| r["summary"][k].as_u64().map(|n| format!("{n} {k}")))
            .collect();
        say!(
            "  {:<32} {:<13} {}",
            r["entry"].as_str().unwrap_or("?"),
            r["format"].as_str().unwrap_or("?"),
            counts.join(", ")
        );
    }
    for o in other {
        say!(
            "  {:<32} not decoded (magic {})",
            o["entry"].as_str().unwrap_or("?"),
            o["magic"].as_str().unwrap_or("not printable")
        );
    }
    for f in failures {
        note!("{path}: {f}");
    }
}

/// The entry part of an `ARCHIVE.pak+ENTRY` name.
fn entry_of(name: &str) -> String {
    name.split_once('+')
        .map_or(name, |(_, inner)| inner)
        .to_string()
}

/// One object's summary, as JSON and as text.
pub struct Summary {
    /// The `--json` form.
    pub json: serde_json::Value,
    /// The human-readable form (ends with a newline).
    pub text: String,
}

/// Decodes `input` as whatever format it is and summarises it.
pub fn summarize(input: &Input) -> anyhow::Result<Summary> {
    match sylcol_format::detect(&input.bytes) {
        Format::Mcol => {
            let m = mcol::decode(&input.bytes)
                .with_context(|| format!("{}: invalid MCOL", input.name))?;
            mcol_summary(&input.name, &input.bytes, &m)
        }
        Format::CollisionSet => {
            let set = collisionset::decode(&input.bytes)
                .with_context(|| format!("{}: invalid CollisionSet", input.name))?;
            collisionset_summary(&input.name, input.bytes.len(), &set)
        }
        Format::Unknown(magic) => bail!(
            "{}: not a format sylcol decodes (magic {}); `sylcol probe` analyses any POF0 chunk",
            input.name,
            magic.as_deref().unwrap_or("not printable")
        ),
    }
}

/// The `info --json` fields of an MCOL (a contract for scripts).
#[derive(Serialize)]
pub struct McolInfo {
    pub format: &'static str,
    pub path: String,
    pub data_size: u32,
    pub pof0_base: u32,
    pub vertices: usize,
    pub triangles: usize,
    pub grid: [usize; 3],
    pub bbox_min: [f32; 3],
    pub bbox_max: [f32; 3],
    pub extent: [f32; 3],
    pub cell_size: [f32; 3],
    pub cells: usize,
    pub occupied_cells: usize,
    pub list_entries: usize,
    pub relocations: usize,
    pub header_slots: Vec<u32>,
    pub offsets: McolOffsets,
}

/// Chunk offsets of each block.
#[derive(Serialize)]
pub struct McolOffsets {
    pub spheres: u32,
    pub vertices: u32,
    pub triangles: u32,
    pub cells: u32,
    pub records: Option<u32>,
    pub lists: Option<u32>,
    pub pof0: u64,
}

/// Builds the MCOL summary of a decoded object.
pub fn mcol_info(path: &str, bytes: &[u8], m: &Mcol) -> anyhow::Result<McolInfo> {
    let layout = m.layout.as_ref().context("a decoded MCOL has a layout")?;
    let chunk = Chunk::parse(bytes)?;
    let slots = chunk.slots(m.pof0_base);
    Ok(McolInfo {
        format: "MCOL",
        path: path.to_string(),
        data_size: m.header.data_size,
        pof0_base: m.pof0_base,
        vertices: m.vertices.len(),
        triangles: m.triangles.len(),
        grid: m.header.dims(),
        bbox_min: m.header.bbox_min,
        bbox_max: m.header.bbox_max,
        extent: m.header.extent,
        cell_size: m.header.cell_size,
        cells: m.cells.len(),
        occupied_cells: m.occupied_cells(),
        list_entries: m.list_entries(),
        relocations: slots.len(),
        header_slots: slots.iter().copied().filter(|&s| s < 0x80).collect(),
        offsets: McolOffsets {
            spheres: layout.spheres,
            vertices: layout.vertices,
            triangles: layout.triangles,
            cells: layout.cells,
            records: layout.records.iter().copied().min(),
            lists: layout.lists.iter().copied().min(),
            pof0: chunk.pof0_offset,
        },
    })
}

fn mcol_summary(path: &str, bytes: &[u8], m: &Mcol) -> anyhow::Result<Summary> {
    let i = mcol_info(path, bytes, m)?;
    let hex = |o: Option<u32>| o.map_or("-".to_string(), |o| format!("{o:#x}"));
    let v3 = |v: [f32; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
    let slots: Vec<String> = i.header_slots.iter().map(|s| format!("{s:#x}")).collect();
    let text = format!(
        "{path}: MCOL (map collision hull)\n\
         \x20 data size     {:#x} ({} bytes); POF0 at {:#x}, slot base {:#x}\n\
         \x20 mesh          {} vertices, {} triangles\n\
         \x20 bbox          {} .. {}\n\
         \x20 extent        {}\n\
         \x20 cell size     {}, grid {} x {} x {} = {} cells\n\
         \x20 occupied      {} cells, {} list entries\n\
         \x20 relocations   {} (header slots {})\n\
         \x20 blocks        spheres {:#x}, vertices {:#x}, triangles {:#x}, cells {:#x}, records {}, lists {}\n",
        i.data_size,
        i.data_size,
        i.offsets.pof0,
        i.pof0_base,
        i.vertices,
        i.triangles,
        v3(i.bbox_min),
        v3(i.bbox_max),
        v3(i.extent),
        v3(i.cell_size),
        i.grid[0],
        i.grid[1],
        i.grid[2],
        i.cells,
        i.occupied_cells,
        i.list_entries,
        i.relocations,
        slots.join(" "),
        i.offsets.spheres,
        i.offsets.vertices,
        i.offsets.triangles,
        i.offsets.cells,
        hex(i.offsets.records),
        hex(i.offsets.lists),
    );
    Ok(Summary {
        json: serde_json::to_value(&i)?,
        text,
    })
}

/// The `info --json` fields of a CollisionSet (a contract for scripts).
#[derive(Serialize)]
pub struct CollisionSetInfo {
    pub format: &'static str,
    pub path: String,
    pub bytes: usize,
    pub endian: &'static str,
    pub records: usize,
    pub vertices: usize,
    pub triangles: usize,
    pub families: FamilyInfo,
    pub meshes: Vec<MeshInfo>,
}

/// Record counts per name family.
#[derive(Serialize)]
pub struct FamilyInfo {
    #[serde(rename = "rou_")]
    pub rou: usize,
    #[serde(rename = "mob_")]
    pub mob: usize,
    #[serde(rename = "rob_")]
    pub rob: usize,
    pub asteroid: usize,
    pub other: usize,
}

/// One record of a CollisionSet.
#[derive(Serialize)]
pub struct MeshInfo {
    pub name: String,
    pub family: &'static str,
    pub vertices: usize,
    pub triangles: usize,
    pub offset: u64,
}

/// Builds the CollisionSet summary of a decoded library.
pub fn collisionset_info(path: &str, bytes: usize, set: &CollisionSet) -> CollisionSetInfo {
    let f = set.families();
    let meshes = set
        .records
        .iter()
        .zip(set.offsets())
        .map(|(r, offset)| MeshInfo {
            name: r.name(),
            family: r.reading().family.as_str(),
            vertices: r.vertices.len(),
            triangles: r.triangles.len(),
            offset,
        })
        .collect();
    CollisionSetInfo {
        format: "CollisionSet",
        path: path.to_string(),
        bytes,
        endian: set.endian.as_str(),
        records: set.records.len(),
        vertices: set.vertex_count(),
        triangles: set.triangle_count(),
        families: FamilyInfo {
            rou: f.rou,
            mob: f.mob,
            rob: f.rob,
            asteroid: f.asteroid,
            other: f.other,
        },
        meshes,
    }
}

fn collisionset_summary(path: &str, bytes: usize, set: &CollisionSet) -> anyhow::Result<Summary> {
    let i = collisionset_info(path, bytes, set);
    let f = &i.families;
    let mut text = format!(
        "{path}: CollisionSet (per-part collision library), {}-endian\n\
         \x20 size          {} bytes\n\
         \x20 records       {} (rou_ {}, mob_ {}, rob_ {}, asteroid {}, other {})\n\
         \x20 mesh          {} vertices, {} triangles\n\n\
         \x20   offset  vertices  triangles  name\n",
        i.endian,
        i.bytes,
        i.records,
        f.rou,
        f.mob,
        f.rob,
        f.asteroid,
        f.other,
        i.vertices,
        i.triangles,
    );
    for m in &i.meshes {
        text.push_str(&format!(
            "  {:#8x}  {:>8}  {:>9}  {}\n",
            m.offset, m.vertices, m.triangles, m.name
        ));
    }
    Ok(Summary {
        json: serde_json::to_value(&i)?,
        text,
    })
}
