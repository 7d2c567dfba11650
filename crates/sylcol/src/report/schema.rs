//! The JSON Schema of every command's `--json` output, generated from the
//! report types (so they cannot drift). `docs/json/NAME.schema.json` holds
//! each; a test regenerates them and compares.

use schemars::{JsonSchema, Schema, schema_for};
use serde::Serialize;

use super::build::{CollisionSetBuilt, McolBuilt, TableBuilt};
use super::error::{ErrorDocument, ErrorReport};
use super::files::{ExportReport, RewriteReport};
use super::info::InfoDocument;
use super::names::{Guess, Harvest, Pairs};
use super::pak::{PakBuilt, PakExtract, PakList, PakRecovered, PakReplaced};
use super::probe::ProbeReport;
use super::query::GridFit;
use super::verify::VerifyRun;
use crate::query::Answer;

/// One line `query batch` prints: an answer, or why the line was not one.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BatchLine {
    /// The answer to the line's query.
    Answer(Answer),
    /// A line that was not a valid query.
    Error {
        /// The line number (from 1).
        line: usize,
        /// What was wrong.
        error: ErrorReport,
    },
}

/// Every command's output schema, by file stem: `docs/json/STEM.schema.json`.
pub fn schemas() -> Vec<(&'static str, Schema)> {
    vec![
        ("info", schema_for!(InfoDocument)),
        ("verify", schema_for!(VerifyRun)),
        ("export", schema_for!(ExportReport)),
        ("rewrite", schema_for!(RewriteReport)),
        ("build-mcol", schema_for!(McolBuilt)),
        ("build-collisionset", schema_for!(CollisionSetBuilt)),
        ("build-idxd", schema_for!(TableBuilt)),
        ("query", schema_for!(Answer)),
        ("query-batch", schema_for!(BatchLine)),
        ("query-grid", schema_for!(GridFit)),
        ("pak-list", schema_for!(PakList)),
        ("pak-extract", schema_for!(PakExtract)),
        ("pak-build", schema_for!(PakBuilt)),
        ("pak-recover", schema_for!(PakRecovered)),
        ("pak-replace", schema_for!(PakReplaced)),
        ("probe", schema_for!(ProbeReport)),
        ("names-harvest", schema_for!(Harvest)),
        ("names-guess", schema_for!(Guess)),
        ("pairs", schema_for!(Pairs)),
        ("error", schema_for!(ErrorDocument)),
    ]
}

/// A schema as the text stored in `docs/json/` (pretty, newline-terminated).
pub fn schema_text(schema: &Schema) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}
