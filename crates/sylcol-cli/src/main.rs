//! `sylcol`: the command-line front of the sylcol libraries.
//!
//! This file only parses flags and dispatches; each command lives in
//! `cmd/<name>.rs`. Exit codes: 0 ok, 1 a check failed, 2 usage error or
//! unreadable / invalid input.

mod cmd;
mod input;
mod output;

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
    /// Recover entry names: harvest them from the disc's strings, or test
    /// a naming pattern.
    Names(cmd::names::Args),
    /// Pair each REGN with its MCOL (by name, else by an identical grid).
    Pairs(cmd::pairs::Args),
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
        Command::Names(a) => cmd::names::run(a),
        Command::Pairs(a) => cmd::pairs::run(a),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::ChecksFailed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("sylcol: error: {e:#}");
            ExitCode::from(2)
        }
    }
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
