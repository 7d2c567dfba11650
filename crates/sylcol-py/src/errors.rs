//! Rust errors as Python exceptions.
//!
//! Every error is first classified the way the CLI classifies it for
//! `--json` ([`ErrorReport::from_error`]: `{message, path, offset, kind}`),
//! then raised as the class of `sylcol._errors` its kind maps to, with
//! those fields as attributes. An I/O failure is the built-in `OSError`
//! subclass Python would raise, with `filename` set.

use std::error::Error;

use pyo3::prelude::*;
use sylcol::report::error::{ErrorKind, ErrorReport, ReadError};
use sylcol_format::ipfb::ArchiveError;

/// The Python exception for `error` and its chain of causes.
pub fn to_py(error: &(dyn Error + 'static)) -> PyErr {
    let report = ErrorReport::from_error(error);
    if report.kind == ErrorKind::Io
        && let Some(io) = io_error_in(error)
    {
        return os_error(io, &report);
    }
    raise(&report, None)
}

/// An exception of the class `report.kind` maps to; `index` is set on a
/// `QueryError`.
pub fn raise(report: &ErrorReport, index: Option<usize>) -> PyErr {
    Python::attach(|py| match exception(py, report, index) {
        Ok(e) => e,
        Err(e) => e,
    })
}

fn exception(py: Python<'_>, report: &ErrorReport, index: Option<usize>) -> PyResult<PyErr> {
    let class = match report.kind {
        ErrorKind::Invalid | ErrorKind::Unrecognised | ErrorKind::Archive => "DecodeError",
        ErrorKind::NotFound => "NotFoundError",
        ErrorKind::Unsupported => "UnsupportedError",
        ErrorKind::Query => "QueryError",
        ErrorKind::TooLarge | ErrorKind::OutOfMemory => "MemoryLimitError",
        _ => "SylcolError",
    };
    let kind = serde_json::to_value(report.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into());
    let errors = py.import("sylcol._errors")?;
    let value = errors.getattr(class)?.call1((
        report.message.as_str(),
        report.path.as_deref(),
        report.offset,
        kind,
    ))?;
    if let Some(i) = index {
        value.setattr("index", i)?;
    }
    Ok(PyErr::from_value(value))
}

/// A `BuildError` with `message`.
pub fn build_error(message: String) -> PyErr {
    build_error_of(message, None, "invalid")
}

/// A `BuildError` of kind `hull` (the CLI's exit-1 refusal of a mesh that
/// is not a closed, consistently oriented hull), its path the mesh's name.
pub fn hull_error(message: String, name: &str) -> PyErr {
    build_error_of(message, Some(name), "hull")
}

fn build_error_of(message: String, path: Option<&str>, kind: &str) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("sylcol._errors")
            .and_then(|m| m.getattr("BuildError"))
            .and_then(|c| c.call1((message, path, None::<u64>, kind)));
        match made {
            Ok(value) => PyErr::from_value(value),
            Err(e) => e,
        }
    })
}

/// The I/O failure at the root of `error`, if one is there.
fn io_error_in<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a std::io::Error> {
    let mut link = Some(error);
    while let Some(e) = link {
        if let Some(r) = e.downcast_ref::<ReadError>() {
            return Some(&r.error);
        }
        if let Some(ArchiveError::Io { cause, .. }) = e.downcast_ref::<ArchiveError>() {
            return Some(cause);
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        link = e.source();
    }
    None
}

/// The built-in `OSError` subclass for `io` (`FileNotFoundError`, ...),
/// with the report's message and path.
fn os_error(io: &std::io::Error, report: &ErrorReport) -> PyErr {
    let errno = io.raw_os_error().unwrap_or(0);
    let err = PyErr::from(std::io::Error::new(io.kind(), report.message.clone()));
    Python::attach(|py| {
        let value = err.value(py);
        // The class stays what the io::ErrorKind maps to; the fields are
        // filled the way `open()` fills them.
        let _ = value.setattr("errno", errno);
        let _ = value.setattr("strerror", report.message.as_str());
        let _ = value.setattr("filename", report.path.as_deref());
    });
    err
}
