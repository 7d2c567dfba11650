//! HTTP/1.1 for the viewer, by hyper: requests read whole (within the
//! limits below), answered by [`api::handle`], keep-alive as the browser
//! asks. hyper does the protocol (keep-alive, chunked bodies,
//! `Expect: 100-continue`, HTTP/1.0, and a HEAD answer's body left
//! unsent: [`api::handle`] answers HEAD as GET, and hyper sends the
//! headers only, `Content-Length` included); this module sets its
//! limits, refuses requests that are not for this server or come from
//! another site ([`guard`]), and turns a request into [`api::handle`]'s
//! arguments and its [`Reply`] into a response.
//!
//! | limit | default | else |
//! |---|---|---|
//! | request line and headers | [`MAX_HEAD`] (16 KiB) | 431 and close (hyper) |
//! | sending a request head, or idle between requests | [`HEAD_DEADLINE`] (30 s) | the connection closes (hyper) |
//! | sending a body, from the end of its head | [`BODY_DEADLINE`] (10 s) | 408 and close |
//! | body | [`api::MAX_BODY`] (1 MiB) | 413 and close |
//! | taking an answer, from its first byte | [`WRITE_DEADLINE`] (60 s) | the connection closes ([`deadline`]) |
//! | connections open at once | [`MAX_CONNECTIONS`] (32) | the next waits in the OS's queue until one closes |
//! | answers worked out at once | [`MAX_ANSWERS`] (4) | the next waits its turn |
//! | accepting when out of file descriptors | again after [`ACCEPT_BACKOFF`] (100 ms) | |
//! | `Host` header | one, naming this server ([`Hosts`]) | 400 for two, 403 |
//! | `Origin` of a request other than GET and HEAD | none, or this server's page | 403 |
//! | `Content-Type` of a request other than GET and HEAD | `application/json` | 415 |
//! | stop flag | looked at every `poll` | idle connections close, answers under way finish |
//!
//! The deadlines and caps are [`Limits`], which [`crate::serve`] takes;
//! the defaults are the constants. Every connection is a task of a small
//! tokio runtime ([`crate::serve`]): a browser opens six at once and
//! keeps them open, and none waits for another to close; the work of an
//! answer (a query, an export) runs on the runtime's blocking pool.

pub mod deadline;
pub mod guard;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};

use crate::api::{self, Reply};
use crate::catalog::Catalog;
pub use guard::Hosts;

/// Most bytes of a request line and its headers.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send a request head, and how long a
/// kept-alive connection may stay idle before the next: hyper's own
/// default, and long enough for a browser, which opens a new connection
/// when an idle one has closed.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(30);
/// How long a client may take to send a body once its head is in: the
/// largest body ([`api::MAX_BODY`], 1 MiB) at 100 KiB/s. The page's own
/// bodies are a few hundred bytes and go at once.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);
/// How long a client may take to read an answer once its first byte is
/// written: the largest answer, the samples' 158-part library as glTF
/// (1.8 MB), at 30 KB/s. On this machine it takes milliseconds.
pub const WRITE_DEADLINE: Duration = Duration::from_secs(60);
/// Most connections open at once. A browser opens at most six to one
/// server, across all its tabs; 32 leaves room for a few browsers and
/// scripts at once, and bounds what slow clients can make the server
/// hold: at most 32 bodies of 1 MiB, or 32 answers waiting to be read.
pub const MAX_CONNECTIONS: usize = 32;
/// Most answers worked out at once (threads of the blocking pool): the
/// work is CPU-bound and this machine has two cores, so more would only
/// hold more half-built answers in memory at once.
pub const MAX_ANSWERS: usize = 4;
/// How long to wait before accepting again when the process or the
/// system has no file descriptor (or buffer) left for a connection:
/// trying again at once would spin a core until one is freed.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The server's deadlines and caps; [`Limits::default`] is the
/// constants above. Tests build shorter ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Sending a request head, or idle between requests ([`HEAD_DEADLINE`]).
    pub head: Duration,
    /// Sending a body once its head is in ([`BODY_DEADLINE`]).
    pub body: Duration,
    /// Taking an answer once its first byte is written ([`WRITE_DEADLINE`]).
    pub write: Duration,
    /// Connections open at once ([`MAX_CONNECTIONS`]).
    pub connections: usize,
    /// Answers worked out at once ([`MAX_ANSWERS`]).
    pub answers: usize,
    /// The pause before accepting again when out of file descriptors ([`ACCEPT_BACKOFF`]).
    pub accept_backoff: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head: HEAD_DEADLINE,
            body: BODY_DEADLINE,
            write: WRITE_DEADLINE,
            connections: MAX_CONNECTIONS,
            answers: MAX_ANSWERS,
            accept_backoff: ACCEPT_BACKOFF,
        }
    }
}

/// hyper's settings for one connection: the limits above.
pub fn connection_builder(limits: &Limits) -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.head)
        .max_buf_size(MAX_HEAD)
        .keep_alive(true);
    builder
}

/// Answers one request: refused unless [`guard::refusal`] lets it by;
/// its body read whole (at most [`api::MAX_BODY`] bytes, within
/// `body_deadline`), then [`api::handle`] on the blocking pool.
pub async fn answer(
    catalog: Arc<Catalog>,
    hosts: Hosts,
    body_deadline: Duration,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if let Some(refused) = guard::refusal(&hosts, request.method(), request.headers()) {
        // The body, if any, is never read: the connection closes.
        return Ok(response(refused, true));
    }
    let method = request.method().as_str().to_string();
    let target = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_string(),
        |p| p.as_str().to_string(),
    );
    if declared_length(&request).is_some_and(|n| n > api::MAX_BODY as u64) {
        return Ok(response(too_large(), true));
    }
    let read = Limited::new(request.into_body(), api::MAX_BODY).collect();
    let body = match tokio::time::timeout(body_deadline, read).await {
        Ok(Ok(body)) => body.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return Ok(response(too_large(), true));
        }
        // The client went away or sent a broken body: nobody reads an answer.
        Ok(Err(_)) => {
            return Ok(response(
                Reply::error(400, "the body could not be read"),
                true,
            ));
        }
        // What came of the body so far is dropped here.
        Err(_) => {
            let message = format!("the body was not sent within {body_deadline:?}");
            return Ok(response(Reply::error(408, message), true));
        }
    };
    let reply =
        tokio::task::spawn_blocking(move || api::handle(&catalog, &method, &target, &body)).await;
    Ok(match reply {
        Ok(reply) => response(reply, false),
        Err(_) => response(Reply::error(500, "the answer failed"), true),
    })
}

/// The `Content-Length` a request declares, when it declares one.
fn declared_length(request: &Request<Incoming>) -> Option<u64> {
    request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn too_large() -> Reply {
    Reply::error(413, format!("the body is over {} bytes", api::MAX_BODY))
}

/// `reply` as a response; `close` asks hyper to close the connection after it.
fn response(reply: Reply, close: bool) -> Response<Full<Bytes>> {
    // The body moves into the response: an export can be megabytes.
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(reply.content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    if close {
        headers.insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_becomes_a_response_with_its_headers() {
        let r = response(Reply::error(404, "no such object"), false);
        assert_eq!(r.status(), 404);
        assert_eq!(r.headers()[CONTENT_TYPE], "application/json");
        assert_eq!(r.headers()[CACHE_CONTROL], "no-store");
        assert!(!r.headers().contains_key(hyper::header::CONNECTION));
        let r = response(too_large(), true);
        assert_eq!(
            (r.status().as_u16(), &r.headers()["connection"]),
            (413, &"close".parse::<HeaderValue>().unwrap())
        );
    }
}
