//! The house rule of `unsafe` (issue 34): it lives only in the kernels
//! (`src/kernels/`), the one module `lib.rs` allows it in; every other
//! module of the crate is held to none, a test rather than a convention.

use std::path::{Path, PathBuf};

/// The keyword, spelled so that this file does not hold it.
const KEYWORD: &str = concat!("un", "safe");

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the crate's sources")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
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
