//! Objects whose stored bytes are identical: the game's `MiscBin.pak`
//! names one CollisionSet eighteen times, and a report says so once
//! instead of eighteen times. Identity is by content (SHA-256 of the
//! object's bytes), never by name or size.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use sha2::{Digest, Sha256};

/// The SHA-256 of an object's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest32(pub [u8; 32]);

/// The objects of one report, grouped by identical content.
#[derive(Debug, Clone, Default)]
pub struct SharedContent {
    /// The group of each content seen, by its digest.
    by_digest: HashMap<[u8; 32], usize>,
    /// Each group's members, as indexes into the report's objects.
    groups: Vec<Vec<usize>>,
    /// The group of each object, by its index.
    group_of: Vec<usize>,
    /// Digests of objects held in an `Arc`, by that allocation: the
    /// index rows of an archive that point at one stored copy share its
    /// `Arc`, so its bytes are hashed once. A `Weak` keeps the allocation
    /// from being reused, so equal pointers are the same bytes.
    memo: Vec<(Weak<Vec<u8>>, Digest32)>,
}

/// Equal when the same objects share content (the digest memo is a
/// cache, not part of the value).
impl PartialEq for SharedContent {
    fn eq(&self, other: &Self) -> bool {
        self.groups == other.groups && self.group_of == other.group_of
    }
}

impl Eq for SharedContent {}

impl SharedContent {
    /// The digest content is known by.
    pub fn digest(bytes: &[u8]) -> Digest32 {
        Digest32(Sha256::digest(bytes).into())
    }

    /// The digest of `bytes` ([`SharedContent::digest`]), hashed once per
    /// `Arc` allocation while it lives.
    pub fn digest_of(&mut self, bytes: &(impl ObjectBytes + ?Sized)) -> Digest32 {
        let Some(arc) = bytes.shared() else {
            return SharedContent::digest(bytes.bytes());
        };
        let known = self
            .memo
            .iter()
            .find(|(w, _)| w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Arc::as_ptr(arc)));
        if let Some((_, digest)) = known {
            return *digest;
        }
        let digest = SharedContent::digest(arc);
        self.memo.retain(|(w, _)| w.strong_count() > 0);
        self.memo.push((Arc::downgrade(arc), digest));
        digest
    }

    /// The first object recorded with content `digest`, if any.
    pub fn first(&self, digest: &Digest32) -> Option<usize> {
        let group = *self.by_digest.get(&digest.0)?;
        self.groups[group].first().copied()
    }

    /// Records object `index` (the next one: indexes count up from 0)
    /// with content `digest`.
    pub fn add(&mut self, index: usize, digest: Digest32) {
        debug_assert_eq!(index, self.group_of.len());
        let next = self.groups.len();
        let group = *self.by_digest.entry(digest.0).or_insert(next);
        if group == next {
            self.groups.push(Vec::new());
        }
        self.groups[group].push(index);
        self.group_of.push(group);
    }

    /// The other objects with the same bytes as object `index`, in order.
    pub fn others(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let group = self
            .group_of
            .get(index)
            .map_or(&[][..], |&g| &self.groups[g]);
        group.iter().copied().filter(move |&i| i != index)
    }

    /// The members of every group of more than one object, each group in
    /// order, groups in the order of their first object.
    pub fn repeated(&self) -> impl Iterator<Item = &[usize]> {
        self.groups
            .iter()
            .filter(|g| g.len() > 1)
            .map(Vec::as_slice)
    }

    /// Whether object `index` repeats an earlier one's content.
    pub fn is_copy(&self, index: usize) -> bool {
        self.group_of
            .get(index)
            .is_some_and(|&g| self.groups[g].first() != Some(&index))
    }

    /// How many objects `index`'s content is shared by (1: its own).
    pub fn count(&self, index: usize) -> usize {
        self.group_of
            .get(index)
            .map_or(1, |&g| self.groups[g].len())
    }
}

/// An object's bytes as a report is given them: a slice, or an `Arc`
/// shared by every archive row that points at the same stored copy.
pub trait ObjectBytes {
    /// The bytes.
    fn bytes(&self) -> &[u8];
    /// The `Arc` holding them, when they are held in one.
    fn shared(&self) -> Option<&Arc<Vec<u8>>> {
        None
    }
}

impl ObjectBytes for [u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ObjectBytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ObjectBytes for Arc<Vec<u8>> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn shared(&self) -> Option<&Arc<Vec<u8>>> {
        Some(self)
    }
}

/// A report entry that names the other entries with its content.
pub trait SharesContent {
    /// The entry's `path`.
    fn entry_path(&self) -> &str;
    /// The `path`s of the other entries with the same bytes.
    fn shares_content_with(&mut self) -> &mut Vec<String>;
}

impl SharedContent {
    /// Records the entry `entry` with content `digest` as the next of
    /// `entries`: each earlier entry with the same bytes names it, and it
    /// names them.
    pub fn link<T: SharesContent>(&mut self, entries: &mut Vec<T>, mut entry: T, digest: Digest32) {
        let index = entries.len();
        self.add(index, digest);
        let path = entry.entry_path().to_string();
        for i in self.others(index) {
            entry
                .shares_content_with()
                .push(entries[i].entry_path().to_string());
            entries[i].shares_content_with().push(path.clone());
        }
        entries.push(entry);
    }
}

/// "18 entries share this content: A, B, …" (`names` in order, each an
/// archive entry's name without the archive before `+`).
pub fn sharing_line(names: &[&str]) -> String {
    let entry = |p: &str| p.rsplit_once('+').map_or(p, |(_, e)| e).to_string();
    let listed: Vec<String> = names.iter().map(|n| entry(n)).collect();
    format!(
        "{} entries share this content: {}",
        names.len(),
        sylcol_format::text::escape(&listed.join(", "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_bytes_in_order() {
        let mut s = SharedContent::default();
        for (i, bytes) in [&b"a"[..], b"b", b"a", b"a"].into_iter().enumerate() {
            let d = SharedContent::digest(bytes);
            assert_eq!(s.first(&d), [None, None, Some(0), Some(0)][i]);
            s.add(i, d);
        }
        assert_eq!(s.others(2).collect::<Vec<_>>(), vec![0, 3]);
        assert_eq!(s.others(1).count(), 0);
        assert!(s.is_copy(3) && !s.is_copy(0) && !s.is_copy(1));
        assert_eq!(s.repeated().collect::<Vec<_>>(), vec![&[0, 2, 3][..]]);
        assert_eq!(s.count(2), 3);
        assert_eq!(
            sharing_line(&["x.pak+A", "x.pak+B"]),
            "2 entries share this content: A, B"
        );
    }
}
