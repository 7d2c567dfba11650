//! The README's shell blocks, run as written: every ```sh block, in a
//! scratch folder holding a copy of `samples/` and `tests/fixtures/`, with
//! `sylcol` on PATH as the binary under test. `cargo run --release --bin
//! sylcol --` (the top block) is that same binary; `cargo test` lines are
//! skipped (this test is part of that command), and so is a block preceded
//! by `<!-- needs: game disc -->` or by `<!-- run by .ci/run -->` (a step
//! CI runs itself, such as building the Python wheel).

use std::path::Path;
use std::process::Command;

const README: &str = include_str!("../../../../README.md");

/// The ```sh blocks of `text`, each with whether a marker skips it.
fn sh_blocks(text: &str) -> Vec<(String, bool)> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().peekable();
    let mut previous = "";
    while let Some(line) = lines.next() {
        if line.trim() == "```sh" {
            let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
            let skipped = previous.contains("<!-- needs: game disc -->")
                || previous.contains("<!-- run by .ci/run -->");
            blocks.push((body.join("\n"), skipped));
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    blocks
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn readme_blocks_are_found() {
    let blocks = sh_blocks(README);
    assert!(blocks.len() >= 4, "{blocks:?}");
    assert!(blocks[0].0.contains("cargo test --workspace"));
    let top: Vec<&str> = blocks[0].0.lines().collect();
    assert_eq!(top.len(), 2, "exactly two set-up commands at the top");
}

#[test]
fn every_readme_shell_block_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let scratch = tempfile::tempdir().unwrap();
    copy_dir(&root.join("samples"), &scratch.path().join("samples"));
    copy_dir(
        &root.join("tests/fixtures"),
        &scratch.path().join("tests/fixtures"),
    );
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sylcol"), bin.join("sylcol")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (block, needs_disc) in sh_blocks(README) {
        if needs_disc {
            continue;
        }
        let script: Vec<String> = block
            .lines()
            .filter(|l| !l.trim_start().starts_with("cargo test"))
            .map(|l| l.replace("cargo run --release --bin sylcol --", "sylcol"))
            .collect();
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script.join("\n")])
            .current_dir(scratch.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README block failed:\n{block}\n--- stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 4);
    // What the blocks say they make is there.
    let s = scratch.path();
    // 11 maps (.obj), 11 REGN vertex sections (.ply), one library folder.
    assert_eq!(std::fs::read_dir(s.join("meshes")).unwrap().count(), 23);
    assert!(s.join("mod/MiscBin.pak").is_file() && s.join("mod/MiscBin.p00").is_file());
    // `sylcol man -o man1`: a page per command.
    for page in ["sylcol.1", "sylcol-info.1", "sylcol-pak-list.1"] {
        assert!(
            s.join("man1").join(page).metadata().unwrap().len() > 500,
            "{page}"
        );
    }
    // And nothing they make would be left untracked in a clone: every
    // file or folder they add is one the repository's .gitignore covers.
    let ignored = root_ignores(&root.join(".gitignore"));
    let copied = ["samples", "tests", "bin"];
    let mut made = Vec::new();
    for entry in std::fs::read_dir(s).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !copied.contains(&name.as_str()) {
            made.push(name);
        }
    }
    for entry in std::fs::read_dir(s.join("samples")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !root.join("samples").join(&name).exists() {
            made.push(format!("samples/{name}"));
        }
    }
    assert!(made.len() >= 4, "{made:?}");
    let untracked: Vec<&String> = made.iter().filter(|m| !ignored.contains(*m)).collect();
    assert!(
        untracked.is_empty(),
        "README blocks leave files .gitignore does not cover: {untracked:?}"
    );
}

/// The root-anchored entries of a `.gitignore` (`/meshes` is `meshes`).
fn root_ignores(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('/'))
        .map(|l| l.trim_end_matches('/').to_string())
        .collect()
}
