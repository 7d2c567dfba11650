//! `sylcol completions SHELL` and `sylcol man`: the tool describing itself,
//! generated from the same clap definitions that parse its flags.

use std::io::Write;
use std::path::PathBuf;

use clap_complete::Shell;
use sylcol::report::error::{NotFound, UsageError};

use crate::Outcome;
use crate::output::{Dest, OutputDir, is_stdout};

/// The global flags (`--json`, `--names`), declared hidden on a command
/// they mean nothing to, so that its help and manual page do not list
/// them (clap does not copy a global flag onto a command that has its own
/// of the same name).
#[derive(clap::Args)]
pub struct NoGlobals {
    #[arg(long, hide = true)]
    json: bool,
    #[arg(long, hide = true, value_name = "FILE")]
    names: Option<PathBuf>,
}

/// Arguments of `sylcol completions`.
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
    #[command(flatten)]
    globals: NoGlobals,
}

/// Arguments of `sylcol man`.
#[derive(clap::Args)]
pub struct ManArgs {
    /// The command whose page to print (`info`, `pak list`); none: the
    /// page of `sylcol` itself.
    pub command: Vec<String>,
    /// Write every page into this folder instead, one per command
    /// (`sylcol.1`, `sylcol-info.1`, `sylcol-pak-list.1`, ...), ready for
    /// a `man1` directory.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        conflicts_with = "command"
    )]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    globals: NoGlobals,
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> anyhow::Result<Outcome> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, "sylcol", &mut out);
    out.flush()?;
    Ok(Outcome::Ok)
}

/// Prints one roff manual page (`sylcol man > sylcol.1`, `sylcol man
/// info`), or writes every page into a folder (`sylcol man -o DIR`).
pub fn man(args: ManArgs, command: clap::Command) -> anyhow::Result<Outcome> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    if let Some(dir) = &args.output {
        if is_stdout(dir) {
            anyhow::bail!(UsageError(
                "-o names a folder for the pages; without -o one page goes to standard output"
                    .into()
            ));
        }
        let out = OutputDir::create(dir)?;
        let mut written = Vec::new();
        write_pages(&command, &out, &mut written)?;
        note!("wrote {} manual pages to {}", written.len(), dir.display());
        return Ok(Outcome::Ok);
    }
    let mut page = &command;
    for name in &args.command {
        page = page.find_subcommand(name).ok_or_else(|| NotFound {
            path: args.command.join(" "),
            detail: format!("{} has no command {name:?}", page.get_name()),
        })?;
    }
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(page.clone()).render(&mut out)?;
    out.flush()?;
    Ok(Outcome::Ok)
}

/// Writes the page of `command` and of every command below it into `out`.
fn write_pages(
    command: &clap::Command,
    out: &OutputDir,
    written: &mut Vec<String>,
) -> anyhow::Result<()> {
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    let file = man.get_filename();
    Dest::from(out.place(&file)?).write(&page)?;
    written.push(file);
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, out, written)?;
    }
    Ok(())
}
