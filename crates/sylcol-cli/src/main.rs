//! `sylcol`: the command-line front of the sylcol libraries.
//!
//! This file only parses flags and dispatches; each command lives in
//! `cmd/<name>.rs`. Exit codes: 0 ok, 1 a check failed, 2 usage error or
//! unreadable / invalid input.

/// `println!` for human-readable text: control characters that names from
/// the data may hold are shown escaped (`\x1b`), line breaks kept
/// (`sylcol_format::text::escape_lines`). JSON is printed with `println!`.
macro_rules! say {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", sylcol_format::text::escape_lines(&format!($($arg)*)))
    };
}

/// `eprintln!` for human-readable messages, escaped as [`say!`] does.
macro_rules! note {
    ($($arg:tt)*) => {
        eprintln!("{}", sylcol_format::text::escape_lines(&format!($($arg)*)))
    };
}

mod cmd;
mod input;
mod output;
mod signals;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Collision data of Project Sylpheed: decode, verify, query, build, export.
#[derive(Parser)]
#[command(name = "sylcol", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise an MCOL, a CollisionSet, or every entry of an archive.
    Info(cmd::info::Args),
    /// Build game files (MCOL, CollisionSet) from OBJ / glTF / PLY meshes.
    Build(cmd::build::Args),
    /// Write a mesh out as Wavefront OBJ (or glTF).
    Export(cmd::export::Args),
    /// Decode then re-encode: byte-identical for every valid file.
    Rewrite(cmd::rewrite::Args),
    /// Analyse any POF0-relocated chunk, even one sylcol cannot decode.
    Probe(cmd::probe::Args),
    /// Check every invariant of the seeds, each beside its control.
    Verify(cmd::verify::Args),
    /// List, extract or build IPFB archives (`.pak` + `.pNN`).
    Pak(cmd::pak::Args),
    /// Collision queries (ray, segment, inside, sphere, closest, batch)
    /// through the map's own grid.
    Query(cmd::query::Args),
}

/// What a command reports back to `main`.
pub enum Outcome {
    /// Everything passed.
    Ok,
    /// The command ran, but a check failed (exit code 1).
    ChecksFailed,
}

fn main() -> ExitCode {
    restore_sigpipe();
    signals::clean_up_on_signals();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Build(a) => cmd::build::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Rewrite(a) => cmd::rewrite::run(a),
        Command::Probe(a) => cmd::probe::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Pak(a) => cmd::pak::run(a),
        Command::Query(a) => cmd::query::run(a),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::ChecksFailed) => ExitCode::from(1),
        Err(e) => {
            note!("sylcol: error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, each said once: a cause whose text
/// the line already holds is left out (a library error that prints its own
/// source, as `#[error("...: {source}")]` does, would otherwise repeat the
/// OS error). Every error a command reports goes through here.
pub fn message(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Output piped into `head` and closed early ends the process quietly, as
/// for any Unix filter, instead of panicking inside `println!`.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: resetting SIGPIPE to its default action before any thread
    // starts; no handler of ours depends on it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that prints its source and also returns it as `source()`.
    #[derive(Debug)]
    struct SaysItsSource(std::io::Error);

    impl std::fmt::Display for SaysItsSource {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "x.bin: cannot read: {}", self.0)
        }
    }

    impl std::error::Error for SaysItsSource {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_is_said_once() {
        let io = std::io::Error::other("disk on fire");
        let e = anyhow::Error::new(SaysItsSource(io)).context("entry a.bin");
        assert_eq!(format!("{e:#}").matches("disk on fire").count(), 2);
        assert_eq!(message(&e), "entry a.bin: x.bin: cannot read: disk on fire");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message(&plain), "outer: inner");
    }
}
