//! `Archive.info()` and `Archive.verify()`: what `sylcol info --json` and
//! `sylcol verify --json` print for a whole archive (the run form, with
//! `objects`, `skipped`, `errors` and `names`), walked as the CLI walks
//! it (`Opener::objects`).

use std::error::Error;

use pyo3::prelude::*;
use sylcol::report::error::{ErrorReport, chain_message};
use sylcol::report::info::InfoDocument;
use sylcol::report::pak::index_problems;
use sylcol::report::verify::VerifyRun;
use sylcol::source::{Item, NameList, Opener, SourceError};

use crate::archive::source_error;
use crate::reports::json_to_py;

/// What `sylcol info --json ARCHIVE` prints, entries named by `names`.
pub fn info(py: Python<'_>, path: &str, names: &NameList) -> PyResult<Py<PyAny>> {
    let opener = Opener::new(names.clone());
    let report = py
        .detach(|| {
            let objects = opener.objects(path).map_err(Box::new)?;
            let mut report = InfoDocument::archive(path);
            if let Some(archive) = objects.archive() {
                report.errors = index_problems(path, archive);
            }
            for item in objects {
                match item {
                    Ok(Item::Whole(input)) => report.push(&input.name, &input.bytes),
                    Ok(Item::Other(e)) => report.push_undecoded(e),
                    Err(e) => report.errors.push(error_report(&e)),
                }
            }
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
            let in_archive = objects.archive().is_some();
            if let Some(archive) = objects.archive() {
                for problem in index_problems(path, archive) {
                    run.error(problem);
                }
            }
            for item in objects {
                match item {
                    Ok(Item::Whole(input)) => run.push(&input.name, &input.bytes, in_archive, ids),
                    Ok(Item::Other(e)) => run.push_undecoded(e, in_archive),
                    Err(e) => run.error(error_report(&e)),
                }
            }
            run.names = opener.names_used();
            Ok::<_, Box<SourceError>>(run)
        })
        .map_err(|e| source_error(*e))?;
    json_to_py(py, &run)
}

/// The report of an entry that could not be read, as the CLI words it
/// (the error and its causes on one line).
fn error_report(e: &SourceError) -> ErrorReport {
    let chain = || std::iter::successors(Some(e as &(dyn Error + 'static)), |&e| e.source());
    ErrorReport::from_chain(chain_message(chain()), chain())
}
