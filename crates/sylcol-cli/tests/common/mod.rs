//! Helpers shared by the binary tests of `build`, `export` and the mod
//! workflow.
#![allow(dead_code)]

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// The real `sylcol` binary.
pub fn sylcol() -> Command {
    Command::cargo_bin("sylcol").unwrap()
}

/// A path as a command-line argument.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `sylcol ARGS`, requires success, returns stdout.
pub fn run(args: &[&str]) -> Vec<u8> {
    let out = sylcol().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "sylcol {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `sylcol ARGS` (which must print JSON) and parses stdout.
pub fn run_json(args: &[&str]) -> Value {
    serde_json::from_slice(&run(args)).unwrap()
}
