//! tinybvh 1.6.8 (the single header `tiny_bvh.h` carried by the
//! tinybvh-rs 0.1.0-beta.3 crate's source) out of process: build.rs
//! compiles `tinybvh/sylcol_tinybvh.cpp` with `-O3 -march=native` into a
//! program, and [`TinyScene`] runs it on files. The program builds each CPU
//! single-ray layout over the mesh (`Build`, or `BuildHQ`, the
//! spatial-split build, from the triangles as three corners each), then
//! times one round of the rays through each with `Intersect`, one ray a
//! call, chunk by chunk and staggered as [`crate::timing`] does, and writes
//! each chunk's time and, when asked, every ray's (t, triangle). The
//! harness runs it once a round, between its own rounds, and keeps each
//! chunk's fastest time (`peers`).
//!
//! Files: the input (`SYTBIN01`, u32 triangles, u32 rays, 9 f32 a
//! triangle, 6 f32 a ray) is written once a scene into a temporary folder
//! removed with the scene; the output's layout is in the program's header
//! comment and is checked here to the byte.

use std::path::PathBuf;
use std::process::Command;

use sylcol::TriMesh;

use crate::methods::Answers;

/// The program build.rs compiled.
const PROGRAM: &str = env!("SYLCOL_TINYBVH");

/// tinybvh's CPU single-ray layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `BVH`: binary, Wald's 32-byte nodes, binned SAH build.
    Bvh,
    /// `BVH` built by `BuildHQ` (spatial splits, SBVH).
    BvhHq,
    /// `BVH_SoA`: binary, child boxes side by side (SSE).
    Soa,
    /// `BVH4_CPU`: four-wide nodes, four-triangle leaves (SSE).
    Bvh4,
    /// `BVH8_CPU`: eight-wide nodes, four-triangle leaves (AVX2).
    Bvh8,
    /// `BVH8_CPU` over a `BuildHQ` tree.
    Bvh8Hq,
}

impl Layout {
    /// Every layout, in the program's order.
    pub const ALL: [Layout; 6] = [
        Layout::Bvh,
        Layout::BvhHq,
        Layout::Soa,
        Layout::Bvh4,
        Layout::Bvh8,
        Layout::Bvh8Hq,
    ];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Bvh => "tinybvh BVH",
            Layout::BvhHq => "tinybvh BVH HQ",
            Layout::Soa => "tinybvh BVH_SoA",
            Layout::Bvh4 => "tinybvh BVH4_CPU",
            Layout::Bvh8 => "tinybvh BVH8_CPU",
            Layout::Bvh8Hq => "tinybvh BVH8_CPU HQ",
        }
    }
}

/// One run of the program: each layout's time on each chunk (in the
/// order of [`Layout::ALL`]) and, when asked for, each layout's answers.
pub struct Round {
    /// ns of each chunk, a row a layout.
    pub ns: Vec<Vec<f64>>,
    /// (t, triangle) of every ray, a set a layout; empty unless asked for.
    pub answers: Vec<Answers>,
}

/// A mesh and its rays, written for the program.
pub struct TinyScene {
    dir: tempfile::TempDir,
    rays: usize,
}

impl TinyScene {
    /// Writes the mesh's triangles and the rays (origin, direction) to the
    /// program's input file.
    pub fn new(mesh: &TriMesh, rays: &[[f32; 6]]) -> Result<Self, String> {
        let count = |n: usize, what: &str| {
            u32::try_from(n).map_err(|_| format!("{n} {what}: more than the program's u32 count"))
        };
        let mut bytes = Vec::with_capacity(16 + 36 * mesh.triangles.len() + 24 * rays.len());
        bytes.extend_from_slice(b"SYTBIN01");
        bytes.extend_from_slice(&count(mesh.triangles.len(), "triangles")?.to_le_bytes());
        bytes.extend_from_slice(&count(rays.len(), "rays")?.to_le_bytes());
        for t in 0..mesh.triangles.len() {
            for f in mesh.corners(t).iter().flat_map(|c| c.to_array()) {
                bytes.extend_from_slice(&f.to_le_bytes());
            }
        }
        for f in rays.iter().flatten() {
            bytes.extend_from_slice(&f.to_le_bytes());
        }
        let dir = tempfile::Builder::new()
            .prefix("sylcol-tinybvh-")
            .tempdir()
            .map_err(|e| format!("a temporary folder for tinybvh: {e}"))?;
        let scene = TinyScene {
            dir,
            rays: rays.len(),
        };
        let input = scene.input();
        std::fs::write(&input, bytes).map_err(|e| format!("{}: {e}", input.display()))?;
        Ok(scene)
    }

