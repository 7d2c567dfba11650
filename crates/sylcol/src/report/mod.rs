//! What every command reports, as serialisable values: the one vocabulary
//! of sylcol's JSON. The CLI prints these (`--json`), and any other front
//! (an HTTP server, a Python package) produces the same JSON by calling the
//! same functions: [`info::info`] for `info`, [`verify::VerifyRun`] for
//! `verify`, [`query::grid_fit`] for `query grid`, and so on.
//!
//! The key glossary (`docs/json/README.md` is the reference; the JSON
//! Schemas in `docs/json/` are generated from these types):
//!
//! | key | meaning |
//! |---|---|
//! | `format` | `MCOL`, `CollisionSet`, `REGN`, `IDXD`, `IXUD` or `IPFB` |
//! | `path` | the input as named: a file or `ARCHIVE.pak+ENTRY` |
//! | `output` | where a command wrote (`-` for standard output) |
//! | `bytes` | an object's length in bytes (`output_bytes`, `stored_bytes` for other lengths) |
//! | `offset` | a byte offset, always a number |
//! | `vertices`, `triangles`, `records` | counts |
//! | `grid` | `{dims, cell_size, cells, occupied_cells, list_entries}` |
//! | `errors` | [`error::ErrorReport`]s: `{message, path, offset, kind}` |
//! | `skipped` | [`Skipped`] inputs: `{path, reason, magic}` |

pub mod build;
pub mod error;
pub mod files;
pub mod float;
pub mod idxd;
pub mod info;
pub mod name_sources;
pub mod names;
pub mod pak;
pub mod probe;
pub mod query;
pub mod regn;
pub mod schema;
pub mod shared;
pub mod verify;

use schemars::JsonSchema;
use serde::Serialize;

pub use error::{ErrorKind, ErrorReport};

/// An input a command passed over on purpose, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Skipped {
    /// The input as named.
    pub path: String,
    /// Why it was not processed.
    pub reason: String,
    /// Its first four bytes when printable.
    pub magic: Option<String>,
}

/// The grid of an MCOL: the same keys wherever a grid is reported.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GridSummary {
    /// Cells per axis (x, y, z).
    pub dims: [usize; 3],
    /// Cell size per axis.
    #[serde(serialize_with = "float::vec3")]
    #[schemars(with = "[float::FileF32; 3]")]
    pub cell_size: [f32; 3],
    /// Cells in all (`dims` multiplied).
    pub cells: usize,
    /// Cells with a list.
    pub occupied_cells: usize,
    /// List entries summed over every cell.
    pub list_entries: usize,
}

impl GridSummary {
    /// The grid of a decoded or built MCOL.
    pub fn of(m: &sylcol_format::mcol::Mcol) -> Self {
        GridSummary {
            dims: m.header.dims(),
            cell_size: m.header.prefix.cell_size,
            cells: m.cells.len(),
            occupied_cells: m.occupied_cells(),
            list_entries: m.list_entries(),
        }
    }
}

/// `(x, y, z)` with each float as the shortest text that parses back.
pub fn vec3_text(v: [f32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}
