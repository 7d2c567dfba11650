//! `sylcol rewrite FILE -o OUT`: decode then encode. For every valid file
//! the output is byte-identical to the input; anything else is a defect
//! reported as a failed check (exit 1), with the first differing byte.

use std::path::PathBuf;

use anyhow::{Context, bail};
use sylcol_format::{Format, collisionset, mcol};

use crate::Outcome;
use crate::input::read_object;
use crate::output::write_atomic;

/// Arguments of `sylcol rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
    /// Where to write the re-encoded object.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let input = read_object(&args.file)?.whole("can rewrite")?;
    let encoded = match sylcol_format::detect(&input.bytes) {
        Format::Mcol => {
            let m = mcol::decode(&input.bytes)
                .with_context(|| format!("{}: invalid MCOL", input.name))?;
            mcol::encode(&m).with_context(|| format!("{}: cannot re-encode", input.name))?
        }
        Format::CollisionSet => {
            let set = collisionset::decode(&input.bytes)
                .with_context(|| format!("{}: invalid CollisionSet", input.name))?;
            collisionset::encode(&set)
                .with_context(|| format!("{}: cannot re-encode", input.name))?
        }
        Format::Unknown(_) => bail!("{}: not a format sylcol can rewrite", input.name),
    };
    write_atomic(&args.output, &encoded)?;
    report_identity(&input.name, &input.bytes, &encoded)
}

/// Says whether the re-encoded bytes equal the input; exit 1 when not.
pub fn report_identity(name: &str, original: &[u8], encoded: &[u8]) -> anyhow::Result<Outcome> {
    if original == encoded {
        note!(
            "{name}: rewritten, byte-identical ({} bytes)",
            encoded.len()
        );
        return Ok(Outcome::Ok);
    }
    let first = original
        .iter()
        .zip(encoded)
        .position(|(a, b)| a != b)
        .unwrap_or(original.len().min(encoded.len()));
    note!(
        "{name}: rewritten, but NOT byte-identical: first difference at byte {first:#x} ({} bytes in, {} out)",
        original.len(),
        encoded.len()
    );
    Ok(Outcome::ChecksFailed)
}
