//! HTTP/1.1 on one connection: requests read whole, answered by
//! [`api::handle`], sent back with their length, the connection kept
//! alive between them.
//!
//! | limit | value |
//! |---|---|
//! | request line and headers | [`MAX_HEAD`] bytes, else 431 and close |
//! | body | `Content-Length` only (chunked: 411), at most [`api::MAX_BODY`] bytes (else 413 and close) |
//! | idle between requests, or sending one | [`IDLE`], then the connection closes (408 if a request was under way) |
//! | stop flag | looked at every `poll` while waiting: the connection closes |
//!
//! The server gives each connection its own thread ([`crate::serve`]):
//! a browser opens six at once and keeps them open, and none may wait
//! for another to close (tiny_http's pool, used before, could leave a
//! connection unread for as long as the others stayed open).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::api::{self, Reply};
use crate::catalog::Catalog;

/// Most bytes of a request line and its headers.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may sit idle between requests, or take to send one.
pub const IDLE: Duration = Duration::from_secs(30);

/// A request read off the connection.
struct Request {
    method: String,
    target: String,
    body: Vec<u8>,
    /// The client asked to close after the answer (or speaks HTTP/1.0).
    close: bool,
}

/// Why no request was read.
enum Fail {
    /// The client closed, the connection idled out, or the server stops.
    Gone,
    /// A request that cannot be read on: answered with this, then closed.
    Refused(Reply),
}

/// The request head's facts the connection needs.
struct Head {
    method: String,
    target: String,
    close: bool,
    length: usize,
    expects_continue: bool,
}

/// A client connection and the bytes read off it but not yet used.
struct Connection<'a> {
    stream: TcpStream,
    pending: Vec<u8>,
    stop: &'a AtomicBool,
}

/// Answers the requests on `stream` until the client closes it, it idles
/// out, a request is refused, or `stop` is set.
pub fn serve_connection(catalog: &Catalog, stream: TcpStream, stop: &AtomicBool, poll: Duration) {
    let setup = stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_read_timeout(Some(poll)))
        .and_then(|()| stream.set_write_timeout(Some(IDLE)))
        .and_then(|()| stream.set_nodelay(true));
    if setup.is_err() {
        return;
    }
    let mut conn = Connection {
        stream,
        pending: Vec::new(),
        stop,
    };
    loop {
        match conn.read_request() {
            Ok(rq) => {
                let reply = api::handle(catalog, &rq.method, &rq.target, &rq.body);
                let sent = conn.send(&reply, rq.close, rq.method == "HEAD");
                if sent.is_err() || rq.close {
                    return;
                }
            }
            Err(Fail::Gone) => return,
            Err(Fail::Refused(reply)) => {
                let _ = conn.send(&reply, true, false);
                return;
            }
        }
    }
}

impl Connection<'_> {
    /// Reads the next request whole.
    fn read_request(&mut self) -> Result<Request, Fail> {
        let deadline = Instant::now() + IDLE;
        let head_end = loop {
            if let Some(at) = find(&self.pending, b"\r\n\r\n") {
                break at;
            }
            if self.pending.len() > MAX_HEAD {
                return Err(refuse(
                    431,
                    format!("the request head is over {MAX_HEAD} bytes"),
                ));
            }
            self.fill(deadline)?;
        };
        let head = std::str::from_utf8(&self.pending[..head_end])
            .map_err(|_| refuse(400, "the request head is not UTF-8"))
            .and_then(parse_head)?;
        self.pending.drain(..head_end + 4);
        if head.expects_continue && self.pending.len() < head.length {
            self.stream
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .map_err(|_| Fail::Gone)?;
        }
        while self.pending.len() < head.length {
            self.fill(deadline)?;
        }
        let body = self.pending.drain(..head.length).collect();
        Ok(Request {
            method: head.method,
            target: head.target,
            body,
            close: head.close,
        })
    }

    /// Reads what the client sent next into `pending`.
    fn fill(&mut self, deadline: Instant) -> Result<(), Fail> {
        let mut chunk = [0u8; 8192];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(Fail::Gone),
                Ok(n) => {
                    self.pending.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if self.stop.load(Ordering::SeqCst) {
                        return Err(Fail::Gone);
                    }
                    if Instant::now() >= deadline {
                        return Err(match self.pending.is_empty() {
                            true => Fail::Gone,
                            false => refuse(408, "the request was not sent in time"),
                        });
                    }
                }
                Err(_) => return Err(Fail::Gone),
            }
        }
    }

    /// Sends `reply` (its body unless `head_only`).
    fn send(&mut self, reply: &Reply, close: bool, head_only: bool) -> io::Result<()> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: {}\r\n\r\n",
            reply.status,
            reason(reply.status),
            reply.content_type,
            reply.body.len(),
            if close { "close" } else { "keep-alive" },
        );
        self.stream.write_all(head.as_bytes())?;
        if !head_only {
            self.stream.write_all(&reply.body)?;
        }
        self.stream.flush()
    }
}

