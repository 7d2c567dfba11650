//! # sylcol-serve
//!
//! sylcol's viewer: a local HTTP server ([`serve`], on
//! [tiny_http](https://docs.rs/tiny_http)) with a JSON API over sylcol's
//! own export, query and verify code ([`api`]), the viewer page embedded
//! in the binary ([`assets`]), and the same page as one offline HTML file
//! ([`assets::standalone_html`]). The objects served are a [`Catalog`]
//! the caller fills; a request can name an object of it, never a path.
//! See `docs/viewer.md`.

pub mod api;
pub mod assets;
pub mod catalog;

use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use catalog::{Catalog, Object, Skipped, Source};

/// How often the loop looks at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// A server that could not start.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// Serves `catalog` on `addr` until `stop` is set (Ctrl-C), answering one
/// request at a time. `ready` is told the bound address (port 0 picks a
/// free one) before the first request is read.
pub fn serve(
    catalog: &Catalog,
    addr: SocketAddr,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let server = tiny_http::Server::http(addr)
        .map_err(|e| StartError(format!("cannot listen on {addr}: {e}")))?;
    let bound = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| StartError("not listening on an IP address".into()))?;
    ready(bound);
    while !stop.load(Ordering::SeqCst) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => respond(catalog, request),
            Ok(None) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(StartError(format!("accepting a connection: {e}"))),
        }
    }
    Ok(())
}

/// Reads one request's body (at most [`api::MAX_BODY`] + 1 bytes), answers
/// it, and sends the reply; a client gone away is not an error.
fn respond(catalog: &Catalog, mut request: tiny_http::Request) {
    let mut body = Vec::new();
    let limit = api::MAX_BODY as u64 + 1;
    let reply = match request.as_reader().take(limit).read_to_end(&mut body) {
        Ok(_) => api::handle(catalog, request.method().as_str(), request.url(), &body),
        Err(e) => api::Reply::error(400, format!("cannot read the body: {e}")),
    };
    let header = |k: &str, v: &str| tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).ok();
    let mut response = tiny_http::Response::from_data(reply.body).with_status_code(reply.status);
    for h in [
        header("Content-Type", reply.content_type),
        header("Cache-Control", "no-store"),
        header("X-Content-Type-Options", "nosniff"),
    ]
    .into_iter()
    .flatten()
    {
        response.add_header(h);
    }
    let _ = request.respond(response);
}
