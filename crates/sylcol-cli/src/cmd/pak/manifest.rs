//! The manifest `pak extract` writes into its folder (`.sylcol-pak.json`)
//! and `pak build` follows: what a folder of files cannot say about the
//! archive they came from (index order, entries sharing one stored copy,
//! parts, the header words and the bytes after the entry table), and each
//! entry's hashes, so that a build reuses the stored bytes of every entry
//! whose content did not change and the unchanged folder builds back to
//! the same bytes.
//!
//! The manifest is input like any other: a build checks its syntax (a
//! refusal names the byte offset), every field (a refusal names the
//! field, `entries[3].offset`), a checksum over the whole (so an edited
//! or damaged manifest is refused, never half-followed), and the stored
//! bytes of every entry it keeps against their SHA-256 in the archive it
//! names.

use std::path::Path;

use anyhow::bail;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sylcol_format::ipfb::{MAX_PARTS, OFFSET_MASK};

/// The manifest's file name in the extracted folder.
pub(crate) use sylcol_atomic::MANIFEST_FILE as MANIFEST_NAME;
/// The value of its `format` field.
pub(crate) const FORMAT: &str = "sylcol-pak-manifest 1";
/// A manifest larger than this is refused unread.
const MAX_BYTES: u64 = 64 << 20;

/// The manifest (see the module docs; field docs in docs/formats/ipfb.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// The archive extracted (its index, an absolute path): the build
    /// reuses its stored bytes.
    pub archive: String,
    /// The index header words and what follows the entry table.
    pub index: IndexRecord,
    /// Each part file found, with its length.
    pub parts: Vec<PartRecord>,
    /// Every entry, in index order.
    pub entries: Vec<EntryRecord>,
    /// SHA-256 (hex) of the manifest serialised with this field empty.
    pub checksum: String,
}

/// The index header words and the bytes after the entry table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexRecord {
    /// Entry count as the header declares it.
    pub declared_count: u32,
    /// Alignment word.
    pub alignment: u32,
    /// Part size word.
    pub part_size: u32,
    /// The bytes after the listed entries, hex.
    pub tail: String,
}

/// One part file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartRecord {
    /// Part number.
    pub part: u8,
    /// Its length in bytes.
    pub length: u64,
}

/// One index entry and the file it was extracted to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntryRecord {
    /// The file, relative to the folder, `/`-separated.
    pub file: String,
    /// The hash, eight hex digits.
    pub hash: String,
    /// Part number.
    pub part: u8,
    /// Offset in the part.
    pub offset: u32,
    /// Stored size.
    pub stored_size: u32,
    /// Whether the stored bytes are Z1.
    pub compressed: bool,
    /// Uncompressed size.
    pub size: u64,
    /// SHA-256 (hex) of the stored bytes.
    pub stored_sha256: String,
    /// SHA-256 (hex) of the content (the file extracted).
    pub sha256: String,
}

impl EntryRecord {
    /// The hash as a number (checked by [`Manifest::read`]).
    pub fn hash_value(&self) -> u32 {
        u32::from_str_radix(&self.hash, 16).unwrap_or(0)
    }
}

/// SHA-256 of `bytes`, lower-case hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

impl Manifest {
    /// The manifest with its checksum set.
    pub fn sealed(mut self) -> Manifest {
        self.checksum = self.digest();
        self
    }

    /// The manifest's text: pretty JSON, newline-terminated.
    pub fn text(&self) -> String {
        let mut t = serde_json::to_string_pretty(self).unwrap_or_default();
        t.push('\n');
        t
    }

    fn digest(&self) -> String {
        let mut bare = self.clone();
        bare.checksum.clear();
        sha256_hex(&serde_json::to_vec(&bare).unwrap_or_default())
    }

    /// The bytes after the index's entry table (checked hex).
    pub fn tail(&self) -> Vec<u8> {
        unhex(&self.index.tail).unwrap_or_default()
    }

    /// The length recorded for part `n`.
    pub fn part_length(&self, n: u8) -> Option<u64> {
        self.parts.iter().find(|p| p.part == n).map(|p| p.length)
    }

