//! Plans that rewrite an archive around the layout it has
//! (`sylcol_format::ipfb::rewrite`): `pak build` of a folder with a
//! manifest (with the pieces it shares with `pak replace`,
//! `sylcol_format::ipfb::replace`).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sylcol_format::ipfb::replace::{settle_vacated, stored_form};
use sylcol_format::ipfb::rewrite::{IndexWords, NewStored, Placement, Plan, PlannedEntry, Span};
use sylcol_format::ipfb::z1::is_z1;
use sylcol_format::ipfb::{Archive, EntryKey};

use super::manifest::{EntryRecord, Manifest, sha256_of};

/// A build's plan and what it says about each entry.
pub(super) struct FolderPlan {
    pub plan: Plan,
    pub kept: usize,
    pub stored_anew: usize,
    pub compressed: usize,
    pub notes: Vec<String>,
}

/// The folder's files, the manifest and the build options, as a plan.
pub(super) struct FromManifest<'a> {
    pub manifest: &'a Manifest,
    /// Each file under the folder: its path and `\`-separated name.
    pub files: &'a [(PathBuf, String)],
    /// Whether a new file (one the manifest does not list) is stored raw.
    pub store_raw: &'a dyn Fn(&str) -> bool,
    pub level: u32,
    /// The entry key of a new file's name.
    pub key_of: &'a dyn Fn(&str) -> EntryKey,
}

/// The archive the manifest names, if it still holds every part at
/// least as long as recorded: the base the build keeps stored bytes
/// from. Else a note says why every entry is stored anew.
fn source_of(m: &Manifest, notes: &mut Vec<String>) -> Option<Vec<Option<(PathBuf, u64)>>> {
    let archive = match Archive::open(Path::new(&m.archive)) {
        Ok(a) => a,
        Err(e) => {
            notes.push(format!(
                "the archive the manifest names cannot be read ({e}): every entry is stored anew"
            ));
            return None;
        }
    };
    let mut base = Vec::new();
    for p in &m.parts {
        let found = archive.part_file(p.part);
        if found.is_none_or(|(_, len)| len < p.length) {
            notes.push(format!(
                "{}: part {} is missing or shorter than the {} bytes the manifest records: every entry is stored anew",
                m.archive, p.part, p.length
            ));
            return None;
        }
        let (path, _) = found.expect("checked above");
        base.resize(usize::from(p.part) + 1, None);
        base[usize::from(p.part)] = Some((path.to_path_buf(), p.length));
    }
    Some(base)
}

/// Whether the stored bytes at `span` of `base` have the SHA-256 `want`.
fn stored_matches(base: &[Option<(PathBuf, u64)>], span: Span, want: &str) -> bool {
    let Some(Some((path, _))) = base.get(usize::from(span.part)) else {
        return false;
    };
    let read = || -> std::io::Result<String> {
        let mut f = std::fs::File::open(path)?;
        f.seek(SeekFrom::Start(u64::from(span.offset)))?;
        sha256_of(&mut f.take(u64::from(span.len)))
    };
    read().is_ok_and(|got| got == want)
}

