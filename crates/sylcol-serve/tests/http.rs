//! The server as a browser meets it: several keep-alive connections at
//! once, requests answered on each, and a stop that ends them all.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use sylcol_serve::{Catalog, serve};

/// Starts a server over an empty catalog on a free port: its address,
/// its stop flag and the thread running it.
fn start() -> (SocketAddr, &'static AtomicBool, std::thread::JoinHandle<()>) {
    let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let (catalog, _) = Catalog::new(Vec::new());
        let any = SocketAddr::from(([127, 0, 0, 1], 0));
        serve(catalog.into(), any, stop, |bound| tx.send(bound).unwrap()).unwrap();
    });
    (rx.recv().unwrap(), stop, handle)
}

/// Sends `GET target` on `conn`, keeping the connection open.
fn send_get(conn: &mut TcpStream, target: &str) {
    let rq = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n");
    conn.write_all(rq.as_bytes()).unwrap();
}

/// Reads one response's head off `conn`: its status and headers
/// (lower-case names).
fn read_head(conn: &mut BufReader<TcpStream>) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    conn.read_line(&mut line)
        .expect("a status line within the timeout");
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        conn.read_line(&mut line).unwrap();
        let Some((k, v)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((k.to_ascii_lowercase(), v.trim().to_string()));
    }
    (status, headers)
}

/// Reads one response off `conn`: its status, headers (lower-case
/// names) and body.
fn read_reply(conn: &mut BufReader<TcpStream>) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let (status, headers) = read_head(conn);
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .unwrap();
    let mut body = vec![0; len];
    conn.read_exact(&mut body).unwrap();
    (status, headers, body)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let conn = TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    conn
}

#[test]
fn every_connection_of_a_page_is_answered_and_kept_and_stop_ends_them() {
    let (addr, stop, server) = start();
    // The page: one connection for the document, then six at once for
    // its files (a browser's limit per host), all kept alive.
    let mut document = BufReader::new(connect(addr));
    send_get(document.get_mut(), "/");
    assert_eq!(read_reply(&mut document).0, 200);
    let files = [
        "/style.css",
        "/draw.js",
        "/scene.js",
        "/app.js",
        "/index.html",
        "/nothing",
    ];
    let mut conns: Vec<_> = files.iter().map(|_| connect(addr)).collect();
    for (conn, file) in conns.iter_mut().zip(files) {
        send_get(conn, file);
    }
    for (conn, file) in conns.into_iter().zip(files) {
        let mut conn = BufReader::new(conn);
        let (status, headers, body) = read_reply(&mut conn);
        assert_eq!(status, if file == "/nothing" { 404 } else { 200 }, "{file}");
        assert!(!body.is_empty(), "{file}");
        assert!(headers.contains(&("cache-control".into(), "no-store".into())));
        // The same connection answers again.
        send_get(conn.get_mut(), "/api/objects");
        let (status, _, body) = read_reply(&mut conn);
        assert_eq!((status, body.as_slice()), (200, b"[]".as_slice()), "{file}");
    }
    // A request in two pieces, its body announced by Content-Length.
    let mut post = BufReader::new(connect(addr));
    let body = r#"{"object": 1"#;
    let head = format!(
        "POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    post.get_mut().write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    post.get_mut().write_all(body.as_bytes()).unwrap();
    let (status, _, reply) = read_reply(&mut post);
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&reply));
    // Stop: the server returns although every connection is still open.
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
    let mut rest = Vec::new();
    let read = document.read_to_end(&mut rest);
    assert!(
        matches!(read, Ok(0)),
        "the document connection is closed: {read:?}"
    );
}

/// Sends raw `request` on a new connection and reads the answer.
fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut conn = BufReader::new(connect(addr));
    conn.get_mut().write_all(request).unwrap();
    read_reply(&mut conn)
}

#[test]
fn limits_and_protocol_corners_are_answered() {
    let (addr, stop, server) = start();
    // A body over the API's limit, announced: 413 before it is sent.
    let over = sylcol_serve::api::MAX_BODY + 1;
    let head =
        format!("POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: {over}\r\n\r\n");
    let (status, headers, body) = exchange(addr, head.as_bytes());
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));
    assert!(headers.contains(&("connection".into(), "close".into())));
    // The same, chunked: cut off at the limit.
    let chunk = vec![b'x'; 64 * 1024];
    let mut rq =
        b"POST /api/query HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for _ in 0..(over / chunk.len() + 1) {
        rq.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        rq.extend_from_slice(&chunk);
        rq.extend_from_slice(b"\r\n");
    }
    rq.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(exchange(addr, &rq).0, 413);
    // A small chunked body is read whole and reaches the API.
    let rq = b"POST /api/query HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"o\r\n0\r\n\r\n";
    let (status, _, body) = exchange(addr, rq);
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("error"));
    // A request head over the limit.
    let long = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let mut conn = connect(addr);
    let _ = conn.write_all(long.as_bytes());
    let mut answer = String::new();
    let _ = BufReader::new(conn).read_line(&mut answer);
    assert!(answer.contains(" 431 "), "{answer:?}");
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn a_host_that_is_not_this_server_is_refused() {
    let (addr, stop, server) = start();
    let port = addr.port();
    for (host, want) in [
        ("evil.example".to_string(), 403),
        (format!("evil.example:{port}"), 403),
        (format!("localhost:{}", port.wrapping_add(1)), 403),
        ("localhost".to_string(), 200),
        (format!("localhost:{port}"), 200),
        (format!("127.0.0.1:{port}"), 200),
        ("[::1]".to_string(), 200),
        (format!("[::1]:{port}"), 200),
    ] {
        let rq = format!("GET /api/objects HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let (status, headers, body) = exchange(addr, rq.as_bytes());
        assert_eq!(status, want, "{host}");
        assert!(headers.contains(&("content-type".into(), "application/json".into())));
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        if want == 403 {
            assert!(
                v["error"].as_str().unwrap().contains("not this server"),
                "{v}"
            );
        }
    }
    // No Host at all (HTTP/1.0 may omit it): refused as well.
    let (status, _, body) = exchange(addr, b"GET /api/objects HTTP/1.0\r\n\r\n");
    assert_eq!(status, 403, "{}", String::from_utf8_lossy(&body));
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn head_sends_the_headers_of_the_get_and_no_body() {
    let (addr, stop, server) = start();
    let mut conn = BufReader::new(connect(addr));
    let get = |conn: &mut BufReader<TcpStream>, method: &str, target: &str| {
        let rq = format!("{method} {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        conn.get_mut().write_all(rq.as_bytes()).unwrap();
    };
    for target in ["/", "/app.js", "/api/objects", "/nothing"] {
        get(&mut conn, "GET", target);
        let (status, headers, body) = read_reply(&mut conn);
        // HEAD on the same connection: a body would be read as the next
        // answer's status line.
        get(&mut conn, "HEAD", target);
        let (head_status, head) = read_head(&mut conn);
        assert_eq!(head_status, status, "{target}");
        let without_date = |h: &[(String, String)]| -> Vec<(String, String)> {
            h.iter().filter(|(k, _)| k != "date").cloned().collect()
        };
        assert_eq!(without_date(&head), without_date(&headers), "{target}");
        assert!(head.contains(&("content-length".into(), body.len().to_string())));
    }
    // The connection is still in step: the next GET reads whole.
    get(&mut conn, "GET", "/api/objects");
    assert_eq!(read_reply(&mut conn).0, 200);
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}
