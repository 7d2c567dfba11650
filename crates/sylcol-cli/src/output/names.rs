//! [`FileNames`]: the files one run writes names from data to, in one
//! output folder, so that two names never land in one file.
//!
//! Names are compared as the writer will write them ([`mapped`]): `\` read
//! as `/`, empty and `.` parts dropped, control characters mapped to
//! `%XX`, letter case ignored (as on a case-blind disk). So `esc\x1b.bin`
//! and `esc%1B.bin`, or `a\\b.bin` and `a\b.bin`, are one file. A name
//! whose file an earlier one took gets `~2`, `~3`... (before the
//! extension), skipping any file a name still to come would take.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::safe_components;

/// The files taken so far in one output folder, and by which name.
#[derive(Default)]
pub struct FileNames {
    /// Each file taken (its [`key`]) and the name that took it.
    taken: HashMap<String, String>,
    /// The files names still to come would take, kept free of suffixes.
    reserved: HashSet<String>,
}

/// The file a name was given.
#[derive(Debug, PartialEq, Eq)]
pub struct Claim {
    /// The file's path in the folder (`/`-separated, as written).
    pub file: String,
    /// The earlier name that took the file this name maps to (the file
    /// then has a `~N` suffix).
    pub taken_by: Option<String>,
}

impl FileNames {
    /// Files for `names` (then claimed in that order, each with `ext`): no
    /// suffix takes the file one of them maps to.
    pub fn reserving<'a>(names: impl IntoIterator<Item = &'a str>, ext: &str) -> FileNames {
        let reserved = names
            .into_iter()
            .map(|n| key(&format!("{}{ext}", mapped(n))))
            .collect();
        FileNames {
            taken: HashMap::new(),
            reserved,
        }
    }

    /// The file `name` + `ext` is written to: the name as the writer maps
    /// it or, when an earlier name took that file, with `~2`, `~3`...
    /// before `ext`. A name the writer will refuse (`..`, absolute) is
    /// kept as it is, for the writer to refuse.
    pub fn claim(&mut self, name: &str, ext: &str) -> Claim {
        let stem = mapped(name);
        let natural = format!("{stem}{ext}");
        let Some(first) = self.taken.get(&key(&natural)).cloned() else {
            self.taken.insert(key(&natural), name.to_string());
            return Claim {
                file: natural,
                taken_by: None,
            };
        };
        let file = (2..)
            .map(|n| format!("{stem}~{n}{ext}"))
            .find(|c| !self.reserved.contains(&key(c)) && !self.taken.contains_key(&key(c)))
            .expect("some suffix is free");
        self.taken.insert(key(&file), name.to_string());
        Claim {
            file,
            taken_by: Some(first),
        }
    }
}

/// `name` as the writer writes it (`/`-separated, controls as `%XX`); a
/// name it refuses, unchanged.
pub fn mapped(name: &str) -> String {
    match safe_components(name, Path::new("")) {
        Ok(parts) => parts.join("/"),
        Err(_) => name.to_string(),
    }
}

/// What makes two files one: letter case ignored.
fn key(file: &str) -> String {
    file.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str], ext: &str) -> Vec<String> {
        let mut taken = FileNames::reserving(names.iter().copied(), ext);
        names.iter().map(|n| taken.claim(n, ext).file).collect()
    }

    #[test]
    fn names_that_map_to_one_file_get_suffixes() {
        let names = [
            "esc\x1b.bin",
            "esc%1B.bin",
            "a\\\\b.bin",
            "a\\b.bin",
            "a\\.",
            "a\\",
        ];
        assert_eq!(
            files(&names, ""),
            [
                "esc%1B.bin",
                "esc%1B.bin~2",
                "a/b.bin",
                "a/b.bin~2",
                "a",
                "a~2"
            ]
        );
        assert_eq!(
            files(&["X.col", "x.COL"], ".obj"),
            ["X.col.obj", "x.COL~2.obj"]
        );
    }

    #[test]
    fn a_suffix_skips_a_name_still_to_come_and_says_who_took_the_file() {
        assert_eq!(files(&["n", "n", "n~2"], ""), ["n", "n~3", "n~2"]);
        let mut taken = FileNames::default();
        taken.claim("a\\b", "");
        let second = taken.claim("a/b", "");
        assert_eq!(second.file, "a/b~2");
        assert_eq!(second.taken_by.as_deref(), Some("a\\b"));
        assert_eq!(taken.claim("../x", "").file, "../x", "left to be refused");
    }
}
