//! What the page holds once files are dropped: the objects shown (the
//! viewer's [`Catalog`], asked through the same JSON API `sylcol serve`
//! answers) and every object's `verify` report, as the CLI gives them.

use serde_json::{Value, json};
use sylcol::report::error::ErrorReport;
use sylcol::report::name_sources::NameSources;
use sylcol::report::pak::index_problems;
use sylcol::report::verify::VerifyRun;
use sylcol::source::{Item, MemoryFolder, Opener};
use sylcol::verify::DEFAULT_SEED;
use sylcol_serve::api::{Reply, handle};
use sylcol_serve::{Catalog, Source};

/// One dropped file, opened as the CLI opens a FILE argument
/// ([`Opener::objects_in`]).
#[derive(Debug)]
struct Opened {
    /// The problems of its index, when it is an archive (as `verify`
    /// reports them).
    problems: Vec<ErrorReport>,
    /// Whether it is an archive: an entry of no format sylcol decodes is
    /// then skipped, where a lone file of none is an error.
    in_archive: bool,
    /// Its objects (every entry of an archive, in index order), or why
    /// one could not be read, as the CLI reports it.
    items: Vec<Result<Item, ErrorReport>>,
}

impl Opened {
    /// Every object of file `name` of `folder`; the error when the file
    /// gives none (an archive whose index cannot be read).
    fn open(opener: &Opener, folder: &MemoryFolder, name: &str) -> Result<Opened, ErrorReport> {
        let objects = opener.objects_in(folder, name).map_err(|e| e.report())?;
        let problems = objects
            .archive()
            .map(|a| index_problems(name, a))
            .unwrap_or_default();
        let in_archive = objects.archive().is_some();
        Ok(Opened {
            problems,
            in_archive,
            items: objects.map(|i| i.map_err(|e| e.report())).collect(),
        })
    }
}

/// The dropped files, opened, and the objects the viewer shows.
#[derive(Debug, Default)]
pub struct Session {
    files: Vec<Result<Opened, ErrorReport>>,
    catalog: Catalog,
    /// Objects not shown, with the reason (`sylcol serve`'s notes).
    skipped: Vec<Value>,
    /// Where the entry names of each dropped archive came from (the
    /// built-in list, a dropped `names.txt`), as `verify --json` says.
    names: Vec<NameSources>,
}

impl Session {
    /// Opens the files of `folder` a user would name (every one but the
    /// parts of a dropped archive and `names.txt`: [`MemoryFolder::arguments`])
    /// as `sylcol serve FILE...` does, and fills the catalog: maps,
    /// libraries and REGN point clouds are shown; other objects, and
    /// objects that cannot be read, are listed with the reason.
    pub fn open(folder: &MemoryFolder) -> Session {
        let opener = Opener::default();
        let mut session = Session {
            files: folder
                .arguments()
                .into_iter()
                .map(|name| Opened::open(&opener, folder, name))
                .collect(),
            ..Session::default()
        };
        let mut skipped = Vec::new();
        for file in session.files.iter().flatten() {
            for item in &file.items {
                let (path, reason) = match item {
                    Ok(Item::Whole(input)) => {
                        let source = Source::new(input.name.clone(), input.bytes.clone());
                        match session.catalog.add(source) {
                            Ok(()) => continue,
                            Err(s) => (s.path, s.reason),
                        }
                    }
                    Ok(Item::Other(e)) => (e.path.clone(), e.error.to_string()),
                    Err(e) => (e.path.clone().unwrap_or_default(), e.message.clone()),
                };
                skipped.push(json!({ "path": path, "reason": reason }));
            }
        }
        session.skipped = skipped;
        session.names = opener.names_used();
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
        let errors: Vec<&ErrorReport> =
            self.files.iter().filter_map(|f| f.as_ref().err()).collect();
        json!({ "objects": objects, "skipped": self.skipped, "errors": errors })
    }

    /// One request of the viewer's API ([`sylcol_serve::api`]).
    pub fn request(&self, method: &str, url: &str, body: &[u8]) -> Reply {
        handle(&self.catalog, method, url, body)
    }

    /// `sylcol verify --json` over the dropped files: every object of
    /// every archive and loose file, in order, with the errors. Rows that
    /// share their bytes (the eighteen library rows) are verified once
    /// and name each other in `shares_content_with`, as the CLI's run
    /// does: the checks read the bytes and the seed only, never the name.
    pub fn verify(&self) -> VerifyRun {
        let mut run = VerifyRun::new(DEFAULT_SEED);
        for file in &self.files {
            let file = match file {
                Ok(file) => file,
                Err(e) => {
                    run.error(e.clone());
                    continue;
                }
            };
            for problem in &file.problems {
                run.error(problem.clone());
            }
            for item in &file.items {
                match item {
                    Ok(Item::Whole(input)) => {
                        run.push(&input.name, &input.bytes, file.in_archive, None)
                    }
                    Ok(Item::Other(e)) => run.push_undecoded(e.clone(), file.in_archive),
                    Err(e) => run.error(e.clone()),
                }
            }
        }
        run.names = self.names.clone();
        run
    }
}
