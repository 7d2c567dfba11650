//! `export ARCHIVE -o DIR`: every entry sylcol decodes, one file (or, for
//! a CollisionSet as OBJ, one folder) each, in one output folder. Two
//! entries never share a file (`crate::output::FileNames`), and the
//! archive's own files are never written over.

use std::collections::HashMap;

use anyhow::Context as _;
use sylcol::export::object_name;
use sylcol::report::Skipped;
use sylcol::report::error::ObjectError;
use sylcol::report::files::ExportReport;
use sylcol_format::text::escape;
use sylcol_format::{AnyError, Object};

use super::{Args, MeshFormat, export_object, is_gltf, other};
use crate::input::{Input, Item, Opener, inputs};
use crate::output::{Dest, FileNames, OutputDir};
use crate::print;

/// What a run has written so far: the files taken, and the first entry
/// of each CollisionSet's bytes.
#[derive(Default)]
struct Taken {
    files: FileNames,
    libraries: HashMap<u64, String>,
}

/// Exports every entry of an archive it can decode into the folder
/// `args.output`: `ENTRY.obj` for a map, a folder `ENTRY/` of meshes for a
/// CollisionSet (as glTF: `ENTRY.glb` / `.gltf` for a map, one scene
/// `NAME.glb` / `.gltf` for a CollisionSet). A CollisionSet whose bytes
/// repeat an earlier one (the disc stores the library eighteen times) is
/// skipped, naming the first copy. Entries that fail to read or decode are
/// reported and the rest still exported (exit 2).
pub(super) fn export_archive(
    args: &Args,
    open: &Opener,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let items = inputs(open, &args.file)?;
    let mut out = OutputDir::create(&args.output)?;
    if let Some(archive) = items.archive() {
        out.protect(&open.archive_files(&args.file, archive));
    }
    let mut taken = Taken::default();
    for item in items {
        let result = item.and_then(|item| export_entry(item, args, &out, &mut taken, report));
        if let Err(e) = result {
            report.errors.push(print::error_report(&e));
        }
    }
    Ok(())
}

/// Exports one archive entry into `out` (see [`export_archive`]).
fn export_entry(
    item: Item,
    args: &Args,
    out: &OutputDir,
    taken: &mut Taken,
    report: &mut ExportReport,
) -> anyhow::Result<()> {
    let format = args.format.unwrap_or(MeshFormat::Obj);
    let Some((input, object)) = decode_or_skip(item, report)? else {
        return Ok(());
    };
    let entry = input
        .name
        .rsplit('+')
        .next()
        .unwrap_or(&input.name)
        .to_string();
    if let Object::CollisionSet(_) = &object {
        let digest = fingerprint(&input.bytes);
        if let Some(first) = taken.libraries.get(&digest) {
            report.skipped.push(Skipped {
                path: input.name.clone(),
                reason: format!("same bytes as {first}, its meshes are not written again"),
                magic: None,
            });
            return Ok(());
        }
        taken.libraries.insert(digest, entry.clone());
    }
    let (stem, ext) = file_of(&object, &entry, format);
    let claim = taken.files.claim(&stem, &ext);
    if let Some(first) = &claim.taken_by {
        note!(
            "entry {entry}: an earlier entry, {}, is written to the same file name, written as {}",
            escape(first),
            claim.file
        );
    }
    let place = out.place(&claim.file);
    let target = Dest::from(place.with_context(|| format!("entry {entry}"))?);
    let one = Args {
        output: target.path().to_path_buf(),
        format: Some(format),
        mesh: None,
        ..args.clone()
    };
    export_object(&input, &object, &one, &target, report)
}

/// An archive entry decoded, or `None` when no format matched (listed as
/// skipped in `report`); an entry of a known format that fails to decode
/// is an error.
pub(super) fn decode_or_skip(
    item: Item,
    report: &mut ExportReport,
) -> anyhow::Result<Option<(Input, Object)>> {
    match item.decode() {
        Ok(decoded) => Ok(Some(decoded)),
        Err(ObjectError {
            path,
            error: AnyError::Unrecognised { magic, .. },
        }) => {
            report.skipped.push(Skipped {
                path,
                reason: "not a format sylcol exports".into(),
                magic,
            });
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// The file (name and extension) an entry named `entry` is exported to:
/// `ENTRY.obj` / `.glb` / `.gltf` for a map, `ENTRY.ply` for a REGN's
/// points, `ENTRY.txt` for a string table, the folder `ENTRY` for a
/// CollisionSet as OBJ or `NAME.glb` / `.gltf` for one as a glTF scene.
fn file_of(object: &Object, entry: &str, format: MeshFormat) -> (String, String) {
    let ext = format!(".{}", format.extension());
    match object {
        Object::CollisionSet(_) if is_gltf(format) => (object_name(entry), ext),
        Object::CollisionSet(_) => (entry.to_string(), String::new()),
        Object::Regn(_) => (entry.to_string(), other::archive_ext(true, format)),
        Object::StringTable(_) => (entry.to_string(), other::archive_ext(false, format)),
        _ => (entry.to_string(), ext),
    }
}

/// A 64-bit digest of an entry's bytes, to spot repeated copies.
fn fingerprint(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
