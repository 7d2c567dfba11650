//! HTTP/1.1 for the viewer, by hyper: requests read whole (within the
//! limits below), answered by [`api::handle`], keep-alive as the browser
//! asks. hyper does the protocol (keep-alive, chunked bodies,
//! `Expect: 100-continue`, HEAD without a body, HTTP/1.0); this module
//! only sets its limits and turns a request into [`api::handle`]'s
//! arguments and its [`Reply`] into a response.
//!
//! | limit | value |
//! |---|---|
//! | request line and headers | [`MAX_HEAD`] bytes, else 431 and close (hyper) |
//! | body | at most [`api::MAX_BODY`] bytes, else 413 and close |
//! | sending a request head | [`IDLE`], then the connection closes |
//! | stop flag | looked at every `poll`: idle connections close, answers under way finish |
//!
//! Every connection is a task of a small tokio runtime ([`crate::serve`]):
//! a browser opens six at once and keeps them open, and none waits for
//! another to close; the work of an answer (a query, an export) runs on
//! the runtime's blocking pool.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};

use crate::api::{self, Reply};
use crate::catalog::Catalog;

/// Most bytes of a request line and its headers.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send a request head.
pub const IDLE: Duration = Duration::from_secs(30);

/// hyper's settings for one connection: the limits above.
pub fn connection_builder() -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(IDLE)
        .max_buf_size(MAX_HEAD)
        .keep_alive(true);
    builder
}

/// Answers one request: its body read whole (at most [`api::MAX_BODY`]
/// bytes), then [`api::handle`] on the blocking pool.
pub async fn answer(
    catalog: Arc<Catalog>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = request.method().as_str().to_string();
    let target = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_string(),
        |p| p.as_str().to_string(),
    );
    if declared_length(&request).is_some_and(|n| n > api::MAX_BODY as u64) {
        return Ok(response(too_large(), true));
    }
    let body = match Limited::new(request.into_body(), api::MAX_BODY)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return Ok(response(too_large(), true));
        }
        // The client went away or sent a broken body: nobody reads an answer.
        Err(_) => {
            return Ok(response(
                Reply::error(400, "the body could not be read"),
                true,
            ));
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
