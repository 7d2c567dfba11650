//! # sylcol-serve
//!
//! sylcol's viewer: a local HTTP/1.1 server ([`serve`]; hyper on a small
//! tokio runtime, [`http`]) with a JSON API over sylcol's own export,
//! query and verify code ([`api`]), the viewer page embedded in the
//! binary ([`assets`]), and the same page as one offline HTML file
//! ([`assets::standalone_html`]). The objects served are a [`Catalog`]
//! the caller fills; a request can name an object of it, never a path.
//! See `docs/viewer.md`.
//!
//! Feature `server` (default) is the HTTP server; without it the crate
//! builds for `wasm32-unknown-unknown`, where `sylcol-wasm` answers the
//! same API ([`api::handle`]) inside the page.

#![forbid(unsafe_code)]

pub mod api;
pub mod assets;
pub mod catalog;
#[cfg(feature = "server")]
pub mod http;

#[cfg(feature = "server")]
use std::net::SocketAddr;
#[cfg(feature = "server")]
use std::sync::Arc;
#[cfg(feature = "server")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(feature = "server")]
use std::time::Duration;

#[cfg(feature = "server")]
use hyper_util::rt::TokioIo;
#[cfg(feature = "server")]
use hyper_util::server::graceful::GracefulShutdown;
#[cfg(feature = "server")]
use tokio::sync::Semaphore;

pub use catalog::{Catalog, Object, Skipped, Source};
#[cfg(feature = "server")]
pub use http::Limits;
#[cfg(feature = "server")]
use http::deadline::WriteDeadline;

/// How often the server looks at the stop flag.
#[cfg(feature = "server")]
pub const POLL: Duration = Duration::from_millis(100);
/// How long answers under way may take to finish once the server stops.
#[cfg(feature = "server")]
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
/// ([`http`]) within `limits` ([`http::Limits::default`] for the
/// defaults). `ready` is told the bound address (port 0 picks a free
/// one) before the first connection is accepted. At
/// [`Limits::connections`](http::Limits) open connections no other is
/// accepted until one closes (the next waits in the OS's queue). Once
/// `stop` is seen (within [`POLL`]), idle connections close at once and
/// answers under way get a few seconds to finish; then `serve` returns.
#[cfg(feature = "server")]
pub fn serve(
    catalog: Arc<Catalog>,
    addr: SocketAddr,
    limits: Limits,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let cannot = |e: std::io::Error| StartError(format!("cannot listen on {addr}: {e}"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(limits.answers.max(1))
        .thread_name("sylcol-serve")
        .enable_all()
        .build()
        .map_err(|e| StartError(format!("cannot start the server: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(cannot)?;
        ready(listener.local_addr().map_err(cannot)?);
        let graceful = GracefulShutdown::new();
        let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
        let stopped = async {
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(POLL).await;
            }
        };
        tokio::pin!(stopped);
        loop {
            let slot = tokio::select! {
                slot = Arc::clone(&slots).acquire_owned() => slot,
                () = &mut stopped => break,
            };
            // Only a closed semaphore fails, and this one is never closed.
            let Ok(slot) = slot else { break };
            let stream = tokio::select! {
                stream = accept(&listener, limits.accept_backoff) => stream?,
                () = &mut stopped => break,
            };
            let _ = stream.set_nodelay(true);
            let Ok(local) = stream.local_addr() else {
                continue;
            };
            let catalog = Arc::clone(&catalog);
            let hosts = http::Hosts {
                listen: addr.ip(),
                local,
            };
            let service = hyper::service::service_fn(move |request| {
                http::answer(Arc::clone(&catalog), hosts, limits.body, request)
            });
            let io = TokioIo::new(WriteDeadline::new(stream, limits.write));
            let connection = http::connection_builder(&limits).serve_connection(io, service);
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                // A connection that fails concerns its client only. Its
                // slot is free once it is closed.
                let _ = connection.await;
                drop(slot);
            });
        }
        drop(listener);
        let _ = tokio::time::timeout(FINISH, graceful.shutdown()).await;
        Ok(())
    })
}

/// The next connection. An error that concerns one connection only is
/// passed over; when the process or the system is out of file
/// descriptors (or buffers), the next try waits `backoff`, where trying
/// again at once would spin until one is freed; anything else ends the
/// server.
#[cfg(feature = "server")]
async fn accept(
    listener: &tokio::net::TcpListener,
    backoff: Duration,
) -> Result<tokio::net::TcpStream, StartError> {
    use std::io::ErrorKind;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => return Ok(stream),
            Err(e) if out_of_resources(&e) => tokio::time::sleep(backoff).await,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::Interrupted
                        | ErrorKind::ConnectionAborted
                        | ErrorKind::ConnectionReset
                ) => {}
            Err(e) => return Err(StartError(format!("accepting a connection: {e}"))),
        }
    }
}

/// Whether an accept failed for want of a file descriptor or memory
/// (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`).
#[cfg(all(feature = "server", unix))]
fn out_of_resources(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Whether an accept failed for want of a socket handle or memory
/// (`WSAEMFILE`, `WSAENOBUFS`).
#[cfg(all(feature = "server", not(unix)))]
fn out_of_resources(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::OutOfMemory || matches!(e.raw_os_error(), Some(10024 | 10055))
}
