//! `sylcol serve` under hostile clients, through the real binary: out of
//! file descriptors, a cross-site POST, `--host 0.0.0.0`
//! (docs/security.md, "The server under slow and many clients"). The
//! deadlines and the connection cap are tested with short values in
//! crates/sylcol-serve/tests/http.rs.

use std::net::TcpStream;
use std::time::Duration;

use crate::cli_viewer::Server;
use crate::common::samples;

/// CPU time (user + system) the process `pid` has used so far, in
/// seconds: fields 14 and 15 of `/proc/PID/stat`, in clock ticks
/// (Linux reports them at USER_HZ, 100 a second).
#[cfg(target_os = "linux")]
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The command name, field 2, is in parentheses and may hold spaces.
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

#[cfg(target_os = "linux")]
#[test]
fn serve_out_of_file_descriptors_waits_instead_of_spinning() {
    let limit = "--nofile=40";
    if !std::process::Command::new("prlimit")
        .args([limit, "true"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("skipped: prlimit (util-linux) is missing or cannot set limits here");
        return;
    }
    let map = format!("{}+$DC4B0896", samples());
    let server = Server::start_with(&["prlimit", limit], &[&map]).server;
    // 60 connections held open: the server accepts until its 40
    // descriptors are gone, then every accept fails with EMFILE while
    // the rest wait in the OS's queue.
    let held: Vec<TcpStream> = (0..60)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let before = cpu_seconds(server.child.id());
    let held_for = Duration::from_secs(3);
    std::thread::sleep(held_for);
    let used = cpu_seconds(server.child.id()) - before;
    // Retrying at once spun a core: 3.0 s of CPU in these 3 s. Waiting
    // between tries uses next to nothing (0.02 s in 5 s); the bound is
    // loose on purpose.
    assert!(
        used < 0.5,
        "the server used {used} s of CPU in {held_for:?} while out of descriptors"
    );
    // The connections go; the server accepts and answers again.
    drop(held);
    let (status, body) = server.request("GET", "/api/objects", "");
    assert_eq!(status, 200, "{body}");
    assert!(server.interrupt().status.success());
}

#[test]
fn serve_refuses_a_cross_site_post_and_answers_its_own_page() {
    let map = format!("{}+$DC4B0896", samples());
    let server = Server::start(&[&map]);
    let query = r#"{"object":"$DC4B0896","queries":["ray 0,0,0 1,0.1,0.2"]}"#;
    // What any page on the web can make a browser send without asking
    // first: a text/plain POST with its own Origin.
    let evil = "Origin: http://evil.example\r\nContent-Type: text/plain;charset=UTF-8\r\n";
    let (status, body) = server.request_with("POST", "/api/query", evil, query);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("another site"), "{body}");
    let plain = "Content-Type: text/plain\r\n";
    assert_eq!(
        server.request_with("POST", "/api/query", plain, query).0,
        415
    );
    // The viewer's own page: same origin, JSON.
    let own = format!(
        "Origin: http://{}\r\nContent-Type: application/json\r\n",
        server.addr
    );
    let (status, body) = server.request_with("POST", "/api/query", &own, query);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""hit":true"#), "{body}");
    let two_hosts = format!("Host: {}\r\n", server.addr);
    assert_eq!(
        server.request_with("GET", "/api/objects", &two_hosts, "").0,
        400
    );
    assert!(server.interrupt().status.success());
}

#[test]
fn serve_on_every_address_warns_that_the_network_can_reach_it() {
    let map = format!("{}+$DC4B0896", samples());
    let started = Server::start_with(&[], &[&map, "--host", "0.0.0.0"]);
    assert!(
        started.printed.starts_with("0.0.0.0:"),
        "{}",
        started.printed
    );
    assert_eq!(started.server.request("GET", "/api/objects", "").0, 200);
    let out = started.server.interrupt();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "sylcol: warning: serving on 0.0.0.0: the viewer, its API and every object given are reachable from every network this machine is on"
        ),
        "{stderr}"
    );
    // The default, the loopback, says nothing of the kind.
    let out = Server::start(&[&map]).interrupt();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
}
