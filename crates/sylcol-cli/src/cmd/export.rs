//! `sylcol export FILE -o OUT`: a mesh as Wavefront OBJ, or glTF when OUT
//! ends in `.gltf` / `.glb`.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use sylcol::TriMesh;
use sylcol::export::gltf::{to_glb, to_gltf};
use sylcol::export::obj::write_obj;
use sylcol_format::{Format, mcol};

use crate::Outcome;
use crate::input::read_input;
use crate::output::{write_atomic, write_atomic_with};

/// Arguments of `sylcol export`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
    /// Where to write: `.obj`, `.gltf` (one self-contained file) or `.glb`.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let input = read_input(&args.file)?;
    let mesh = match sylcol_format::detect(&input.bytes) {
        Format::Mcol => {
            let m = mcol::decode(&input.bytes)
                .with_context(|| format!("{}: invalid MCOL", input.name))?;
            TriMesh::from_mcol(&m)
        }
        Format::Unknown(_) => bail!("{}: not a format sylcol can export", input.name),
    };
    let name = object_name(&input.name);
    write_mesh(&args.output, &mesh, &name)?;
    eprintln!(
        "{}: wrote {} vertices, {} triangles to {}",
        input.name,
        mesh.vertices.len(),
        mesh.triangles.len(),
        args.output.display()
    );
    Ok(Outcome::Ok)
}

/// The object name for an input: its file or entry name without folders.
pub fn object_name(input: &str) -> String {
    let last = input.rsplit(['/', '\\', '+']).next().unwrap_or(input);
    last.split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(last)
        .to_string()
}

/// Writes `mesh` as glTF when `path` ends in `.gltf` / `.glb`, else OBJ.
fn write_mesh(path: &Path, mesh: &TriMesh, name: &str) -> anyhow::Result<()> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("gltf") => write_atomic(path, &to_gltf(mesh, name)?),
        Some("glb") => write_atomic(path, &to_glb(mesh, name)?),
        _ => write_atomic_with(path, |w| write_obj(w, mesh, name)),
    }
}
