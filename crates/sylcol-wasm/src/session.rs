//! What the page holds once files are dropped: the objects shown (the
//! viewer's [`Catalog`], asked through the same JSON API `sylcol serve`
//! answers) and every object's `verify` report, as the CLI gives them.

use std::sync::Arc;

use serde_json::{Value, json};
use sylcol::report::error::ErrorReport;
use sylcol::report::verify::{Verified, VerifyRun};
use sylcol::verify::DEFAULT_SEED;
use sylcol_serve::api::{Reply, handle};
use sylcol_serve::{Catalog, Source};

use crate::files::{Dropped, Input, Item, walk};

/// The dropped files, walked, and the objects the viewer shows.
#[derive(Debug, Default)]
pub struct Session {
    inputs: Vec<Result<Input, ErrorReport>>,
    catalog: Catalog,
    /// Objects not shown, with the reason (`sylcol serve`'s notes).
    skipped: Vec<Value>,
}

impl Session {
    /// Walks `files` as `sylcol serve FILE...` does and fills the catalog:
    /// maps and libraries are shown; other objects, and objects that
    /// cannot be read, are listed with the reason.
    pub fn open(files: &[Dropped]) -> Session {
        let mut session = Session {
            inputs: walk(files),
            ..Session::default()
        };
        let mut skipped = Vec::new();
        for input in &session.inputs {
            let Ok(input) = input else { continue };
            for item in &input.items {
                let (path, reason) = match item {
                    Item::Whole(name, bytes) => {
                        match session
                            .catalog
                            .add(Source::new(name.clone(), bytes.clone()))
                        {
                            Ok(()) => continue,
                            Err(s) => (s.path, s.reason),
                        }
                    }
                    Item::Other(e) => (e.path.clone(), e.error.to_string()),
                    Item::Unreadable(e) => (e.path.clone().unwrap_or_default(), e.message.clone()),
                };
                skipped.push(json!({ "path": path, "reason": reason }));
            }
        }
        session.skipped = skipped;
        session
    }

    /// The viewer's objects.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// What the drop gave: the objects shown (as `GET /api/objects`
    /// lists them), the entries skipped and why, and the errors (each as
    /// `sylcol verify --json` reports it).
    pub fn summary(&self) -> Value {
        let objects: Vec<Value> = self.catalog.objects().iter().map(|o| o.summary()).collect();
        let errors: Vec<&ErrorReport> = self
            .inputs
            .iter()
            .filter_map(|i| i.as_ref().err())
            .collect();
        json!({ "objects": objects, "skipped": self.skipped, "errors": errors })
    }

    /// One request of the viewer's API ([`sylcol_serve::api`]).
    pub fn request(&self, method: &str, url: &str, body: &[u8]) -> Reply {
        handle(&self.catalog, method, url, body)
    }

    /// `sylcol verify --json` over the dropped files: every object of
    /// every archive and loose file, in order, with the errors. Rows that
    /// share their bytes (the eighteen library rows) are verified once:
    /// the checks read the bytes and the seed only, never the name.
    pub fn verify(&self) -> VerifyRun {
        let mut run = VerifyRun::new(DEFAULT_SEED);
        let mut done: Vec<(Arc<Vec<u8>>, Verified)> = Vec::new();
        for input in &self.inputs {
            let input = match input {
                Ok(input) => input,
                Err(e) => {
                    run.error(e.clone());
                    continue;
                }
            };
            let in_archive = input.archive.is_some();
            if let Some(a) = &input.archive {
                for problem in sylcol::report::pak::index_problems(&input.name, a) {
                    run.error(problem);
                }
            }
            for item in &input.items {
                match item {
                    Item::Whole(name, bytes) => {
                        if let Some((_, v)) = done.iter().find(|(b, _)| Arc::ptr_eq(b, bytes)) {
                            run.objects.push(renamed(v, name));
                            run.ok = run.ok && v.ok();
                            continue;
                        }
                        let before = run.objects.len();
                        run.push(name, bytes, in_archive, None);
                        if let Some(v) = run.objects.get(before) {
                            done.push((bytes.clone(), v.clone()));
                        }
                    }
                    Item::Other(e) => run.push_undecoded(e.clone(), in_archive),
                    Item::Unreadable(e) => run.error(e.clone()),
                }
            }
        }
        run
    }
}

/// `v` as the report of the same bytes named `path`.
fn renamed(v: &Verified, path: &str) -> Verified {
    let mut v = v.clone();
    match &mut v {
        Verified::Mcol { path: p, .. }
        | Verified::CollisionSet { path: p, .. }
        | Verified::Regn { path: p, .. }
        | Verified::Idxd { path: p, .. }
        | Verified::Ixud { path: p, .. } => *p = path.to_string(),
    }
    v
}
