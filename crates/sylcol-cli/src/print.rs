//! Printing reports and errors: text for people, JSON for scripts (the
//! report types and their JSON live in `sylcol::report`).

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use sylcol::report::error::{ErrorDocument, ErrorKind, ErrorReport};

use crate::Context;

/// Prints `report` as pretty JSON, or `text` (already newline-terminated).
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
        out.write_all(text().as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// An error as data: the typed errors in its chain give path, offset, kind.
pub fn error_report(e: &anyhow::Error) -> ErrorReport {
    ErrorReport::from_chain(format!("{e:#}"), e.chain())
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
            writeln!(err, "sylcol: error: {}", e.message)
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
    let message = e.render().to_string();
    let first = message
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ");
    let doc = ErrorDocument {
        error: ErrorReport {
            message: first.to_string(),
            path: None,
            offset: None,
            kind: ErrorKind::Usage,
        },
    };
    eprintln!("{}", serde_json::to_string(&doc).unwrap_or_default());
    ExitCode::from(2)
}
