//! What an editor needs beyond reading and building (the Blender add-on,
//! `blender/`): every hull fault of a mesh with the triangles and edges
//! that carry it (to select them), welding, a map's occupied cells and
//! the cell a point falls in, the triangles and cells `verify` flags, and
//! replacing entries of an archive as `sylcol pak replace` does.
//!
//! | module | Python |
//! |---|---|
//! | `hull` | `hull_faults`, `weld` |
//! | `cells` | `map_cells`, `cell_at`, `map_failures` |
//! | `pak` | `replace_entries` |

mod cells;
mod hull;
mod pak;

use pyo3::prelude::*;

/// Adds this module's functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hull::hull_faults, m)?)?;
    m.add_function(wrap_pyfunction!(hull::weld, m)?)?;
    m.add_function(wrap_pyfunction!(cells::map_cells, m)?)?;
    m.add_function(wrap_pyfunction!(cells::cell_at, m)?)?;
    m.add_function(wrap_pyfunction!(cells::map_failures, m)?)?;
    m.add_function(wrap_pyfunction!(pak::replace_entries, m)?)?;
    Ok(())
}
