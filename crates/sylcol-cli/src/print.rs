//! Printing reports and errors: text for people, JSON for scripts (the
//! report types and their JSON live in `sylcol::report`).

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use sylcol::report::error::{ErrorDocument, ErrorKind, ErrorReport};
use sylcol_format::text::escape_lines;

use crate::Context;

/// Prints `report` as pretty JSON, or `text` (already newline-terminated)
/// with the control characters names may hold shown escaped (`\x1b`).
pub fn report<T: Serialize>(
    ctx: Context,
    report: &T,
    text: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if ctx.json {
        serde_json::to_writer_pretty(&mut out, report)?;
        writeln!(out)?;
    } else {
        let text = names_lines(ctx) + &text();
        out.write_all(escape_lines(&text).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// Where the entry names of each archive the command opened came from:
/// a line per archive (`names: 20 from samples/names.txt, 18 built-in`),
/// nothing when it opened none.
pub fn names_lines(ctx: Context) -> String {
    sylcol::report::name_sources::lines(&ctx.open.names_used())
}

/// An error as data: the typed errors in its chain give path, offset, kind;
/// the message is [`message`].
pub fn error_report(e: &anyhow::Error) -> ErrorReport {
    ErrorReport::from_chain(message(e), e.chain())
}

/// An error and its causes on one line, each said once: a cause whose text
/// the line already holds is left out (a library error that prints its own
/// source, as `#[error("...: {source}")]` does, would otherwise repeat the
/// OS error).
pub fn message(e: &anyhow::Error) -> String {
    sylcol::report::error::chain_message(e.chain())
}

/// Prints a fatal error: `sylcol: error: MESSAGE`, or with `--json` one
/// `{"error": {...}}` line.
pub fn error(e: &anyhow::Error, ctx: Context) {
    errors(&[error_report(e)], ctx);
}

/// Prints errors that did not stop the command, one a line, to standard
/// error (with `--json` as `{"error": {...}}` lines; the report on standard
/// output lists them too).
pub fn errors(list: &[ErrorReport], ctx: Context) {
    let mut err = std::io::stderr().lock();
    for e in list {
        let _ = if ctx.json {
            let doc = ErrorDocument { error: e.clone() };
            writeln!(err, "{}", serde_json::to_string(&doc).unwrap_or_default())
        } else {
            writeln!(err, "sylcol: error: {}", escape_lines(&e.message))
        };
    }
}

/// A command line clap refused: its own message (help and version are not
/// errors), or with `--json` anywhere on the line a `usage` error document.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind as Clap;
    let json = std::env::args().any(|a| a == "--json");
    if !json
        || matches!(
            e.kind(),
            Clap::DisplayHelp
                | Clap::DisplayVersion
                | Clap::DisplayHelpOnMissingArgumentOrSubcommand
        )
    {
        e.exit();
    }
    let doc = ErrorDocument {
        error: ErrorReport {
            message: clap_message(&e.render().to_string()),
            path: None,
            offset: None,
            kind: ErrorKind::Usage,
        },
    };
    eprintln!("{}", serde_json::to_string(&doc).unwrap_or_default());
    ExitCode::from(2)
}

/// The message of a rendered clap error on one line: its lines up to the
/// first blank one or the usage (so "the following required arguments
/// were not provided:" keeps the arguments listed under it).
fn clap_message(rendered: &str) -> String {
    let lines: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
        .collect();
    lines.join(" ").trim_start_matches("error: ").to_string()
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
