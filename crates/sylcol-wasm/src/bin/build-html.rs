//! `cargo html [--out FILE]`: builds `target/sylcol.html`, the viewer as
//! one self-contained page whose back end is this crate compiled to
//! WebAssembly (docs/viewer.md). Three steps, from the workspace root:
//!
//! 1. `cargo build -p sylcol-wasm --lib --target wasm32-unknown-unknown
//!    --profile wasm` (the target is added with rustup when missing);
//! 2. `wasm-bindgen --target no-modules` at exactly the crate's
//!    wasm-bindgen version, installed under `target/tools` with
//!    `cargo install` when the one on `PATH` is missing or another;
//! 3. the page: `sylcol_serve::assets::wasm_html` inlines the module
//!    (base64), its glue, three.js and the viewer's scripts; written to a
//!    temporary file, then renamed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The wasm-bindgen version `Cargo.toml` pins (`=0.2.130`): the CLI must
/// be the same, or the glue and the module disagree.
const BINDGEN: &str = "0.2.130";
const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    if let Err(e) = run() {
        eprintln!("build-html: error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let out = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => target.join("sylcol.html"),
        [flag, file] if flag == "--out" => PathBuf::from(file),
        _ => return Err("usage: cargo html [--out FILE]".into()),
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    if installed.is_ok_and(|o| !String::from_utf8_lossy(&o.stdout).contains(TARGET)) {
        step(Command::new("rustup").args(["target", "add", TARGET]))?;
    }
    step(
        Command::new(&cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "sylcol-wasm",
                "--lib",
                "--target",
                TARGET,
                "--profile",
                "wasm",
            ])
            .current_dir(&root),
    )?;
    let module = target.join(TARGET).join("wasm/sylcol_wasm.wasm");
    let bindgen = wasm_bindgen(&cargo, &target)?;
    let glue_dir = target.join("sylcol-html");
    step(
        Command::new(&bindgen)
            .args(["--target", "no-modules", "--no-typescript", "--out-dir"])
            .arg(&glue_dir)
            .arg(&module),
    )?;
    let read = |p: PathBuf| std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()));
    let glue =
        String::from_utf8(read(glue_dir.join("sylcol_wasm.js"))?).map_err(|e| e.to_string())?;
    let wasm = read(glue_dir.join("sylcol_wasm_bg.wasm"))?;
    let page = sylcol_serve::assets::wasm_html(&glue, &wasm);
    let tmp = out.with_extension("html.tmp");
    std::fs::write(&tmp, &page).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "wrote {} ({} bytes; the module {} bytes)",
        out.display(),
        page.len(),
        wasm.len()
    );
    Ok(())
}

/// The wasm-bindgen CLI at [`BINDGEN`]: under `target/tools`, else on
/// `PATH`, else installed under `target/tools` from crates.io.
fn wasm_bindgen(cargo: &str, target: &Path) -> Result<PathBuf, String> {
    let tools = target.join("tools");
    let local = tools.join("bin/wasm-bindgen");
    for candidate in [local.clone(), PathBuf::from("wasm-bindgen")] {
        let version = Command::new(&candidate).arg("--version").output();
        if version.is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout).trim() == format!("wasm-bindgen {BINDGEN}")
        }) {
            return Ok(candidate);
        }
    }
    eprintln!(
        "build-html: installing wasm-bindgen-cli {BINDGEN} under {}",
        tools.display()
    );
    step(
        Command::new(cargo)
            .args(["install", "--quiet", "wasm-bindgen-cli", "--version"])
            .arg(format!("={BINDGEN}"))
            .arg("--root")
            .arg(&tools),
    )?;
    Ok(local)
}

fn step(cmd: &mut Command) -> Result<(), String> {
    let what = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}
