//! `verify`: every object's checks, and the run over all inputs.

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::{AnyError, Object, decode_any};

use super::Skipped;
use super::error::{ErrorReport, ObjectError};
use super::name_sources::NameSources;
use super::shared::{Digest32, ObjectBytes, SharedContent, SharesContent};
use crate::source::{Item, Objects};
use crate::verify::{Check, collisionset, idxd, mcol, regn, text};

pub mod summary;

/// One verified object; `format` says which report follows.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "format")]
pub enum Verified {
    /// A map collision hull.
    #[serde(rename = "MCOL")]
    Mcol {
        /// The input as named.
        path: String,
        /// Its checks and figures.
        #[serde(flatten)]
        report: mcol::McolReport,
    },
    /// A part library.
    CollisionSet {
        /// The input as named.
        path: String,
        /// Its checks and figures.
        #[serde(flatten)]
        report: collisionset::CollisionSetReport,
    },
    /// A REGN object: the assumptions sylcol checks.
    #[serde(rename = "REGN")]
    Regn {
        /// The input as named.
        path: String,
        /// Its checks.
        #[serde(flatten)]
        report: regn::RegnReport,
    },
    /// A UTF-8 string table.
    #[serde(rename = "IDXD")]
    Idxd {
        /// The input as named.
        path: String,
        /// Its checks.
        #[serde(flatten)]
        report: idxd::StringTableReport,
    },
    /// A UTF-16BE string table.
    #[serde(rename = "IXUD")]
    Ixud {
        /// The input as named.
        path: String,
        /// Its checks.
        #[serde(flatten)]
        report: idxd::StringTableReport,
    },
}

impl Verified {
    /// The format's name.
    pub fn format(&self) -> &'static str {
        match self {
            Verified::Mcol { .. } => "MCOL",
            Verified::CollisionSet { .. } => "CollisionSet",
            Verified::Regn { .. } => "REGN",
            Verified::Idxd { .. } => "IDXD",
            Verified::Ixud { .. } => "IXUD",
        }
    }

    /// The checks run.
    pub fn checks(&self) -> &[Check] {
        match self {
            Verified::Mcol { report, .. } => &report.checks,
            Verified::CollisionSet { report, .. } => &report.checks,
            Verified::Regn { report, .. } => &report.checks,
            Verified::Idxd { report, .. } | Verified::Ixud { report, .. } => &report.checks,
        }
    }

    /// Whether every check passed.
    pub fn ok(&self) -> bool {
        match self {
            Verified::Mcol { report, .. } => report.ok,
            Verified::CollisionSet { report, .. } => report.ok,
            Verified::Regn { report, .. } => report.ok,
            Verified::Idxd { report, .. } | Verified::Ixud { report, .. } => report.ok,
        }
    }

    /// The input as named.
    pub fn path(&self) -> &str {
        match self {
            Verified::Mcol { path, .. }
            | Verified::CollisionSet { path, .. }
            | Verified::Regn { path, .. }
            | Verified::Idxd { path, .. }
            | Verified::Ixud { path, .. } => path,
        }
    }

    /// Names the report after `path` (a copy of another object's report).
    pub fn set_path(&mut self, new: &str) {
        match self {
            Verified::Mcol { path, .. }
            | Verified::CollisionSet { path, .. }
            | Verified::Regn { path, .. }
            | Verified::Idxd { path, .. }
            | Verified::Ixud { path, .. } => *path = new.to_string(),
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        match self {
            Verified::Mcol { path, report } => text::mcol_text(path, report),
            Verified::CollisionSet { path, report } => text::collisionset_text(path, report),
            Verified::Regn { path, .. }
            | Verified::Idxd { path, .. }
            | Verified::Ixud { path, .. } => {
                text::checks_text(path, self.format(), self.ok(), self.checks())
            }
        }
    }
}

/// Verifies one decoded object (`bytes` are its own; format-level checks
/// read them). `None` for a format verify has no checks for.
pub fn verify_object(
    path: &str,
    bytes: &[u8],
    object: &Object,
    resource_ids: Option<&[String]>,
    seed: u64,
) -> Option<Verified> {
    Some(match object {
        Object::Mcol(m) => Verified::Mcol {
            path: path.to_string(),
            report: mcol::verify(m, Some(bytes), seed),
        },
        Object::CollisionSet(set) => Verified::CollisionSet {
            path: path.to_string(),
            report: collisionset::verify_library(bytes, set, resource_ids, seed),
        },
        Object::Regn(r) => Verified::Regn {
            path: path.to_string(),
            report: regn::verify(r, seed),
        },
        Object::StringTable(t) => {
            let (path, report) = (path.to_string(), idxd::verify(t, seed));
            match t.flavour {
                sylcol_format::idxd::Flavour::Idxd => Verified::Idxd { path, report },
                sylcol_format::idxd::Flavour::Ixud => Verified::Ixud { path, report },
            }
        }
        _ => return None,
    })
}

