//! `export` and `rewrite`: which files were written from which objects.

use schemars::JsonSchema;
use serde::Serialize;

use super::name_sources::NameSources;
use super::{ErrorReport, Skipped};

/// One file a command wrote.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Written {
    /// The object it came from (a file or `ARCHIVE.pak+ENTRY`).
    pub source: String,
    /// For a CollisionSet, the record's name.
    pub mesh: Option<String>,
    /// The file written (`-` for standard output).
    pub path: String,
    /// Vertices written.
    pub vertices: usize,
    /// Triangles written.
    pub triangles: usize,
}

/// What `export` did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ExportReport {
    /// The input as named.
    pub path: String,
    /// The output as given (a file, a folder, or `-`).
    pub output: String,
    /// Every file written.
    pub files: Vec<Written>,
    /// Objects not exported, and why (other formats, repeated libraries).
    pub skipped: Vec<Skipped>,
    /// Objects that could not be read, decoded or written.
    pub errors: Vec<ErrorReport>,
    /// Where the entry names of each archive opened came from.
    pub names: Vec<NameSources>,
}

impl ExportReport {
    /// An empty report.
    pub fn new(path: &str, output: &str) -> Self {
        ExportReport {
            path: path.to_string(),
            output: output.to_string(),
            files: Vec::new(),
            skipped: Vec::new(),
            errors: Vec::new(),
            names: Vec::new(),
        }
    }

    /// The human-readable form: one line per object, then the totals.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let mut by_source: Vec<(&str, usize, usize, usize)> = Vec::new();
        for f in &self.files {
            let object = f.source.as_str();
            match by_source.last_mut() {
                Some(last) if last.0 == object => {
                    last.1 += 1;
                    last.2 += f.vertices;
                    last.3 += f.triangles;
                }
                _ => by_source.push((object, 1, f.vertices, f.triangles)),
            }
        }
        for (object, files, v, tr) in &by_source {
            t.push_str(&format!(
                "{object}: wrote {v} vertices, {tr} triangles in {files} file(s)\n"
            ));
        }
        // Entries skipped for one reason (the copies of one library) are
        // one line.
        let mut by_reason: Vec<(&str, Vec<&str>)> = Vec::new();
        for s in &self.skipped {
            match by_reason.iter_mut().find(|(r, _)| *r == s.reason) {
                Some((_, paths)) => paths.push(&s.path),
                None => by_reason.push((&s.reason, vec![&s.path])),
            }
        }
        for (reason, paths) in by_reason {
            t.push_str(&format!("{}: skipped, {reason}\n", paths.join(", ")));
        }
        let mut paths: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        t.push_str(&format!(
            "{}: exported {} file(s) to {}, {} skipped, {} failed\n",
            self.path,
            paths.len(),
            self.output,
            self.skipped.len(),
            self.errors.len()
        ));
        t
    }
}

/// What `rewrite` did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RewriteReport {
    /// The input as named.
    pub path: String,
    /// Where the re-encoded object was written (`-` for standard output).
    pub output: String,
    /// `MCOL` or `CollisionSet`.
    pub format: &'static str,
    /// The input's length.
    pub bytes: usize,
    /// The output's length.
    pub output_bytes: usize,
    /// Whether the output equals the input byte for byte.
    pub identical: bool,
    /// The first byte where they differ (none when identical).
    pub first_difference: Option<u64>,
}

impl RewriteReport {
    /// Compares `original` with `encoded`.
    pub fn new(
        path: &str,
        output: &str,
        format: &'static str,
        original: &[u8],
        encoded: &[u8],
    ) -> Self {
        let first_difference = (original != encoded).then(|| {
            original
                .iter()
                .zip(encoded)
                .position(|(a, b)| a != b)
                .unwrap_or(original.len().min(encoded.len())) as u64
        });
        RewriteReport {
            path: path.to_string(),
            output: output.to_string(),
            format,
            bytes: original.len(),
            output_bytes: encoded.len(),
            identical: first_difference.is_none(),
            first_difference,
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        match self.first_difference {
            None => format!(
                "{}: rewritten, byte-identical ({} bytes)\n",
                self.path, self.output_bytes
            ),
            Some(first) => format!(
                "{}: rewritten, but NOT byte-identical: first difference at byte {first:#x} ({} bytes in, {} out)\n",
                self.path, self.bytes, self.output_bytes
            ),
        }
    }
}
