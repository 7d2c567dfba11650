//! `write_archive`: an IPFB archive (index and parts) from entries, all
//! files put in place together or not at all.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use sylcol_format::ipfb::{ArchiveWriter, EntryKey, WriteOptions};

use crate::errors::to_py;

/// An entry's key: a name (hashed with MakeEntryID) or a hash.
fn key_of(key: &Bound<'_, PyAny>) -> PyResult<EntryKey> {
    if key.is_instance_of::<PyString>() {
        Ok(EntryKey::Name(key.extract()?))
    } else if key.is_instance_of::<PyInt>() {
        Ok(EntryKey::Hash(key.extract()?))
    } else {
        Err(PyTypeError::new_err(format!(
            "entry key: expected a name (str) or a hash (int), got {}",
            key.get_type().name()?
        )))
    }
}

/// Writes an archive: ``path`` is the index (``NAME.pak``), its parts
/// (``NAME.p00``...) go beside it.
///
/// ``entries`` is an iterable of ``(key, data, compress)``: ``key`` an
/// entry name (``"CollisionSet_S01.bin"``) or a hash (int), ``data`` the
/// entry's bytes, ``compress`` whether to store it Z1-compressed (zlib
/// ``level``, 9 by default as the game's). Entries are stored in the
/// order given, the index sorted by hash. Every file is written under a
/// temporary name and renamed into place together (an earlier archive of
/// that name is replaced only once the new one is whole). The folder
/// must exist. Returns ``{"entries": N, "parts": P}``.
#[pyfunction]
#[pyo3(signature = (path, entries, *, level = 9))]
pub fn write_archive<'py>(
    py: Python<'py>,
    path: PathBuf,
    entries: &Bound<'py, PyAny>,
    level: u32,
) -> PyResult<Bound<'py, PyDict>> {
    if level > 9 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "level={level}: expected 0 to 9"
        )));
    }
    let mut items = Vec::new();
    for item in entries.try_iter()? {
        let (key, data, compress): (Bound<'_, PyAny>, Vec<u8>, bool) = item?.extract()?;
        items.push((key_of(&key)?, data, compress));
    }
    let options = WriteOptions {
        level,
        ..WriteOptions::default()
    };
    let done = py.detach(|| {
        let mut writer = ArchiveWriter::create(&path, options);
        for (key, data, compress) in &items {
            writer.add(key, data, *compress)?;
        }
        writer.finish()
    });
    let done = done.map_err(|e| to_py(&e))?;
    let parts = done.entries.iter().map(|e| usize::from(e.part) + 1).max();
    let out = PyDict::new(py);
    out.set_item("entries", done.entries.len())?;
    out.set_item("parts", parts.unwrap_or(0))?;
    Ok(out)
}
