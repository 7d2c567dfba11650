//! `sylcol pak list | extract | build | replace | recover`: IPFB archives
//! (`.pak` + `.pNN`). `list` is here; `extract.rs`, `build.rs`,
//! `replace.rs` and `recover.rs` hold the others; `manifest.rs` the file
//! extract writes and build follows, `layout.rs` the plans that rewrite
//! an archive around its layout.

mod build;
pub(crate) mod extract;
mod layout;
mod manifest;
mod recover;
mod replace;

use sylcol::report::ErrorReport;
use sylcol::report::pak::PakList;

use crate::{Context, Outcome, print};

use self::build::BuildArgs;
use self::extract::ExtractArgs;
use self::recover::RecoverArgs;
use self::replace::ReplaceArgs;

/// Arguments of `sylcol pak`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// One row per entry: hash, name, part, offset, sizes, compression, magic.
    List(ListArgs),
    /// Write entries (all, or those named) into a folder.
    Extract(ExtractArgs),
    /// Build an archive from a folder: the inverse of extract (with the
    /// manifest extract writes, byte for byte what was extracted).
    Build(BuildArgs),
    /// Give entries new content; every other stored byte stays where it was.
    Replace(ReplaceArgs),
    /// Finish or undo an archive build that was killed half-way.
    Recover(RecoverArgs),
}

#[derive(clap::Args)]
struct ListArgs {
    /// The archive index (`NAME.pak`, parts `NAME.p00`... beside it).
    archive: String,
    /// Also inflate every entry and check its size and Adler-32 values.
    #[arg(long)]
    verify: bool,
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    match args.action {
        Action::List(a) => list(a, ctx),
        Action::Extract(a) => extract::extract(a, ctx),
        Action::Build(a) => build::build(a, ctx),
        Action::Replace(a) => replace::replace(a, ctx),
        Action::Recover(a) => recover::recover_folder(a, ctx),
    }
}

/// Exit 2 when an entry or the index could not be read, else 0.
fn outcome(errors: &[ErrorReport], ctx: Context) -> Outcome {
    print::errors(errors, ctx);
    if errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::InputErrors
    }
}

fn list(a: ListArgs, ctx: Context) -> anyhow::Result<Outcome> {
    let archive = ctx.open.archive(&a.archive)?;
    let mut report = PakList::new(&a.archive, &archive, a.verify);
    report.names = ctx.open.names_used();
    print::report(ctx, &report, || report.text())?;
    Ok(outcome(&report.all_errors(), ctx))
}
