//! `sylcol serve PATH... [--port N] [--host ADDR]`: the viewer and its
//! JSON API on a local web server, until Ctrl-C.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::bail;
use sylcol_serve::{Catalog, Limits, Source, serve};

use crate::input::{Item, Opener, inputs};
use crate::{Context, Outcome};

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
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    let catalog = catalog(&args.paths, ctx.open)?;
    // Set by Ctrl-C (SIGINT) or SIGTERM; the server loop stops on it.
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(&stop);
    let addr = SocketAddr::new(args.host, args.port);
    if !args.host.to_canonical().is_loopback() {
        note!("{}", network_warning(args.host));
    }
    let count = catalog.objects().len();
    let limits = Limits::default();
    serve(Arc::new(catalog), addr, limits, &stop, |bound| {
        println!("serving {count} objects at http://{bound}/ (Ctrl-C stops)");
        use std::io::Write;
        let _ = std::io::stdout().flush();
    })?;
    eprintln!("stopped");
    Ok(Outcome::Ok)
}

/// What `--host` with an address other than the loopback opens up.
fn network_warning(host: IpAddr) -> String {
    let reach = if host.is_unspecified() {
        "from every network this machine is on".to_string()
    } else {
        format!("by anyone who can reach {host}")
    };
    format!(
        "sylcol: warning: serving on {host}: the viewer, its API and every object given are reachable {reach}; \
         the default --host 127.0.0.1 serves this machine only"
    )
}

/// The objects of `paths` (every entry of an archive), each decoded as it
/// is read, so that no more is held than the catalog keeps (rows of an
/// archive that point at one stored stream share one read of it).
/// Entries of other formats, too large, or past what a catalog holds are
/// skipped with a note; a path that cannot be read at all is an error.
pub fn catalog(paths: &[String], open: &Opener) -> anyhow::Result<Catalog> {
    let mut catalog = Catalog::default();
    for path in paths {
        for item in inputs(open, path)? {
            match item.map(Item::whole) {
                Ok(Ok(input)) => {
                    if let Err(s) = catalog.add(Source::new(input.name, input.bytes)) {
                        note!("{}: skipped, {}", s.path, s.reason);
                    }
                }
                Ok(Err(e)) => note!("{}: skipped, {}", e.path, e.error),
                Err(e) => note!("sylcol: skipped: {}", crate::print::message(&e)),
            }
        }
    }
    let names = sylcol::report::name_sources::lines(&open.names_used());
    if !names.is_empty() {
        note!("{}", names.trim_end());
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