/// One object of a run: its report, and the other objects of the run
/// whose bytes are the same (each carries the same report under its own
/// `path`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VerifiedEntry {
    /// The object's report.
    #[serde(flatten)]
    pub report: Verified,
    /// The `path` of every other object of the run with identical bytes
    /// (SHA-256 of the object's content), in input order; empty when none.
    pub shares_content_with: Vec<String>,
}

impl SharesContent for VerifiedEntry {
    fn entry_path(&self) -> &str {
        self.report.path()
    }
    fn shares_content_with(&mut self) -> &mut Vec<String> {
        &mut self.shares_content_with
    }
}

/// A whole `verify` run, as `--json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct VerifyRun {
    /// The seed of the randomised controls.
    pub seed: u64,
    /// Every object passed and every input was read.
    pub ok: bool,
    /// Every verified object, in input order (copies included).
    pub objects: Vec<VerifiedEntry>,
    /// Archive entries in formats verify does not check.
    pub skipped: Vec<Skipped>,
    /// Inputs that could not be read or decoded.
    pub errors: Vec<ErrorReport>,
    /// Which objects share their content.
    #[serde(skip)]
    shared: SharedContent,
    /// Where the entry names of each archive opened came from.
    pub names: Vec<NameSources>,
}

impl VerifyRun {
    /// An empty run with controls seeded by `seed`.
    pub fn new(seed: u64) -> Self {
        VerifyRun {
            seed,
            ok: true,
            objects: Vec::new(),
            errors: Vec::new(),
            skipped: Vec::new(),
            shared: SharedContent::default(),
            names: Vec::new(),
        }
    }

    /// Verifies one input. In an archive (`in_archive`), an entry no
    /// format matches is skipped; a lone file of no known format is an
    /// error. An object whose bytes repeat an earlier one's takes that
    /// one's report (the checks are a function of the bytes and the seed).
    pub fn push(
        &mut self,
        path: &str,
        bytes: &(impl ObjectBytes + ?Sized),
        in_archive: bool,
        ids: Option<&[String]>,
    ) {
        let digest = self.shared.digest_of(bytes);
        let bytes = bytes.bytes();
        if let Some(first) = self.shared.first(&digest) {
            let mut report = self.objects[first].report.clone();
            report.set_path(path);
            return self.add(report, digest);
        }
        let verified = decode_any(bytes).map(|o| verify_object(path, bytes, &o, ids, self.seed));
        match verified {
            Ok(Some(v)) => self.add(v, digest),
            Ok(None) => self.skip(path, "verify has no checks for this format", None),
            Err(error) => {
                let path = path.to_string();
                self.push_undecoded(ObjectError { path, error }, in_archive)
            }
        }
    }

    fn add(&mut self, report: Verified, digest: Digest32) {
        let entry = VerifiedEntry {
            report,
            shares_content_with: Vec::new(),
        };
        self.shared.link(&mut self.objects, entry, digest);
        self.update_ok();
    }

    fn update_ok(&mut self) {
        self.ok = self.errors.is_empty() && self.objects.iter().all(|o| o.report.ok());
    }

    /// Verifies every object of the FILE argument `path`
    /// ([`crate::source::Opener::objects`]): an archive's index problems,
    /// then each entry (an entry of no known format skipped), or the error
    /// that kept it from being read, as `sylcol verify` reports it.
    pub fn push_objects(&mut self, path: &str, objects: Objects, ids: Option<&[String]>) {
        let in_archive = objects.archive().is_some();
        if let Some(archive) = objects.archive() {
            for problem in super::pak::index_problems(path, archive) {
                self.error(problem);
            }
        }
        for item in objects {
            match item {
                Ok(Item::Whole(input)) => self.push(&input.name, &input.bytes, in_archive, ids),
                Ok(Item::Other(e)) => self.push_undecoded(e, in_archive),
                Err(e) => self.error(e.report()),
            }
        }
    }

    /// Adds an input that did not decode: in an archive, skipped when no
    /// format matched; else an error. (An object the CLI sniffed and never
    /// read whole comes here directly, with the error decoding would give.)
    pub fn push_undecoded(&mut self, e: ObjectError, in_archive: bool) {
        match e {
            ObjectError {
                path,
                error: AnyError::Unrecognised { magic, .. },
            } if in_archive => self.skip(&path, "not a format sylcol decodes", magic),
            e => self.error(ErrorReport::from_error(&e)),
        }
        self.update_ok();
    }

    /// Records an input that could not be read.
    pub fn error(&mut self, error: ErrorReport) {
        self.errors.push(error);
        self.ok = false;
    }

    fn skip(&mut self, path: &str, reason: &str, magic: Option<String>) {
        self.skipped.push(Skipped {
            path: path.to_string(),
            reason: reason.to_string(),
            magic,
        });
    }

    /// Which objects of the run share their content.
    pub fn shared(&self) -> &SharedContent {
        &self.shared
    }
}
