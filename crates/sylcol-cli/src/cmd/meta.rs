//! `sylcol completions SHELL` and `sylcol man`: the tool describing itself,
//! generated from the same clap definitions that parse its flags.

use std::io::Write;

use clap_complete::Shell;

use crate::Outcome;

/// Arguments of `sylcol completions`.
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> anyhow::Result<Outcome> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, "sylcol", &mut out);
    out.flush()?;
    Ok(Outcome::Ok)
}

/// Prints the roff manual page (`sylcol man > sylcol.1`).
pub fn man(command: clap::Command) -> anyhow::Result<Outcome> {
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(command).render(&mut out)?;
    out.flush()?;
    Ok(Outcome::Ok)
}
