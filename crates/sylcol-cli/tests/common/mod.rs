//! Helpers shared by the binary tests.
#![allow(dead_code)]

pub mod handmade;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// The real `sylcol` binary.
pub fn sylcol() -> Command {
    Command::cargo_bin("sylcol").unwrap()
}

/// The path of a hand-made MCOL fixture (`tests/fixtures/NAME`, written by
/// an independent script).
pub fn fixture(name: &str) -> String {
    format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
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
