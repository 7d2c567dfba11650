//! # sylcol-serve
//!
//! sylcol's viewer: a local HTTP/1.1 server ([`serve`], [`http`]: the
//! standard library's sockets, a thread per connection) with a JSON API over sylcol's
//! own export, query and verify code ([`api`]), the viewer page embedded
//! in the binary ([`assets`]), and the same page as one offline HTML file
//! ([`assets::standalone_html`]). The objects served are a [`Catalog`]
//! the caller fills; a request can name an object of it, never a path.
//! See `docs/viewer.md`.

pub mod api;
pub mod assets;
pub mod catalog;
pub mod http;

use std::io::ErrorKind;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use catalog::{Catalog, Object, Skipped, Source};

/// How often a waiting connection looks at the stop flag.
pub const POLL: Duration = Duration::from_millis(100);
/// How long the accept loop sleeps when no connection is waiting.
const ACCEPT_POLL: Duration = Duration::from_millis(10);

/// A server that could not start.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// Serves `catalog` on `addr` until `stop` is set (Ctrl-C), each
/// connection on its own thread ([`http`]). `ready` is told the bound
/// address (port 0 picks a free one) before the first connection is
/// accepted. Returns once every connection has closed, within [`POLL`]
/// of `stop`.
pub fn serve(
    catalog: &Catalog,
    addr: SocketAddr,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let listener =
        TcpListener::bind(addr).map_err(|e| StartError(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| StartError(format!("cannot listen on {addr}: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| StartError(format!("cannot listen on {addr}: {e}")))?;
    ready(bound);
    std::thread::scope(|threads| {
        while !stop.load(Ordering::SeqCst) {
            match listener.accept() {
                Ok((stream, _)) => {
                    // A connection no thread can be had for is dropped (closed).
                    let _ = std::thread::Builder::new()
                        .name("sylcol-serve connection".into())
                        .spawn_scoped(threads, || {
                            http::serve_connection(catalog, stream, stop, POLL)
                        });
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(ACCEPT_POLL),
                Err(e) if is_transient(&e) => {}
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    return Err(StartError(format!("accepting a connection: {e}")));
                }
            }
        }
        Ok(())
    })
}

/// An accept error that concerns one connection only.
fn is_transient(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::Interrupted | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}
