//! `sylcol`: the command-line front of the sylcol libraries.
//!
//! This file only parses flags and dispatches; each command lives in
//! `cmd/<name>.rs`. Exit codes: 0 ok, 1 a check failed, 2 usage error or
//! unreadable / invalid input (see README "Exit codes").

#![forbid(unsafe_code)]

/// `eprintln!` for a human-readable note: control characters that names
/// from the data may hold are shown escaped (`\x1b`), line breaks kept
/// (`sylcol_format::text::escape_lines`, as `print` does for reports).
macro_rules! note {
    ($($arg:tt)*) => {
        eprintln!("{}", sylcol_format::text::escape_lines(&format!($($arg)*)))
    };
}

mod cmd;
mod input;
mod output;
mod print;
mod signals;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Collision data of Project Sylpheed: decode, verify, query, build, export.
#[derive(Parser)]
#[command(name = "sylcol", version, about, long_about = None)]
pub struct Cli {
    /// Print the report as JSON on standard output (errors as
    /// `{"error": {...}}` lines on standard error).
    #[arg(long, global = true)]
    json: bool,
    /// A name list for every archive opened (one name a line, `pak+inner`
    /// or bare; `#` comments), as `names harvest -o` writes it; a
    /// `names.txt` beside an archive is read too.
    #[arg(long, global = true, value_name = "FILE")]
    names: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise an object (MCOL, CollisionSet, REGN, IDXD / IXUD string
    /// table) or every entry of an archive.
    Info(cmd::info::Args),
    /// Build game files: an MCOL or a CollisionSet from OBJ / glTF / PLY
    /// meshes, an IDXD / IXUD string table from its text form.
    Build(cmd::build::Args),
    /// Write objects out: meshes as OBJ, glTF or PLY, REGN points as PLY
    /// or glTF, string tables as text; a whole archive as one glTF scene.
    Export(cmd::export::Args),
    /// Decode then re-encode: byte-identical for every valid file.
    Rewrite(cmd::rewrite::Args),
    /// Analyse any POF0-relocated chunk, even one sylcol cannot decode.
    Probe(cmd::probe::Args),
    /// Check every object against what is known about the format.
    ///
    /// The known facts are the invariants of the reverse engineers'
    /// write-ups: a map's triangles, spheres and grid lists agree, a
    /// library's parts are closed meshes with the names the game uses,
    /// REGN objects and string tables hold what sylcol assumes. Each is
    /// tested beside a control that shows the test could fail.
    ///
    /// Prints one line per object, marked `ok`, `info` (every check holds;
    /// a figure given for information is not 100 %) or `FAILED`, with each
    /// failing check in full. Objects with identical bytes (the game's
    /// archive stores one library under 18 names) are reported once,
    /// naming the entries that share them.
    ///
    /// Exit code: 0 every check holds, 1 a check failed, 2 an input could
    /// not be read (or a usage error).
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
    /// The viewer and its JSON API on a local web server (127.0.0.1).
    Serve(cmd::serve::Args),
    /// The viewer as one self-contained HTML file that opens offline.
    View(cmd::view::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(cmd::meta::CompletionsArgs),
    /// Print a manual page (roff), or write one per command (`-o DIR`).
    Man(cmd::meta::ManArgs),
}

/// What a command reports back to `main`.
pub enum Outcome {
    /// Everything passed.
    Ok,
    /// The command ran, but a check failed (exit code 1).
    ChecksFailed,
    /// Some inputs could not be read or decoded; they were reported and
    /// the rest processed (exit code 2).
    InputErrors,
}

/// What every command is told besides its own arguments.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// `--json`: reports as JSON, errors as JSON lines on standard error.
    pub json: bool,
    /// How FILE arguments are opened (with the `--names` list).
    pub open: &'a input::Opener,
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return print::usage_error(e),
    };
    // `serve` handles Ctrl-C itself (it stops its server and exits 0).
    if !matches!(cli.command, Command::Serve(_)) {
        signals::clean_up_on_signals();
    }
    sylcol_format::budget::set_headroom(headroom(&cli.command));
    let open = input::Opener::new(sylcol::source::NameList::with_file(cli.names));
    let ctx = Context {
        json: cli.json,
        open: &open,
    };
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a, ctx),
        Command::Build(a) => cmd::build::run(a, ctx),
        Command::Export(a) => cmd::export::run(a, ctx),
        Command::Rewrite(a) => cmd::rewrite::run(a, ctx),
        Command::Probe(a) => cmd::probe::run(a, ctx),
        Command::Verify(a) => cmd::verify::run(a, ctx),
        Command::Pak(a) => cmd::pak::run(a, ctx),
        Command::Query(a) => cmd::query::run(a, ctx),
        Command::Serve(a) => cmd::serve::run(a, ctx),
        Command::View(a) => cmd::view::run(a, ctx),
        Command::Completions(a) => cmd::meta::completions(a, Cli::command()),
        Command::Man(a) => cmd::meta::man(a, Cli::command()),
        Command::Names(a) => cmd::names::run(a, ctx),
        Command::Pairs(a) => cmd::pairs::run(a, ctx),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::ChecksFailed) => ExitCode::from(1),
        Ok(Outcome::InputErrors) => ExitCode::from(2),
        Err(e) => {
            print::error(&e, ctx);
            ExitCode::from(2)
        }
    }
}

/// How many times an object's size a command's work on it may take
/// beyond the object's own bytes. Measured on a 60.7 MiB library
/// (benches/memory.md, "Per object byte"): `view` 16.1 (every scene and
/// report in one page), `export` 6.7 (a glTF scene), `serve` 6.0 (a
/// scene and a verify report), `rewrite` 2.0, `info`, `verify` and
/// `query` 1.0. That much is reserved, then freed, before an object is
/// read, so that running short is an error naming the object rather
/// than an abort half-way.
fn headroom(command: &Command) -> u64 {
    match command {
        Command::View(_) => 18,
        Command::Serve(_) | Command::Export(_) => 8,
        _ => sylcol_format::budget::HEADROOM,
    }
}

/// Output piped into `head` and closed early ends the process quietly, as
/// for any Unix filter, instead of panicking inside `println!`: SIGPIPE
/// takes its default action (ending the process) again, which Rust's
/// start-up set aside.
fn restore_sigpipe() {
    #[cfg(unix)]
    {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let always = Arc::new(AtomicBool::new(true));
        let _ =
            signal_hook::flag::register_conditional_default(signal_hook::consts::SIGPIPE, always);
    }
}