fn refuse(status: u16, message: impl Into<String>) -> Fail {
    Fail::Refused(Reply::error(status, message))
}

/// The request line and the headers that matter here.
fn parse_head(head: &str) -> Result<Head, Fail> {
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(refuse(400, "the request line is not METHOD TARGET VERSION"));
    };
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => {
            return Err(refuse(
                505,
                format!("{version} is not HTTP/1.0 or HTTP/1.1"),
            ));
        }
    };
    let mut parsed = Head {
        method: method.to_string(),
        target: target.to_string(),
        close: http10,
        length: 0,
        expects_continue: false,
    };
    for header in lines {
        let Some((name, value)) = header.split_once(':') else {
            return Err(refuse(
                400,
                format!("the header line {header:?} has no colon"),
            ));
        };
        let value = value.trim().to_ascii_lowercase();
        match name.trim().to_ascii_lowercase().as_str() {
            "connection" if value.contains("close") => parsed.close = true,
            "connection" if value.contains("keep-alive") => parsed.close = false,
            "expect" => parsed.expects_continue = value == "100-continue",
            "transfer-encoding" => {
                return Err(refuse(411, "send the body with a Content-Length"));
            }
            "content-length" => {
                parsed.length = value.parse().map_err(|_| {
                    refuse(400, format!("Content-Length {value:?} is not a number"))
                })?;
                if parsed.length > api::MAX_BODY {
                    let max = api::MAX_BODY;
                    return Err(refuse(413, format!("the body is over {max} bytes")));
                }
            }
            _ => {}
        }
    }
    Ok(parsed)
}

/// Where `needle` first starts in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The reason phrase of the statuses the server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(head: &str) -> u16 {
        match parse_head(head) {
            Err(Fail::Refused(r)) => r.status,
            _ => 0,
        }
    }

    #[test]
    fn heads_are_read_or_refused_with_the_right_status() {
        let h = parse_head("POST /api/query HTTP/1.1\r\nHost: x\r\ncontent-length: 12")
            .ok()
            .unwrap();
        assert_eq!(
            (h.method.as_str(), h.target.as_str(), h.length, h.close),
            ("POST", "/api/query", 12, false)
        );
        assert!(parse_head("GET / HTTP/1.0").ok().unwrap().close);
        assert!(
            !parse_head("GET / HTTP/1.0\r\nConnection: Keep-Alive")
                .ok()
                .unwrap()
                .close
        );
        assert!(
            parse_head("GET / HTTP/1.1\r\nConnection: close")
                .ok()
                .unwrap()
                .close
        );
        assert!(
            parse_head("PUT / HTTP/1.1\r\nExpect: 100-continue")
                .ok()
                .unwrap()
                .expects_continue
        );
        assert_eq!(refused("GET /"), 400);
        assert_eq!(refused("GET / HTTP/2.0"), 505);
        assert_eq!(refused("GET / HTTP/1.1\r\nno colon"), 400);
        assert_eq!(refused("POST / HTTP/1.1\r\nContent-Length: -1"), 400);
        assert_eq!(
            refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked"),
            411
        );
        let over = format!("POST / HTTP/1.1\r\nContent-Length: {}", api::MAX_BODY + 1);
        assert_eq!(refused(&over), 413);
    }
}
