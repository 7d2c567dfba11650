//! `build mcol` and `build collisionset`: what was written.

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::collisionset::CollisionSet;
use sylcol_format::mcol::Mcol;

use super::{GridSummary, vec3_text};

/// What `build mcol` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct McolBuilt {
    /// The mesh read.
    pub path: String,
    /// Where the MCOL was written.
    pub output: String,
    /// The MCOL's length.
    pub bytes: usize,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub triangles: usize,
    /// The grid box's minimum corner.
    pub bbox_min: [f32; 3],
    /// The grid box's maximum corner.
    pub bbox_max: [f32; 3],
    /// The grid.
    pub grid: GridSummary,
    /// What keeps the mesh from being a closed, consistently oriented
    /// hull (written with `--allow-open`), one sentence per fault; empty
    /// for a clean hull.
    pub warnings: Vec<String>,
}

impl McolBuilt {
    /// The report of `mcol`, built from `path` and encoded as `bytes` bytes at `output`.
    pub fn new(path: &str, output: &str, mcol: &Mcol, bytes: usize) -> Self {
        McolBuilt {
            path: path.to_string(),
            output: output.to_string(),
            bytes,
            vertices: mcol.vertices.len(),
            triangles: mcol.triangles.len(),
            bbox_min: mcol.header.prefix.bbox_min,
            bbox_max: mcol.header.prefix.bbox_max,
            grid: GridSummary::of(mcol),
            warnings: Vec::new(),
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        let g = &self.grid;
        format!(
            "wrote {} ({} bytes)\n  mesh      {} vertices, {} triangles\n  \
             grid      {}x{}x{} cells of {} from {} to {}\n  \
             lists     {} occupied cells, {} entries\n",
            self.output,
            self.bytes,
            self.vertices,
            self.triangles,
            g.dims[0],
            g.dims[1],
            g.dims[2],
            vec3_text(g.cell_size),
            vec3_text(self.bbox_min),
            vec3_text(self.bbox_max),
            g.occupied_cells,
            g.list_entries
        )
    }
}

/// What `build collisionset` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CollisionSetBuilt {
    /// The folder, manifest or library (`--from`) read.
    pub path: String,
    /// Where the library was written.
    pub output: String,
    /// The library's length.
    pub bytes: usize,
    /// `big` or `little`.
    pub endian: &'static str,
    /// Record count.
    pub records: usize,
    /// Vertices over every record.
    pub vertices: usize,
    /// Triangles over every record.
    pub triangles: usize,
    /// Records whose mesh was replaced.
    pub replaced: Vec<String>,
    /// Records appended.
    pub added: Vec<String>,
    /// Records dropped.
    pub removed: Vec<String>,
    /// What keeps parts from being closed, consistently oriented hulls
    /// (`part NAME: fault`): open parts always, degenerate or turned-over
    /// ones with `--allow-open`.
    pub warnings: Vec<String>,
}

impl CollisionSetBuilt {
    /// The report of `set`, encoded as `bytes` bytes at `output`; the
    /// edit lists are filled by the caller.
    pub fn new(path: &str, output: &str, set: &CollisionSet, bytes: usize) -> Self {
        CollisionSetBuilt {
            path: path.to_string(),
            output: output.to_string(),
            bytes,
            endian: set.endian.as_str(),
            records: set.records.len(),
            vertices: set.vertex_count(),
            triangles: set.triangle_count(),
            replaced: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        let mut t = format!(
            "wrote {} ({} bytes, {}-endian)\n  records   {} ({} vertices, {} triangles)\n",
            self.output, self.bytes, self.endian, self.records, self.vertices, self.triangles
        );
        for (what, names) in [
            ("replaced", &self.replaced),
            ("added", &self.added),
            ("removed", &self.removed),
        ] {
            if !names.is_empty() {
                t.push_str(&format!("  {what:<9} {}\n", names.join(", ")));
            }
        }
        t
    }
}

/// What `build idxd` wrote: a string table from its text form.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TableBuilt {
    /// The text form read.
    pub path: String,
    /// Where the table was written.
    pub output: String,
    /// `IDXD` or `IXUD`.
    pub format: &'static str,
    /// The table's length.
    pub bytes: usize,
    /// Records of the first kind.
    pub records: usize,
    /// Records of the second kind.
    pub pairs: usize,
    /// Strings in the pool.
    pub strings: usize,
}

impl TableBuilt {
    /// The report of `table`, read from `path` and encoded as `bytes` bytes at `output`.
    pub fn new(
        path: &str,
        output: &str,
        table: &sylcol_format::idxd::StringTable,
        bytes: usize,
    ) -> Self {
        TableBuilt {
            path: path.to_string(),
            output: output.to_string(),
            format: table.flavour.name(),
            bytes,
            records: table.records.len(),
            pairs: table.pairs.len(),
            strings: table.pool().strings.len(),
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        format!(
            "wrote {} ({} bytes)\n  {}       {} records, {} pairs, {} strings\n",
            self.output, self.bytes, self.format, self.records, self.pairs, self.strings
        )
    }
}
