//! The header prefix MCOL and REGN share ([`GridPrefix`]), as Python
//! values: one place for both classes' `header` dicts and `bbox` arrays.

use numpy::PyArray2;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sylcol_format::grid_prefix::GridPrefix;

/// Sets the prefix's fields in a `header` dict: ``word_08`` (two open
/// words), ``bbox_min``, ``bbox_max``, ``extent``, ``pads`` (raw bits),
/// ``cell_size``, ``word_4c`` (open).
pub fn set_items(d: &Bound<'_, PyDict>, p: &GridPrefix) -> PyResult<()> {
    d.set_item("word_08", p.word_08.to_vec())?;
    d.set_item("bbox_min", p.bbox_min.to_vec())?;
    d.set_item("bbox_max", p.bbox_max.to_vec())?;
    d.set_item("extent", p.extent.to_vec())?;
    d.set_item("pads", p.pads.to_vec())?;
    d.set_item("cell_size", p.cell_size.to_vec())?;
    d.set_item("word_4c", p.word_4c)
}

/// The grid box: a 2 x 3 float32 array, rows min and max.
pub fn bbox<'py>(py: Python<'py>, p: &GridPrefix) -> PyResult<Bound<'py, PyArray2<f32>>> {
    crate::arrays::rows3(py, vec![p.bbox_min, p.bbox_max])
}
