//! The sample corpus: what goes into `samples/MiscBin.pak` + `.p00` and
//! `samples/Tables.pak` + `.p00`.

use std::path::Path;

use anyhow::{Context, ensure};
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol_format::collisionset::{self, CollisionSet, Endian, Record};
use sylcol_format::ipfb::names::BUILTIN_NAMES;
use sylcol_format::ipfb::{ArchiveWriter, EntryKey, Index, IndexEntry, WriteOptions};
use sylcol_format::mcol;

use crate::maps::{self, MAPS, MapSpec};
use crate::{library, regions, tables};

/// The eighteen names the game gives the CollisionSet library (one file,
/// stored eighteen times): the `CollisionSet_` names of the archive
/// reader's built-in list, S01 first.
pub fn collisionset_names() -> Vec<&'static str> {
    BUILTIN_NAMES
        .iter()
        .copied()
        .filter(|n| n.starts_with("CollisionSet_"))
        .collect()
}

/// The synthetic CollisionSet library, big-endian, exactly the seed's
/// 1 675 148 bytes.
pub fn collisionset() -> anyhow::Result<Vec<u8>> {
    let records = library::generate()
        .into_iter()
        .map(|(name, mesh)| {
            let vertices = mesh.vertices.iter().map(|v| v.to_array()).collect();
            Record::new(&name, vertices, mesh.triangles).with_context(|| name.clone())
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let set = CollisionSet {
        endian: Endian::Big,
        records,
    };
    ensure!(
        (set.records.len(), set.vertex_count(), set.triangle_count())
            == (library::RECORDS, library::VERTICES, library::TRIANGLES),
        "the library's counts differ from the seed's"
    );
    let bytes = collisionset::encode(&set)?;
    ensure!(
        bytes.len() as u64 == library::BYTES,
        "the library is {} bytes, the seed's is {}",
        bytes.len(),
        library::BYTES
    );
    Ok(bytes)
}

/// One map's MCOL object, built by sylcol's MCOL builder on the map's grid
/// (bbox -half..half, the seed's cell size).
pub fn mcol_model(spec: &MapSpec) -> anyhow::Result<mcol::Mcol> {
    let mesh = maps::generate(spec);
    let options = McolBuildOptions {
        bbox: Some(([-spec.half; 3], [spec.half; 3])),
        cell: Some(spec.cell),
    };
    build_mcol(&mesh, &options).with_context(|| format!("map {:08X}", spec.id))
}

/// Every entry of `MiscBin.pak`: (key, bytes): the eleven maps under their
/// seed ids, each followed by its REGN ([`regions::MAP_NAMES`]), then the
/// library once under its first name.
pub fn payloads() -> anyhow::Result<Vec<(EntryKey, Vec<u8>)>> {
    let mut out = Vec::new();
    for spec in &MAPS {
        let model = mcol_model(spec)?;
        out.push((EntryKey::Hash(spec.id), mcol::encode(&model)?));
        let key = regions::regn_key(spec.id).context("a REGN key per map")?;
        out.push((key, regions::regn(&model)?));
    }
    out.push((
        EntryKey::Name(collisionset_names()[0].to_string()),
        collisionset()?,
    ));
    Ok(out)
}

/// Writes `Tables.pak` + `Tables.p00` into `dir`: the two string tables,
/// Z1-compressed, under their names.
pub fn write_tables(dir: &Path) -> anyhow::Result<()> {
    let mut writer = ArchiveWriter::create(&dir.join("Tables.pak"), WriteOptions::default());
    for (name, bytes) in tables::tables()? {
        writer.add(&EntryKey::Name(name.to_string()), &bytes, true)?;
    }
    writer.finish()?;
    Ok(())
}

/// Writes `MiscBin.pak` + `MiscBin.p00` into `dir`. Every entry is Z1
/// compressed. The library is stored once and the other seventeen names
/// point their index entries at the same bytes, unless `full_copies`, which
/// stores eighteen copies as the disc does (about 11 MB more).
pub fn write_archive(dir: &Path, full_copies: bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let pak = dir.join("MiscBin.pak");
    let mut writer = ArchiveWriter::create(&pak, WriteOptions::default());
    let mut library = None;
    for (key, bytes) in payloads()? {
        let entry = writer.add(&key, &bytes, true)?;
        if key == EntryKey::Name(collisionset_names()[0].to_string()) {
            library = Some((entry, bytes));
        }
    }
    let (first, bytes) = library.context("the library entry")?;
    if full_copies {
        for name in &collisionset_names()[1..] {
            writer.add(&EntryKey::Name(name.to_string()), &bytes, true)?;
        }
        writer.finish()?;
        return write_tables(dir);
    }
    write_tables(dir)?;
    let mut entries = writer.finish()?.entries;
    for name in &collisionset_names()[1..] {
        entries.push(IndexEntry {
            hash: EntryKey::Name(name.to_string()).hash(),
            ..first
        });
    }
    entries.sort_by_key(|e| e.hash);
    for (slot, e) in entries.iter_mut().enumerate() {
        e.slot = slot;
    }
    write_file(&pak, &Index::encode(&entries))
}

/// Writes through a temporary file in the same folder, then renames.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("xtask-tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot rename", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sylcol_format::ipfb::Archive;

    /// Regenerates every payload and compares it with the committed
    /// `samples/` archive: the generator is deterministic across runs and
    /// the committed files are current. Also checks the seed's figures.
    #[test]
    fn committed_samples_match_a_fresh_generation() {
        let pak = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/MiscBin.pak");
        let archive = Archive::open(&pak).unwrap();
        let fresh = payloads().unwrap();
        assert_eq!(fresh.len(), 23);
        for (key, bytes) in &fresh {
            let entry = archive
                .index
                .find(key.hash())
                .expect("entry in the archive");
            let stored = archive.read_entry(&archive.probe(entry).unwrap()).unwrap();
            assert!(
                stored == *bytes,
                "{} differs from a fresh generation",
                key.display()
            );
        }
        for (pair, spec) in fresh.chunks(2).zip(&MAPS) {
            let (key, bytes) = &pair[0];
            assert_eq!(*key, EntryKey::Hash(spec.id));
            let m = mcol::decode(bytes).unwrap();
            assert_eq!(
                (m.vertices.len(), m.triangles.len()),
                (spec.vertices, spec.triangles)
            );
            let dims = (2.0 * spec.half / spec.cell) as usize;
            assert_eq!(m.header.dims(), [dims; 3]);
            regions::tests::check_partner(&m, &pair[1].1);
        }
        let library = &fresh[22].1;
        assert_eq!(library.len() as u64, library::BYTES);
        let set = collisionset::decode(library).unwrap();
        assert_eq!(set.records.len(), library::RECORDS);
        assert_eq!(set.vertex_count(), library::VERTICES);
        assert_eq!(set.triangle_count(), library::TRIANGLES);
        let first = archive
            .index
            .find(EntryKey::Name(collisionset_names()[0].into()).hash());
        assert_eq!(collisionset_names().len(), 18);
        for name in collisionset_names() {
            let e = archive
                .index
                .find(EntryKey::Name(name.into()).hash())
                .expect(name);
            assert_eq!(e.location(), first.unwrap().location(), "{name}");
        }
        assert_eq!(archive.entries().len(), 40);
        let tables = Archive::open(&pak.with_file_name("Tables.pak")).unwrap();
        for (name, bytes) in tables::tables().unwrap() {
            let entry = tables
                .index
                .find(EntryKey::Name(name.into()).hash())
                .expect(name);
            let stored = tables.read_entry(&tables.probe(entry).unwrap()).unwrap();
            assert!(stored == bytes, "{name} differs from a fresh generation");
        }
    }
}
