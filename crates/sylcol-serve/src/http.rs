//! HTTP/1.1 for the viewer, by hyper: requests read whole (within the
//! limits below), answered by [`api::handle`], keep-alive as the browser
//! asks. hyper does the protocol (keep-alive, chunked bodies,
//! `Expect: 100-continue`, HTTP/1.0, and a HEAD answer's body left
//! unsent: [`api::handle`] answers HEAD as GET, and hyper sends the
//! headers only, `Content-Length` included); this module sets its
//! limits, refuses a request whose `Host` is not this server
//! ([`Hosts`]), and turns a request into [`api::handle`]'s arguments
//! and its [`Reply`] into a response.
//!
//! | limit | value |
//! |---|---|
//! | request line and headers | [`MAX_HEAD`] bytes, else 431 and close (hyper) |
//! | body | at most [`api::MAX_BODY`] bytes, else 413 and close |
//! | `Host` header | the loopback or the address served ([`Hosts`]), else 403 |
//! | sending a request head | [`IDLE`], then the connection closes |
//! | stop flag | looked at every `poll`: idle connections close, answers under way finish |
//!
//! Every connection is a task of a small tokio runtime ([`crate::serve`]):
//! a browser opens six at once and keeps them open, and none waits for
//! another to close; the work of an answer (a query, an export) runs on
//! the runtime's blocking pool.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderValue};
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

/// The `Host` header values a connection is answered for: `localhost`,
/// a loopback address (`127.0.0.1`, `[::1]`), the address the server
/// was told to listen on (`--host`) and the address the connection
/// reached, each with the server's port or without one. Anything else
/// (a name a DNS-rebinding page made point here, `evil.example`) is
/// refused, so a web page from elsewhere cannot read the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hosts {
    /// The address given to listen on (may be unspecified: `0.0.0.0`).
    pub listen: IpAddr,
    /// The local end of the connection: the address reached and the port.
    pub local: SocketAddr,
}

impl Hosts {
    /// Whether `host` (a `Host` header value) names this server.
    pub fn allows(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        if port.is_some_and(|p| p != self.local.port()) {
            return false;
        }
        if name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let ip = if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            match v6.parse::<Ipv6Addr>() {
                Ok(ip) => IpAddr::V6(ip),
                Err(_) => return false,
            }
        } else {
            match name.parse::<Ipv4Addr>() {
                Ok(ip) => IpAddr::V4(ip),
                Err(_) => return false,
            }
        };
        let ip = ip.to_canonical();
        ip.is_loopback()
            || (!ip.is_unspecified()
                && (ip == self.listen.to_canonical() || ip == self.local.ip().to_canonical()))
    }
}

/// `name[:port]` or `[v6][:port]` split; `None` when the port is not a number.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let cut = match host.rfind(':') {
        Some(i)
            if !host[i..].contains(']') && (host.starts_with('[') || !host[..i].contains(':')) =>
        {
            i
        }
        _ => return Some((host, None)),
    };
    let port = host[cut + 1..].parse().ok()?;
    Some((&host[..cut], Some(port)))
}

/// Answers one request: refused unless its `Host` is one of `hosts`;
/// its body read whole (at most [`api::MAX_BODY`] bytes), then
/// [`api::handle`] on the blocking pool.
pub async fn answer(
    catalog: Arc<Catalog>,
    hosts: Hosts,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let host = request.headers().get(HOST).map(HeaderValue::to_str);
    if !matches!(host, Some(Ok(h)) if hosts.allows(h)) {
        let message = match host {
            Some(Ok(h)) => format!(
                "Host {h:?} is not this server: ask for localhost, 127.0.0.1, [::1] or the address served"
            ),
            _ => "a request needs a Host header naming this server (localhost, 127.0.0.1, [::1] or the address served)".to_string(),
        };
        return Ok(response(Reply::error(403, message), true));
    }
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
    fn only_hosts_naming_this_server_are_allowed() {
        let local = SocketAddr::from(([127, 0, 0, 1], 8737));
        let hosts = Hosts {
            listen: IpAddr::V4(Ipv4Addr::LOCALHOST),
            local,
        };
        for ok in [
            "localhost",
            "LocalHost:8737",
            "127.0.0.1",
            "127.0.0.1:8737",
            "[::1]",
            "[::1]:8737",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8737",
            "localhost:80",
            "localhost.evil.example",
            "127.0.0.1:x",
            "127.0.0.1:",
            "[::1",
            "::1",
            "10.0.0.5",
            "0.0.0.0:8737",
            "",
        ] {
            assert!(!hosts.allows(bad), "{bad}");
        }
        // Served on every address: the one the connection reached, too.
        let lan = Hosts {
            listen: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            local: SocketAddr::from(([10, 0, 0, 5], 8737)),
        };
        assert!(lan.allows("10.0.0.5:8737") && lan.allows("localhost"));
        assert!(!lan.allows("10.0.0.6:8737") && !lan.allows("0.0.0.0"));
        // Given with --host, an IPv6 address in brackets.
        let v6 = Hosts {
            listen: "fd00::7".parse().unwrap(),
            local: "[fd00::7]:9000".parse().unwrap(),
        };
        assert!(v6.allows("[fd00:0::7]:9000") && !v6.allows("[fd00::8]:9000"));
    }

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
