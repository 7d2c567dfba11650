//! `cargo xtask`: repository chores.
//!
//! `cargo xtask samples [--out DIR] [--full-copies]` regenerates the
//! synthetic sample corpus (`samples/MiscBin.pak` + `MiscBin.p00`,
//! `samples/Tables.pak` + `Tables.p00`); see
//! `samples/README.md`. The output is the same, byte for byte, on every run.
//!
//! `cargo xtask screenshots [--out DIR]` regenerates the viewer pictures in
//! `docs/img/` (see `docs/viewer.md`).
//!
//! `cargo xtask cycles [--report] [CRATE_DIR...]` lists the import cycles
//! among each crate's modules (default: `crates/sylcol` and `crates/sylcol-query`) and fails
//! when there is one (`--report`: lists only).

#![forbid(unsafe_code)]

mod cycles;
mod library;
mod maps;
mod names;
mod nonmanifold;
mod regions;
mod samples;
mod screenshots;
mod shapes;
mod tables;

use std::path::PathBuf;

use anyhow::bail;

const USAGE: &str = "usage: cargo xtask samples [--out DIR] [--full-copies] | cargo xtask screenshots [--out DIR] | cargo xtask cycles [--report] [CRATE_DIR...]";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("samples") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let mut out = root.parent().unwrap_or(root).join("samples");
            let mut full_copies = false;
            let mut rest = args[1..].iter();
            while let Some(a) = rest.next() {
                match a.as_str() {
                    "--out" => match rest.next() {
                        Some(dir) => out = PathBuf::from(dir),
                        None => bail!("--out needs a folder\n{USAGE}"),
                    },
                    "--full-copies" => full_copies = true,
                    other => bail!("unknown argument {other:?}\n{USAGE}"),
                }
            }
            samples::write_archive(&out, full_copies)?;
            eprintln!(
                "wrote {0}/MiscBin.pak, MiscBin.p00, {0}/Tables.pak and Tables.p00",
                out.display()
            );
            Ok(())
        }
        Some("screenshots") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let root = root.parent().unwrap_or(root);
            let out = match args.get(1..).unwrap_or_default() {
                [] => root.join("docs/img"),
                [flag, dir] if flag == "--out" => PathBuf::from(dir),
                _ => bail!("{USAGE}"),
            };
            screenshots::run(root, &out)
        }
        Some("cycles") => {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            cycles::run(root.parent().unwrap_or(root), &args[1..])
        }
        _ => bail!("{USAGE}"),
    }
}
