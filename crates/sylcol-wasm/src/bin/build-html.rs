//! `cargo html [--out FILE]`: builds `target/sylcol.html`, the viewer as
//! one self-contained page whose back end is this crate compiled to
//! WebAssembly (docs/viewer.md). Three steps, from the workspace root:
//!
//! 1. `cargo build -p sylcol-wasm --lib --target wasm32-unknown-unknown
//!    --profile wasm` (the target is added with rustup when missing);
//! 2. the module's JavaScript glue, byte for byte as `wasm-bindgen
//!    --target no-modules --no-typescript --omit-default-module-path`
//!    writes it (the page always hands the glue its module: no default
//!    path to fetch), by wasm-bindgen's own library
//!    (`wasm-bindgen-cli-support`, feature `html`), pinned in
//!    `Cargo.toml` to exactly the crate's wasm-bindgen version: nothing
//!    to install, and a third of the build of the `wasm-bindgen-cli`
//!    package (its test runner and servers left out);
//! 3. the page: `sylcol_serve::assets::wasm_html` inlines the module
//!    (base64), its glue, three.js and the viewer's scripts; written to a
//!    temporary file, then renamed.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

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
    let glue_dir = target.join("sylcol-html");
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&module)
        .no_modules(true)
        .and_then(|b| {
            b.typescript(false)
                .omit_default_module_path(true)
                .generate(&glue_dir)
        })
        .map_err(|e| format!("wasm-bindgen on {}: {e:#}", module.display()))?;
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
