//! The house rule of `unsafe` (issue 34): it lives only in the kernels
//! (`src/kernels/`), the one module `lib.rs` allows it in; every other
//! module of the crate is held to none, and so is every other crate of
//! the workspace (each root `#![forbid(unsafe_code)]`, no exception): a
//! test rather than a convention.

use std::path::{Path, PathBuf};

/// The keyword, spelled so that this file does not hold it.
const KEYWORD: &str = concat!("un", "safe");

/// Every `.rs` file under `dir` (none under a `target` folder).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the crate's sources")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `line` without its comment (from `//` on).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// Whether `code` holds `word` as a word of its own (`unsafe_code`, in
/// a lint's name, is not the keyword).
fn has_word(code: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The places of `src` (relative paths and 1-based lines) that break the
/// rule: the keyword outside `kernels/`, or a lint allowing it anywhere
/// but on `lib.rs`'s `mod kernels`.
fn offences(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let allow = format!("allow({KEYWORD}_code)");
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(src).expect("under src").to_path_buf();
        let in_kernels = rel.starts_with("kernels");
        let text = std::fs::read_to_string(&path).expect("a source file");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let c = code(line);
            if !in_kernels && has_word(c, KEYWORD) {
                out.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
            }
            if c.contains(&allow) {
                let next = lines[i + 1..]
                    .iter()
                    .map(|l| code(l).trim())
                    .find(|l| !l.is_empty());
                if rel != Path::new("lib.rs") || next != Some("mod kernels;") {
                    out.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
                }
            }
        }
    }
    out
}

/// The places of the crate in `dir` (relative paths and 1-based lines)
/// that break the rule for every crate but this one: the keyword in any
/// source file (`src/`, tests, benches, examples, `build.rs`), a lint
/// that allows or merely denies it, and a crate root (`src/lib.rs`,
/// `src/main.rs`, `src/bin/*.rs`) without `#![forbid(unsafe_code)]`.
fn offences_outside(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    let forbid = format!("#![forbid({KEYWORD}_code)]");
    let loose = [
        format!("allow({KEYWORD}_code)"),
        format!("deny({KEYWORD}_code)"),
        format!("warn({KEYWORD}_code)"),
    ];
    let mut out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(dir)
            .expect("under the crate")
            .to_path_buf();
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (i, line) in text.lines().enumerate() {
            let c = code(line);
            if has_word(c, KEYWORD) || loose.iter().any(|l| c.contains(l.as_str())) {
                out.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
            }
        }
        let root = rel == Path::new("src/lib.rs")
            || rel == Path::new("src/main.rs")
            || rel.parent() == Some(Path::new("src/bin"));
        if root && !text.lines().any(|l| code(l).trim() == forbid) {
            out.push(format!("{}: no {forbid}", rel.display()));
        }
    }
    out
}

/// Every crate of the workspace but this one: the folders of
/// `crates/`, `xtask` and the fuzzers' own workspace `fuzz`.
fn other_crates() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("the workspace's crates")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.extend([root.join("xtask"), root.join("fuzz")]);
    dirs.sort();
    dirs.retain(|d| d.file_name() != here.file_name());
    dirs
}

#[test]
fn unsafe_code_lives_only_in_the_kernels() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = offences(&src);
    assert!(
        found.is_empty(),
        "{KEYWORD} outside src/kernels/ (move it into a kernel with a safe signature):\n{}",
        found.join("\n")
    );
    // The scan sees what it looks for.
    assert!(has_word(&format!("let x = {KEYWORD} {{ f() }};"), KEYWORD));
    assert!(!has_word(&format!("#![deny({KEYWORD}_code)]"), KEYWORD));
    assert!(!has_word(
        code(&format!("let x = 1; // {KEYWORD}")),
        KEYWORD
    ));
}

#[test]
fn no_other_crate_has_unsafe_code() {
    let crates = other_crates();
    let names: Vec<String> = crates
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The scan sees the crates it is meant to (a renamed folder would
    // drop out silently otherwise).
    for name in ["sylcol", "sylcol-bench", "sylcol-cli", "sylcol-py", "xtask"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let found: Vec<String> = crates
        .iter()
        .zip(&names)
        .flat_map(|(dir, name)| {
            (offences_outside(dir).into_iter()).map(move |o| format!("{name}/{o}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{KEYWORD} outside crates/sylcol-query (every other crate is \
         #![forbid({KEYWORD}_code)], with no exception):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_of_another_crate_finds_each_breach() {
    let dir = std::env::temp_dir().join(format!("sylcol-house-rules-crate-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src/bin")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::create_dir_all(dir.join("target")).unwrap();
    let forbid = format!("#![forbid({KEYWORD}_code)]\n");
    let block = format!("fn f() {{ {KEYWORD} {{ g() }} }}\n");
    std::fs::write(
        dir.join("src/lib.rs"),
        format!("{forbid}// {KEYWORD} in a comment\n"),
    )
    .unwrap();
    std::fs::write(dir.join("src/bin/tool.rs"), "fn main() {}\n").unwrap();
    std::fs::write(
        dir.join("src/ffi.rs"),
        format!("#[allow({KEYWORD}_code)]\n{block}"),
    )
    .unwrap();
    std::fs::write(dir.join("tests/t.rs"), &block).unwrap();
    std::fs::write(dir.join("target/built.rs"), &block).unwrap();
    let found = offences_outside(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found[0].starts_with("src/bin/tool.rs: no #![forbid"),
        "{found:?}"
    );
    assert!(found[1].starts_with("src/ffi.rs:1:"), "{found:?}");
    assert!(found[2].starts_with("src/ffi.rs:2:"), "{found:?}");
    assert!(found[3].starts_with("tests/t.rs:1:"), "{found:?}");
}

#[test]
fn the_scan_finds_a_block_outside_the_kernels() {
    let dir = std::env::temp_dir().join(format!("sylcol-house-rules-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::create_dir_all(dir.join("index")).unwrap();
    let block = format!("fn f() {{ {KEYWORD} {{ g() }} }}\n");
    std::fs::write(dir.join("kernels/k.rs"), &block).unwrap();
    std::fs::write(dir.join("index/i.rs"), &block).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        format!("#[allow({KEYWORD}_code)]\nmod kernels;\n#[allow({KEYWORD}_code)]\nmod index;\n"),
    )
    .unwrap();
    let found = offences(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("index/i.rs:1:"), "{found:?}");
    assert!(found[1].starts_with("lib.rs:3:"), "{found:?}");
}
