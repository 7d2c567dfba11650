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

/// What `sylcol verify --json` prints for one object's `bytes`.
pub fn verify_bytes(
    py: Python<'_>,
    path: &str,
    bytes: &[u8],
    seed: u64,
    resource_ids: Option<&[String]>,
) -> PyResult<Py<PyAny>> {
    let run = py.detach(|| {
        let mut run = VerifyRun::new(seed);
        run.push(path, bytes, false, resource_ids);
        run
    });
    json_to_py(py, &run)
}