    fn input(&self) -> PathBuf {
        self.dir.path().join("scene.bin")
    }

    /// The folder of the scene's files (removed when the scene is dropped).
    #[cfg(test)]
    fn folder(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Runs the program once: every layout built, one timed round of the
    /// rays in chunks of `chunk`, and the answers when `answers`. An error
    /// names the program's complaint (a mesh of fewer than two triangles
    /// is refused) or what is wrong with its output.
    pub fn run(&self, chunk: usize, answers: bool) -> Result<Round, String> {
        let output = self.dir.path().join("round.bin");
        let run = Command::new(PROGRAM)
            .arg(self.input())
            .arg(&output)
            .arg(chunk.to_string())
            .arg(if answers { "1" } else { "0" })
            .output()
            .map_err(|e| format!("{PROGRAM}: {e}"))?;
        if !run.status.success() {
            return Err(format!(
                "{PROGRAM} ({}): {}",
                run.status,
                String::from_utf8_lossy(&run.stderr).trim()
            ));
        }
        let bytes = std::fs::read(&output).map_err(|e| format!("{}: {e}", output.display()))?;
        let round = parse(&bytes, self.rays, chunk, answers)
            .map_err(|e| format!("{}: {e}", output.display()))?;
        std::fs::remove_file(&output).map_err(|e| format!("{}: {e}", output.display()))?;
        Ok(round)
    }
}

/// Reads the program's output for `rays` rays in chunks of `chunk`.
fn parse(bytes: &[u8], rays: usize, chunk: usize, answers: bool) -> Result<Round, String> {
    let word = |at: usize| -> Result<u32, String> {
        let b = bytes
            .get(at..at + 4)
            .ok_or(format!("byte {at}: the file ends ({} bytes)", bytes.len()))?;
        Ok(u32::from_le_bytes(b.try_into().expect("four bytes")))
    };
    if bytes.get(..8) != Some(b"SYTBOUT1") {
        return Err("byte 0: not \"SYTBOUT1\"".into());
    }
    let layouts = Layout::ALL.len();
    let chunks = rays.div_ceil(chunk);
    let want = [layouts, chunks, rays, usize::from(answers)];
    let names = ["layouts", "chunks", "rays", "answers"];
    for (k, (want, name)) in want.into_iter().zip(names).enumerate() {
        let got = word(8 + 4 * k)? as usize;
        if got != want {
            return Err(format!("byte {}: {got} {name}, not {want}", 8 + 4 * k));
        }
    }
    let answer_bytes = if answers { layouts * rays * 8 } else { 0 };
    let size = 24 + layouts * chunks * 8 + answer_bytes;
    if bytes.len() != size {
        return Err(format!(
            "byte 24: {} bytes, not the {size} its header says",
            bytes.len()
        ));
    }
    // The sizes are checked: every read below is inside `bytes`.
    let at = |k: usize| -> [u8; 4] { bytes[k..k + 4].try_into().expect("four bytes") };
    let ns = (0..layouts)
        .map(|l| {
            (0..chunks)
                .map(|c| {
                    let k = 24 + (l * chunks + c) * 8;
                    f64::from_le_bytes(bytes[k..k + 8].try_into().expect("eight bytes"))
                })
                .collect()
        })
        .collect();
    let first = 24 + layouts * chunks * 8;
    let set = |l: usize| {
        let k = |i: usize| first + (l * rays + i) * 8;
        Answers {
            t: (0..rays).map(|i| f32::from_le_bytes(at(k(i)))).collect(),
            id: (0..rays)
                .map(|i| u32::from_le_bytes(at(k(i) + 4)))
                .collect(),
        }
    };
    let answers = (0..layouts).filter(|_| answers).map(set).collect();
    Ok(Round { ns, answers })
}

#[cfg(test)]
mod tests;
