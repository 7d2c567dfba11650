//! `sylcol serve PATH... [--port N] [--host ADDR]`: the viewer and its
//! JSON API on a local web server, until Ctrl-C.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::bail;
use sylcol_serve::{Catalog, Source, serve};

use crate::Outcome;
use crate::input::{Item, inputs};

/// Arguments of `sylcol serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Files, whole archives, or `ARCHIVE.pak+INNER` entries to show.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// The port (0 picks a free one; the address is printed).
    #[arg(long, default_value_t = 8737)]
    pub port: u16,
    /// The address to listen on. Only this machine can reach the
    /// default; another address serves the files to the network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub host: IpAddr,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let catalog = catalog(&args.paths)?;
    // Set by Ctrl-C (SIGINT) or SIGTERM; the server loop stops on it.
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(&stop);
    let addr = SocketAddr::new(args.host, args.port);
    let count = catalog.objects().len();
    serve(Arc::new(catalog), addr, &stop, |bound| {
        println!("serving {count} objects at http://{bound}/ (Ctrl-C stops)");
        use std::io::Write;
        let _ = std::io::stdout().flush();
    })?;
    eprintln!("stopped");
    Ok(Outcome::Ok)
}

/// The objects of `paths` (every entry of an archive). Entries of other formats are skipped; a path
/// that cannot be read at all is an error.
pub fn catalog(paths: &[String]) -> anyhow::Result<Catalog> {
    let mut sources = Vec::new();
    for path in paths {
        for item in inputs(path)? {
            match item.map(Item::whole) {
                Ok(Ok(input)) => sources.push(Source {
                    path: input.name,
                    bytes: input.bytes,
                }),
                Ok(Err(e)) => note!("{}: skipped, {}", e.path, e.error),
                Err(e) => note!("sylcol: skipped: {}", crate::print::message(&e)),
            }
        }
    }
    let (catalog, skipped) = Catalog::new(sources);
    for s in &skipped {
        note!("{}: skipped, {}", s.path, s.reason);
    }
    if catalog.objects().is_empty() {
        bail!(
            "nothing to show: no MCOL map or CollisionSet among {}",
            paths.join(", ")
        );
    }
    Ok(catalog)
}

/// SIGINT and SIGTERM set `stop` (the server loop then stops).
#[cfg(unix)]
fn stop_on_signals(stop: &Arc<AtomicBool>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(stop)) {
            note!(
                "sylcol: warning: cannot watch for signal {signal} ({e}); stop the server otherwise"
            );
        }
    }
}

#[cfg(not(unix))]
fn stop_on_signals(_: &Arc<AtomicBool>) {}
