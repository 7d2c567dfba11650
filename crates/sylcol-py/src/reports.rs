//! The CLI's JSON reports as Python values.
//!
//! A report is serialised with serde_json — exactly the text `--json`
//! prints — and read back with Python's `json.loads`, so a dict from
//! `info()` / `verify()` equals `json.loads` of the CLI's output, floats
//! included (an f32 goes through its shortest decimal text both ways).

use pyo3::prelude::*;
use serde::Serialize;
use sylcol::report::verify::VerifyRun;

/// `value` as the Python object `json.loads` makes of its JSON.
pub fn json_to_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok(py
        .import("json")?
        .getattr("loads")?
        .call1((text,))?
        .unbind())
}

/// One object's own verify report, flat as `info()` is: the entry of
/// `objects` that `sylcol verify --json` prints for its `bytes` (format,
/// path, ok, seed, checks and the figures).
pub fn verify_bytes(
    py: Python<'_>,
    path: &str,
    bytes: &[u8],
    seed: u64,
    resource_ids: Option<&[String]>,
) -> PyResult<Py<PyAny>> {
    let mut run = py.detach(|| {
        let mut run = VerifyRun::new(seed);
        run.push(path, bytes, false, resource_ids);
        run
    });
    match (run.objects.pop(), run.errors.first()) {
        (Some(verified), _) => json_to_py(py, &verified.report),
        (None, Some(error)) => Err(crate::errors::raise(error, None)),
        (None, None) => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{path}: verify gave no report"
        ))),
    }
}