    /// Reads and checks the manifest at `path`: syntax (refusals name the
    /// byte offset), every field (refusals name it), the checksum.
    pub fn read(path: &Path) -> anyhow::Result<Manifest> {
        let refuse = |what: String| {
            anyhow::anyhow!(
                "{}: {what}; the manifest is not followed (remove it, or build with --fresh, to build the folder as a new archive)",
                path.display()
            )
        };
        let len = std::fs::metadata(path)
            .map_err(|e| refuse(format!("cannot read: {e}")))?
            .len();
        if len > MAX_BYTES {
            return Err(refuse(format!(
                "{len} bytes, more than a manifest may hold ({MAX_BYTES})"
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| refuse(format!("cannot read: {e}")))?;
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
            let at = byte_offset(&bytes, e.line(), e.column());
            refuse(format!(
                "at byte {at} (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        manifest
            .check()
            .map_err(|(field, why)| refuse(format!("{field}: {why}")))?;
        if manifest.checksum != manifest.digest() {
            return Err(refuse(
                "checksum: does not match the contents (the manifest was edited or damaged)".into(),
            ));
        }
        Ok(manifest)
    }

    /// Every field in range: `Err((field, why))` for the first that is not.
    fn check(&self) -> Result<(), (String, String)> {
        let field = |f: &str, why: String| Err((f.to_string(), why));
        if self.format != FORMAT {
            return field(
                "format",
                format!("is {:?}, expected {FORMAT:?}", self.format),
            );
        }
        if unhex(&self.index.tail).is_none() {
            return field("index.tail", "is not hex".into());
        }
        for (i, p) in self.parts.iter().enumerate() {
            if usize::from(p.part) >= MAX_PARTS {
                return field(
                    &format!("parts[{i}].part"),
                    format!("{} is past 15", p.part),
                );
            }
            if self.parts[..i].iter().any(|q| q.part == p.part) {
                return field(
                    &format!("parts[{i}].part"),
                    format!("part {} is listed twice", p.part),
                );
            }
        }
        let mut files = std::collections::HashSet::new();
        for (i, e) in self.entries.iter().enumerate() {
            let f = |name: &str| format!("entries[{i}].{name}");
            let is_hex =
                |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
            if !is_hex(&e.hash, 8) || e.hash_value() == 0 {
                return field(
                    &f("hash"),
                    format!("{:?} is not a nonzero hash of 8 hex digits", e.hash),
                );
            }
            for (name, value) in [("stored_sha256", &e.stored_sha256), ("sha256", &e.sha256)] {
                if !is_hex(value, 64) {
                    return field(
                        &f(name),
                        format!("{value:?} is not a SHA-256 of 64 hex digits"),
                    );
                }
            }
            if let Err(why) = check_file_name(&e.file) {
                return field(&f("file"), format!("{:?} {why}", e.file));
            }
            if !files.insert(e.file.to_lowercase()) {
                return field(
                    &f("file"),
                    format!("{:?} is named by an earlier entry too", e.file),
                );
            }
            if e.offset > OFFSET_MASK {
                return field(
                    &f("offset"),
                    format!("{:#x} is past a part's 28-bit offsets", e.offset),
                );
            }
            let Some(length) = self.part_length(e.part) else {
                return field(&f("part"), format!("part {} is not in parts", e.part));
            };
            let end = u64::from(e.offset) + u64::from(e.stored_size);
            if end > length {
                return field(
                    &f("stored_size"),
                    format!("the entry ends at {end:#x}, past its part's {length} bytes"),
                );
            }
        }
        let declared = u64::from(self.index.declared_count);
        if (self.entries.len() as u64) > declared {
            return field(
                "index.declared_count",
                format!(
                    "{declared} is fewer than the {} entries",
                    self.entries.len()
                ),
            );
        }
        Ok(())
    }
}

/// A file name the build may read: relative, `/`-separated, no empty,
/// `.` or `..` part, not the manifest itself.
fn check_file_name(name: &str) -> Result<(), &'static str> {
    if name.starts_with('/') || name.contains('\\') || name.contains(':') {
        return Err("is not a relative /-separated path");
    }
    if name
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Err("has an empty, . or .. part");
    }
    if name == MANIFEST_NAME {
        return Err("is the manifest itself");
    }
    Ok(())
}

/// The byte offset of 1-based `line`, `column` in `bytes`.
fn byte_offset(bytes: &[u8], line: usize, column: usize) -> usize {
    let start: usize = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(line.saturating_sub(1))
        .map(<[u8]>::len)
        .sum();
    (start + column.saturating_sub(1)).min(bytes.len())
}

/// A writer that hashes what passes through it.
pub(crate) struct Hashing<'a> {
    pub inner: &'a mut dyn std::io::Write,
    pub hasher: Sha256,
}

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// SHA-256 (hex) of what `r` yields.
pub(crate) fn sha256_of(r: &mut dyn std::io::Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(r, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

/// Refuses a manifest that is not a regular file (a link, a folder).
pub(crate) fn refuse_odd(path: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => bail!(
            "{}: is not a regular file; a manifest is one (remove it, or build with --fresh)",
            path.display()
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_names() {
        assert_eq!(byte_offset(b"ab\ncd\n", 2, 2), 4);
        assert!(check_file_name("a/b.bin").is_ok());
        for bad in ["/a", "a/../b", "a\\b", "a//b", MANIFEST_NAME, "c:x"] {
            assert!(check_file_name(bad).is_err(), "{bad}");
        }
        assert_eq!(unhex("0aff"), Some(vec![10, 255]));
        assert_eq!(unhex("0"), None);
    }
}
