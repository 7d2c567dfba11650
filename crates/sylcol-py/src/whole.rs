//! `Archive.info()` and `Archive.verify()`: what `sylcol info --json` and
//! `sylcol verify --json` print for a whole archive (the run form, with
//! `objects`, `skipped`, `errors` and `names`), walked as the CLI walks
//! it (`Opener::objects`).

use pyo3::prelude::*;
use sylcol::report::info::InfoDocument;
use sylcol::report::verify::VerifyRun;
use sylcol::source::{NameList, Opener, SourceError};

use crate::archive::source_error;
use crate::reports::json_to_py;

/// What `sylcol info --json ARCHIVE` prints, entries named by `names`.
pub fn info(py: Python<'_>, path: &str, names: &NameList) -> PyResult<Py<PyAny>> {
    let opener = Opener::new(names.clone());
    let report = py
        .detach(|| {
            let objects = opener.objects(path).map_err(Box::new)?;
            let mut report = InfoDocument::archive(path);
            report.push_objects(path, objects);
            report.names = opener.names_used();
            Ok::<_, Box<SourceError>>(report)
        })
        .map_err(|e| source_error(*e))?;
    json_to_py(py, &report)
}

/// What `sylcol verify --json [--seed SEED] [--resource-ids] ARCHIVE`
/// prints, entries named by `names`.
pub fn verify(
    py: Python<'_>,
    path: &str,
    names: &NameList,
    seed: u64,
    ids: Option<&[String]>,
) -> PyResult<Py<PyAny>> {
    let opener = Opener::new(names.clone());
    let run = py
        .detach(|| {
            let objects = opener.objects(path).map_err(Box::new)?;
            let mut run = VerifyRun::new(seed);
            run.push_objects(path, objects, ids);
            run.names = opener.names_used();
            Ok::<_, Box<SourceError>>(run)
        })
        .map_err(|e| source_error(*e))?;
    json_to_py(py, &run)
}