/// The plan of a build that follows `m`: each listed entry whose file
/// has the content recorded, and whose stored bytes are still in the
/// archive the manifest names, keeps them; the others are stored anew
/// (entries with the same new content share one copy); a listed file
/// that is gone removes its entry; a file not listed is a new entry,
/// put in hash order.
pub(super) fn plan_from_manifest(input: FromManifest) -> anyhow::Result<FolderPlan> {
    let m = input.manifest;
    let mut notes = Vec::new();
    let base = source_of(m, &mut notes);
    let mut by_file: HashMap<String, &PathBuf> = (input.files.iter())
        .map(|(path, rel)| (rel.replace('\\', "/"), path))
        .collect();
    let mut out = FolderPlan {
        plan: Plan {
            index: IndexWords {
                alignment: m.index.alignment,
                part_size: m.index.part_size,
                unlisted: m.index.declared_count - m.entries.len() as u32,
                tail: m.tail(),
            },
            base: base.clone().unwrap_or_default(),
            ..Plan::default()
        },
        kept: 0,
        stored_anew: 0,
        compressed: 0,
        notes,
    };
    let mut verified: HashMap<Span, bool> = HashMap::new();
    let mut groups: HashMap<(String, bool), usize> = HashMap::new();
    let mut origins = Vec::new();
    let mut removed = Vec::new();
    let mut unmatched = 0usize;
    for e in &m.entries {
        let Some(path) = by_file.remove(&e.file) else {
            removed.push(e.file.clone());
            continue;
        };
        let content = read_file(path)?;
        let sha = super::manifest::sha256_hex(&content);
        let span = Span {
            part: e.part,
            offset: e.offset,
            len: e.stored_size,
        };
        if sha == e.sha256
            && let Some(base) = &base
        {
            let ok = *verified
                .entry(span)
                .or_insert_with(|| stored_matches(base, span, &e.stored_sha256));
            if ok {
                out.plan.entries.push(PlannedEntry {
                    hash: e.hash_value(),
                    placement: Placement::Kept(span),
                });
                out.kept += 1;
                out.compressed += usize::from(e.compressed);
                continue;
            }
            unmatched += 1;
        }
        let n = restore(&mut out, &mut groups, e, content, sha, input.level)?;
        if origins.len() < out.plan.stored.len() {
            origins.push(base.as_ref().map(|_| span));
        }
        out.plan.entries.push(PlannedEntry {
            hash: e.hash_value(),
            placement: Placement::New(n),
        });
    }
    if unmatched > 0 {
        out.notes.push(format!(
            "{unmatched} unchanged entries are stored anew: their stored bytes in {} are no longer those the manifest records",
            m.archive
        ));
    }
    if !removed.is_empty() {
        out.notes.push(format!(
            "{} entries removed, their files are gone from the folder: {}",
            removed.len(),
            removed.join(", ")
        ));
    }
    add_new_files(&mut out, &mut origins, by_file, &input)?;
    let all: Vec<Span> = match &base {
        Some(_) => m.entries.iter().map(span_of).collect(),
        None => Vec::new(),
    };
    settle_vacated(&mut out.plan, &all, &origins);
    Ok(out)
}

fn span_of(e: &EntryRecord) -> Span {
    Span {
        part: e.part,
        offset: e.offset,
        len: e.stored_size,
    }
}

fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Stores `content` of listed entry `e` anew (one copy per content and
/// compression); returns its index in the plan's stored copies.
fn restore(
    out: &mut FolderPlan,
    groups: &mut HashMap<(String, bool), usize>,
    e: &EntryRecord,
    content: Vec<u8>,
    sha: String,
    level: u32,
) -> anyhow::Result<usize> {
    out.stored_anew += 1;
    if let Some(&n) = groups.get(&(sha.clone(), e.compressed)) {
        out.compressed += usize::from(is_z1(&out.plan.stored[n].bytes));
        return Ok(n);
    }
    let (bytes, z1) = stored_form(content, e.compressed, level, &e.file)?;
    out.compressed += usize::from(z1);
    let n = out.plan.stored.len();
    out.plan.stored.push(NewStored {
        name: e.file.clone(),
        bytes,
        vacates: None,
    });
    groups.insert((sha, e.compressed), n);
    Ok(n)
}

/// Adds the files the manifest does not list as new entries: in hash
/// order when the index is sorted, else after the others (said in a note).
fn add_new_files(
    out: &mut FolderPlan,
    origins: &mut Vec<Option<Span>>,
    rest: HashMap<String, &PathBuf>,
    input: &FromManifest,
) -> anyhow::Result<()> {
    let mut rest: Vec<(String, &PathBuf)> = rest.into_iter().collect();
    rest.sort();
    let entries = &mut out.plan.entries;
    let sorted = entries.windows(2).all(|w| w[0].hash < w[1].hash);
    for (rel, path) in &rest {
        let key = (input.key_of)(&rel.replace('/', "\\"));
        let hash = key.hash();
        if entries.iter().any(|e| e.hash == hash) {
            bail!(
                "{}: entry {} has hash {hash:08X}, which an entry of the manifest has too; the index can hold only one",
                path.display(),
                key.display()
            );
        }
        let (bytes, z1) = stored_form(read_file(path)?, !(input.store_raw)(rel), input.level, rel)?;
        out.compressed += usize::from(z1);
        out.stored_anew += 1;
        let placement = Placement::New(out.plan.stored.len());
        out.plan.stored.push(NewStored {
            name: rel.clone(),
            bytes,
            vacates: None,
        });
        origins.push(None);
        let at = if sorted {
            entries.partition_point(|e| e.hash < hash)
        } else {
            entries.len()
        };
        entries.insert(at, PlannedEntry { hash, placement });
    }
    if !rest.is_empty() {
        let order = if sorted {
            "in hash order"
        } else {
            "after the others (the archive's index is not in hash order)"
        };
        out.notes.push(format!(
            "{} new entries, put {order}: {}",
            rest.len(),
            rest.iter()
                .map(|(r, _)| r.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}
