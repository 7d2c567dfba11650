//! `cargo xtask screenshots [--out DIR]`: regenerates the pictures in
//! `docs/img/` — builds `sylcol`, installs the web tests' npm packages
//! (`tests/web`, `npm ci`) when missing, and runs
//! `tests/web/screenshots.mjs` (headless Chromium, `/usr/bin/chromium`
//! or `$CHROMIUM`).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// Runs the three steps from the repository root `root`.
pub fn run(root: &Path, out: &Path) -> anyhow::Result<()> {
    step(
        Command::new("cargo")
            .args(["build", "-p", "sylcol-cli"])
            .current_dir(root),
        "cargo build -p sylcol-cli",
    )?;
    let web = root.join("tests/web");
    if !web.join("node_modules/playwright-core").is_dir() {
        step(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&web),
            "npm ci (tests/web)",
        )?;
    }
    step(
        Command::new("node")
            .arg(web.join("screenshots.mjs"))
            .arg(out)
            .env("SYLCOL_BIN", root.join("target/debug/sylcol"))
            .current_dir(root),
        "node tests/web/screenshots.mjs",
    )
}

fn step(cmd: &mut Command, what: &str) -> anyhow::Result<()> {
    let status = cmd.status().with_context(|| format!("cannot run {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
