//! The server as a browser meets it: several keep-alive connections at
//! once, requests answered on each, and a stop that ends them all; and
//! as slow, many or foreign clients meet it: deadlines, the connection
//! cap, cross-site requests (docs/security.md, "The server under slow
//! and many clients"). The deadlines are set short here through
//! [`Limits`]; nothing asserts how long anything took.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use sylcol_serve::{Catalog, Limits, serve};

/// Starts a server over an empty catalog on a free port: its address,
/// its stop flag and the thread running it.
fn start() -> (SocketAddr, &'static AtomicBool, std::thread::JoinHandle<()>) {
    start_with(Limits::default())
}

/// [`start`] within `limits`.
fn start_with(limits: Limits) -> (SocketAddr, &'static AtomicBool, std::thread::JoinHandle<()>) {
    let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let (catalog, _) = Catalog::new(Vec::new());
        let any = SocketAddr::from(([127, 0, 0, 1], 0));
        serve(catalog.into(), any, limits, stop, |bound| {
            tx.send(bound).unwrap()
        })
        .unwrap();
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
        "POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
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
    let head = format!(
        "POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {over}\r\n\r\n"
    );
    let (status, headers, body) = exchange(addr, head.as_bytes());
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));
    assert!(headers.contains(&("connection".into(), "close".into())));
    // The same, chunked: cut off at the limit.
    let chunk = vec![b'x'; 64 * 1024];
    let mut rq =
        b"POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for _ in 0..(over / chunk.len() + 1) {
        rq.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        rq.extend_from_slice(&chunk);
        rq.extend_from_slice(b"\r\n");
    }
    rq.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(exchange(addr, &rq).0, 413);
    // A small chunked body is read whole and reaches the API.
    let rq = b"POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"o\r\n0\r\n\r\n";
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

/// A deadline short enough to wait out in a test (the defaults are
/// 10-60 s); every answer here takes far less.
const SHORT: Duration = Duration::from_millis(300);

/// Reads `conn` until it ends: the bytes that came, and how it ended
/// (`Ok` at the server's close; an error when reset, or when the read
/// timed out because the connection stayed open).
fn read_to_close(conn: &mut impl Read) -> (Vec<u8>, std::io::Result<()>) {
    let mut got = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    loop {
        match conn.read(&mut buf) {
            Ok(0) => return (got, Ok(())),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => return (got, Err(e)),
        }
    }
}

