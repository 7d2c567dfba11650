//! `replace_entries`: new content for some entries of an archive, every
//! other stored byte where it was — `sylcol pak replace`'s library code
//! (`sylcol_format::ipfb::replace`), so the two write the same bytes.

use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use sylcol::report::error::{ErrorKind, ErrorReport};
use sylcol::source::Opener;
use sylcol_format::ipfb::replace::{
    Aliases, NewContent, ReplaceError, ReplaceOptions, find_entry, replace_entries as replace,
};

use crate::archive::{name_list, source_error};
use crate::errors::{raise, to_py};

/// An entry key as `pak replace` names entries: a name or `$XXXXXXXX`
/// (str), or a hash (int).
fn key_of(key: &Bound<'_, PyAny>) -> PyResult<String> {
    if key.is_instance_of::<PyString>() {
        Ok(key.extract()?)
    } else if key.is_instance_of::<PyInt>() {
        Ok(format!("${:08X}", key.extract::<u32>()?))
    } else {
        Err(PyTypeError::new_err(format!(
            "entry key: expected a name (str) or a hash (int), got {}",
            key.get_type().name()?
        )))
    }
}

/// The library's refusal as Python raises it: a missing entry as
/// NotFoundError, the others in Python's spelling of the options.
fn py_error(e: ReplaceError, archive: &str) -> PyErr {
    match e {
        ReplaceError::NoEntry { .. } => raise(
            &ErrorReport {
                message: format!("{archive}: {e}"),
                path: Some(archive.into()),
                offset: None,
                kind: ErrorKind::NotFound,
            },
            None,
        ),
        ReplaceError::Shared { ref name, .. } => PyValueError::new_err(format!(
            "{e}; give them all the new content with aliases=\"all\", or {name} a copy of its own with aliases=\"split\""
        )),
        ReplaceError::AmbiguousHash { .. } | ReplaceError::NamedTwice(_) => {
            PyValueError::new_err(e.to_string())
        }
        other => to_py(&other),
    }
}

/// Writes ``archive`` (``NAME.pak``, parts beside it) with some entries
/// given new content to ``output`` (an index path; the archive itself
/// to replace it), as ``sylcol pak replace`` does: every other stored
/// byte stays where it was, entries sharing a stored copy keep sharing
/// it, a new copy goes into the place of the old one when it fits there
/// (else after the last part's end), Z1-compressed when the entry was
/// (zlib ``level``), and all files are put in place together.
///
/// ``replacements``: a mapping or an iterable of ``(key, data)`` — key
/// an entry name or ``"$XXXXXXXX"`` (str) or a hash (int), data the new
/// uncompressed bytes. ``aliases`` says what happens to an entry whose
/// stored copy other entries share: ``"refuse"`` (ValueError naming
/// them, unless they are replaced too), ``"all"`` (they all get the new
/// content) or ``"split"`` (it gets a copy of its own). ``names`` as
/// for ``open_archive``. Returns ``pak replace --json``'s report
/// without ``file``: ``{"path", "output", "entries", "replaced": [{"entries",
/// "part", "offset", "stored_bytes", "compressed", "placed"}],
/// "stale_parts_removed", "warnings"}``.
#[pyfunction]
#[pyo3(signature = (archive, output, replacements, *, aliases = "refuse", level = 9, names = None))]
pub fn replace_entries<'py>(
    py: Python<'py>,
    archive: PathBuf,
    output: PathBuf,
    replacements: &Bound<'py, PyAny>,
    aliases: &str,
    level: u32,
    names: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let archive = archive.to_string_lossy().into_owned();
    let aliases = match aliases {
        "refuse" => Aliases::Refuse,
        "all" => Aliases::All,
        "split" => Aliases::Split,
        other => {
            return Err(PyValueError::new_err(format!(
                "aliases={other:?}: expected \"refuse\", \"all\" or \"split\""
            )));
        }
    };
    if level > 9 {
        return Err(PyValueError::new_err(format!(
            "level={level}: expected 0 to 9"
        )));
    }
    let pairs = match replacements.cast::<PyDict>() {
        Ok(d) => d.items().into_any(),
        Err(_) => replacements.clone(),
    };
    let mut wanted = Vec::new();
    for pair in pairs.try_iter()? {
        let (key, data): (Bound<'_, PyAny>, Vec<u8>) = pair?.extract()?;
        wanted.push((key_of(&key)?, data));
    }
    let opener = Opener::new(name_list(names)?);
    let pak = py
        .detach(|| opener.archive(&archive))
        .map_err(source_error)?;
    let mut new = Vec::with_capacity(wanted.len());
    for (key, content) in wanted {
        let entry = find_entry(&pak, &key).map_err(|e| py_error(e, &archive))?;
        new.push(NewContent { entry, content });
    }
    let options = ReplaceOptions {
        aliases,
        level,
        ..ReplaceOptions::default()
    };
    let done = py
        .detach(|| replace(&pak, &output, new, &options))
        .map_err(|e| py_error(e, &archive))?;
    let replaced = pyo3::types::PyList::empty(py);
    for copy in &done.copies {
        let row = PyDict::new(py);
        let shown: Vec<String> = copy.entries.iter().map(|e| pak.short_display(e)).collect();
        row.set_item("entries", shown)?;
        row.set_item("part", copy.placed.span.part)?;
        row.set_item("offset", copy.placed.span.offset)?;
        row.set_item("stored_bytes", copy.placed.span.len)?;
        row.set_item("compressed", copy.compressed)?;
        let placed = if copy.placed.reused {
            "reused"
        } else {
            "appended"
        };
        row.set_item("placed", placed)?;
        replaced.append(row)?;
    }
    let finished = &done.finished;
    let out = PyDict::new(py);
    out.set_item("path", archive)?;
    out.set_item("output", output.display().to_string())?;
    out.set_item("entries", finished.entries.len())?;
    out.set_item("replaced", replaced)?;
    let stale: Vec<String> = (finished.stale_parts_removed.iter())
        .map(|p| p.display().to_string())
        .collect();
    out.set_item("stale_parts_removed", stale)?;
    let warnings: Vec<&str> = finished
        .left_behind
        .iter()
        .map(|l| l.message.as_str())
        .collect();
    out.set_item("warnings", warnings)?;
    Ok(out)
}
