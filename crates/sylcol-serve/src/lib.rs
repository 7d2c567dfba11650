//! # sylcol-serve
//!
//! sylcol's viewer: a local HTTP/1.1 server ([`serve`]; hyper on a small
//! tokio runtime, [`http`]) with a JSON API over sylcol's own export,
//! query and verify code ([`api`]), the viewer page embedded in the
//! binary ([`assets`]), and the same page as one offline HTML file
//! ([`assets::standalone_html`]). The objects served are a [`Catalog`]
//! the caller fills; a request can name an object of it, never a path.
//! See `docs/viewer.md`.

#![forbid(unsafe_code)]

pub mod api;
pub mod assets;
pub mod catalog;
pub mod http;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;

pub use catalog::{Catalog, Object, Skipped, Source};

/// How often the server looks at the stop flag.
pub const POLL: Duration = Duration::from_millis(100);
/// How long answers under way may take to finish once the server stops.
const FINISH: Duration = Duration::from_secs(5);

/// A server that could not start.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// Serves `catalog` on `addr` until `stop` is set (Ctrl-C): every
/// connection a task of a two-thread tokio runtime, answered by hyper
/// ([`http`]). `ready` is told the bound address (port 0 picks a free
/// one) before the first connection is accepted. Once `stop` is seen
/// (within [`POLL`]), idle connections close at once and answers under
/// way get a few seconds to finish; then `serve` returns.
pub fn serve(
    catalog: Arc<Catalog>,
    addr: SocketAddr,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let cannot = |e: std::io::Error| StartError(format!("cannot listen on {addr}: {e}"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sylcol-serve")
        .enable_all()
        .build()
        .map_err(|e| StartError(format!("cannot start the server: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(cannot)?;
        ready(listener.local_addr().map_err(cannot)?);
        let graceful = GracefulShutdown::new();
        let mut tick = tokio::time::interval(POLL);
        while !stop.load(Ordering::SeqCst) {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let _ = stream.set_nodelay(true);
                        let catalog = Arc::clone(&catalog);
                        let Ok(local) = stream.local_addr() else {
                            continue;
                        };
                        let hosts = http::Hosts { listen: addr.ip(), local };
                        let service = hyper::service::service_fn(move |request| {
                            http::answer(Arc::clone(&catalog), hosts, request)
                        });
                        let connection = http::connection_builder()
                            .serve_connection(TokioIo::new(stream), service);
                        let connection = graceful.watch(connection);
                        // A connection that fails concerns its client only.
                        tokio::spawn(async move {
                            let _ = connection.await;
                        });
                    }
                    Err(e) if is_transient(&e) => {}
                    Err(e) => return Err(StartError(format!("accepting a connection: {e}"))),
                },
                _ = tick.tick() => {}
            }
        }
        drop(listener);
        let _ = tokio::time::timeout(FINISH, graceful.shutdown()).await;
        Ok(())
    })
}

/// An accept error that concerns one connection only (or passes: too
/// many open files is worth a retry on the next tick).
fn is_transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::Interrupted | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) || e.raw_os_error() == Some(24)
}