/// Whether a read ended because the server closed the connection.
fn closed_by_server(end: &std::io::Result<()>) -> bool {
    match end {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

/// The head of a JSON POST to the API announcing `length` bytes of body.
fn post_head(length: &str) -> String {
    format!(
        "POST /api/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{length}\r\n"
    )
}

#[test]
fn a_body_not_sent_within_the_deadline_gets_408_and_its_connection_closes() {
    let (addr, stop, server) = start_with(Limits {
        body: SHORT,
        ..Limits::default()
    });
    // 100 of the 1 000 bytes announced, then nothing.
    let mut conn = connect(addr);
    conn.write_all(post_head("Content-Length: 1000\r\n").as_bytes())
        .unwrap();
    conn.write_all(&[b' '; 100]).unwrap();
    let mut conn = BufReader::new(conn);
    let (status, headers, body) = read_reply(&mut conn);
    let body = String::from_utf8(body).unwrap();
    assert_eq!(status, 408, "{body}");
    assert!(body.contains("the body was not sent within"), "{body}");
    assert!(headers.contains(&("connection".into(), "close".into())));
    let (rest, end) = read_to_close(&mut conn);
    assert!(rest.is_empty() && closed_by_server(&end), "{end:?}");
    // A chunked body trickled a byte at a time keeps the connection busy
    // but never finishes: the deadline is for the whole body.
    let mut conn = connect(addr);
    conn.write_all(post_head("Transfer-Encoding: chunked\r\n").as_bytes())
        .unwrap();
    let mut trickle = conn.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..200 {
            if trickle.write_all(b"1\r\n \r\n").is_err() {
                return true;
            }
            std::thread::sleep(SHORT / 6);
        }
        false
    });
    let mut conn = BufReader::new(conn);
    assert_eq!(read_reply(&mut conn).0, 408);
    let (_, end) = read_to_close(&mut conn);
    assert!(closed_by_server(&end), "{end:?}");
    assert!(writer.join().unwrap(), "the trickle was cut off");
    // A body sent whole reaches the API (no such object here).
    let body = r#"{"object": "nothing", "queries": []}"#;
    let rq = post_head(&format!("Content-Length: {}\r\n", body.len())) + body;
    assert_eq!(exchange(addr, rq.as_bytes()).0, 404);
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn a_client_that_never_reads_its_answers_is_cut_off_at_the_write_deadline() {
    let (addr, stop, server) = start_with(Limits {
        write: SHORT,
        ..Limits::default()
    });
    let file = "/vendor/three.bundle.min.js";
    // A client that reads gets every answer it asked for at once.
    let mut conn = BufReader::new(connect(addr));
    for _ in 0..5 {
        send_get(conn.get_mut(), file);
    }
    let mut size = 0;
    for _ in 0..5 {
        let (status, _, body) = read_reply(&mut conn);
        assert_eq!(status, 200);
        size = body.len();
    }
    // 40 answers asked for at once (26 MB, far more than the sockets'
    // buffers hold), none read: the server's write waits, then fails at
    // the deadline, and the connection closes. What had reached the
    // sockets' buffers arrives, then the end.
    let asked = 40;
    let mut conn = connect(addr);
    for _ in 0..asked {
        send_get(&mut conn, file);
    }
    std::thread::sleep(SHORT * 10);
    let (got, end) = read_to_close(&mut conn);
    assert!(closed_by_server(&end), "{end:?} after {} bytes", got.len());
    assert!(got.len() < asked * size, "{} bytes", got.len());
    // The server goes on answering.
    let mut conn = BufReader::new(connect(addr));
    send_get(conn.get_mut(), "/api/objects");
    assert_eq!(read_reply(&mut conn).0, 200);
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn a_head_not_sent_within_the_deadline_and_an_idle_connection_are_closed() {
    let (addr, stop, server) = start_with(Limits {
        head: SHORT,
        ..Limits::default()
    });
    // Half a head, then nothing.
    let mut conn = connect(addr);
    conn.write_all(b"GET / HTTP/1.1\r\nHost: loc").unwrap();
    let (_, end) = read_to_close(&mut conn);
    assert!(closed_by_server(&end), "{end:?}");
    // Kept alive after an answer, then idle.
    let mut conn = BufReader::new(connect(addr));
    send_get(conn.get_mut(), "/api/objects");
    assert_eq!(read_reply(&mut conn).0, 200);
    let (rest, end) = read_to_close(&mut conn);
    assert!(rest.is_empty() && closed_by_server(&end), "{end:?}");
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn connections_over_the_cap_wait_until_one_closes() {
    let cap = 3;
    let (addr, stop, server) = start_with(Limits {
        connections: cap,
        ..Limits::default()
    });
    let ask = |conn: &mut BufReader<TcpStream>| {
        send_get(conn.get_mut(), "/api/objects");
        read_reply(conn).0
    };
    let mut held: Vec<_> = (0..cap)
        .map(|_| {
            let mut conn = BufReader::new(connect(addr));
            assert_eq!(ask(&mut conn), 200);
            conn
        })
        .collect();
    // One more: the OS takes the connection, the server does not yet.
    let mut extra = BufReader::new(connect(addr));
    send_get(extra.get_mut(), "/api/objects");
    extra.get_ref().set_read_timeout(Some(SHORT * 3)).unwrap();
    let mut line = String::new();
    let waiting = extra.read_line(&mut line);
    assert!(
        matches!(&waiting, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "{waiting:?} {line:?}"
    );
    // One closes: the one waiting is answered, and the others still are.
    drop(held.pop());
    extra
        .get_ref()
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(read_reply(&mut extra).0, 200);
    for conn in &mut held {
        assert_eq!(ask(conn), 200);
    }
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}

#[test]
fn cross_site_posts_and_two_hosts_are_refused_before_the_body_is_read() {
    let (addr, stop, server) = start();
    let port = addr.port();
    let query = r#"{"object": "nothing", "queries": ["ray 0,0,0 1,0,0"]}"#;
    let post = |headers: &str| -> (u16, String) {
        let rq = format!(
            "POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Content-Length: {}\r\n\r\n{query}",
            query.len()
        );
        let (status, _, body) = exchange(addr, rq.as_bytes());
        (status, String::from_utf8(body).unwrap())
    };
    // What a page of another site may send without asking first: a
    // text/plain POST carrying its own Origin.
    let (status, body) =
        post("Origin: http://evil.example\r\nContent-Type: text/plain;charset=UTF-8\r\n");
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains(r#"a POST from another site (Origin \"http://evil.example\") is refused"#),
        "{body}"
    );
    // JSON from another page (a browser asks first, and gets no grant).
    for origin in [
        "http://evil.example".to_string(),
        format!("http://127.0.0.1:{}", port.wrapping_add(1)),
        format!("https://127.0.0.1:{port}"),
        "null".to_string(),
    ] {
        let headers = format!("Origin: {origin}\r\nContent-Type: application/json\r\n");
        assert_eq!(post(&headers).0, 403, "{origin}");
    }
    // Not JSON, from no page (a script): refused all the same.
    for content_type in [
        "Content-Type: text/plain\r\n",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        "Content-Type: multipart/form-data; boundary=x\r\n",
        "",
    ] {
        let (status, body) = post(content_type);
        assert_eq!(status, 415, "{content_type}");
        assert!(
            body.contains("needs Content-Type: application/json"),
            "{body}"
        );
    }
    // This server's page, and a script sending JSON: the API answers
    // (there is no such object here).
    for headers in [
        format!("Origin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\n"),
        format!("Origin: http://localhost:{port}\r\nContent-Type: application/json\r\n"),
        "Content-Type: application/json; charset=utf-8\r\n".to_string(),
    ] {
        let (status, body) = post(&headers);
        assert_eq!(status, 404, "{headers}");
        assert!(body.contains("no object named"), "{body}");
    }
    // A CORS preflight is granted nothing.
    let rq = "OPTIONS /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n";
    let (status, headers, _) = exchange(addr, rq.as_bytes());
    assert_eq!(status, 403);
    assert!(!headers.iter().any(|(k, _)| k.starts_with("access-control")));
    // GET answers any page (the viewer's files and its GETs).
    let rq = "GET /api/objects HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n\r\n";
    assert_eq!(exchange(addr, rq.as_bytes()).0, 200);
    // Two Host headers, the second this server or another.
    for second in ["127.0.0.1", "evil.example"] {
        let rq = format!("GET /api/objects HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: {second}\r\n\r\n");
        let (status, _, body) = exchange(addr, rq.as_bytes());
        assert_eq!(status, 400, "{second}");
        let body = String::from_utf8(body).unwrap();
        assert!(body.contains("2 Host headers"), "{body}");
    }
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap();
}
