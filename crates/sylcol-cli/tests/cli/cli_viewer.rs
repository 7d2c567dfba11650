//! `export` to glTF with layers, the one-file library and its way back,
//! `serve` (real sockets, Ctrl-C) and `view`, through the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use crate::common::{path, run, samples, sylcol};
use serde_json::Value;

/// The JSON chunk of a GLB.
pub fn glb_json(bytes: &[u8]) -> Value {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}

#[test]
fn a_map_exports_with_named_layers_and_info_extras() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("map.glb");
    let map = format!("{}+$DC4B0896", samples());
    run(&[
        "export",
        &map,
        "-o",
        path(&out),
        "--layers",
        "hull,cells,failures",
        "--scale",
        "0.001",
    ]);
    let j = glb_json(&std::fs::read(&out).unwrap());
    let root = &j["nodes"][j["scenes"][0]["nodes"][0].as_u64().unwrap() as usize];
    assert_eq!(root["name"], "$DC4B0896");
    assert_eq!(root["scale"], serde_json::json!([0.001, 0.001, 0.001]));
    let info = crate::common::run_json(&["info", "--json", &map])["objects"][0].clone();
    assert_eq!(root["extras"]["triangles"], info["triangles"]);
    assert_eq!(root["extras"]["grid"], info["grid"]);
    let kids: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            j["nodes"][k.as_u64().unwrap() as usize]["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        kids,
        ["$DC4B0896 hull", "$DC4B0896 cells", "$DC4B0896 failures"]
    );
}

#[test]
fn layers_need_gltf_output_and_a_map() {
    let dir = tempfile::tempdir().unwrap();
    let map = format!("{}+$DC4B0896", samples());
    let obj = dir.path().join("m.obj");
    let e = sylcol()
        .args(["export", &map, "-o", path(&obj), "--layers", "cells"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(err.contains("apply to glTF output"), "{err}");
    let lib = format!("{}+CollisionSet_S01.bin", samples());
    let glb = dir.path().join("lib.glb");
    let e = sylcol()
        .args(["export", &lib, "-o", path(&glb), "--layers", "tri-spheres"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(err.contains("tri-spheres layer is a map's"), "{err}");
    // `all` is every layer the object has: a library's hull and failures,
    // as in a whole-archive export.
    let all = dir.path().join("all.glb");
    run(&["export", &lib, "-o", path(&all), "--layers", "all"]);
    let two = dir.path().join("two.glb");
    run(&[
        "export",
        &lib,
        "-o",
        path(&two),
        "--layers",
        "hull,failures",
    ]);
    assert_eq!(std::fs::read(&all).unwrap(), std::fs::read(&two).unwrap());
    sylcol()
        .args(["export", &map, "-o", path(&glb), "--layers", "walls"])
        .assert()
        .code(2);
    sylcol()
        .args(["export", &map, "-o", path(&glb), "--scale", "-1"])
        .assert()
        .code(2);
}

#[test]
fn the_library_as_one_glb_builds_back_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let lib = format!("{}+CollisionSet_S01.bin", samples());
    let glb = dir.path().join("lib.glb");
    run(&["export", &lib, "-o", path(&glb), "--scale", "0.01"]);
    let j = glb_json(&std::fs::read(&glb).unwrap());
    let root = &j["nodes"][j["scenes"][0]["nodes"][0].as_u64().unwrap() as usize];
    assert_eq!(root["children"].as_array().unwrap().len(), 158);
    let back = dir.path().join("back.bin");
    run(&["build", "collisionset", path(&glb), "-o", path(&back)]);
    let original = dir.path().join("orig.bin");
    run(&[
        "pak",
        "extract",
        &samples(),
        "-o",
        path(&dir.path().join("x")),
    ]);
    std::fs::copy(dir.path().join("x/CollisionSet_S01.bin"), &original).unwrap();
    assert_eq!(
        std::fs::read(back).unwrap(),
        std::fs::read(original).unwrap()
    );
}

/// `glb` with every node's `extras` removed: what Blender exports without
/// "Include > Custom Properties" (names, hierarchy and meshes kept).
fn without_extras(glb: &[u8]) -> Vec<u8> {
    let mut json = glb_json(glb);
    for node in json["nodes"].as_array_mut().unwrap() {
        node.as_object_mut().unwrap().remove("extras");
    }
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin = &glb[20 + json_len..];
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend(((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(text);
    out.extend(bin);
    out
}

#[test]
fn layers_without_their_marks_are_skipped_by_name_and_a_library_says_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let map = format!("{}+$DD89A110", samples());
    let glb = dir.path().join("map.glb");
    run(&["export", &map, "-o", path(&glb), "--layers", "all"]);
    let bare = dir.path().join("bare.glb");
    std::fs::write(&bare, without_extras(&std::fs::read(&glb).unwrap())).unwrap();
    let built = dir.path().join("back.mcol");
    run(&[
        "build",
        "mcol",
        path(&bare),
        "--grid-from",
        &map,
        "-o",
        path(&built),
    ]);
    let extracted = dir.path().join("x");
    run(&["pak", "extract", &samples(), "-o", path(&extracted)]);
    assert_eq!(
        std::fs::read(built).unwrap(),
        std::fs::read(extracted.join("$DD89A110.MCOL")).unwrap(),
        "the hull alone is built: the cells and sphere nodes are known by their names"
    );

    let lib = format!("{}+CollisionSet_S01.bin", samples());
    let glb = dir.path().join("lib.glb");
    run(&["export", &lib, "-o", path(&glb)]);
    let bare = dir.path().join("lib-bare.glb");
    std::fs::write(&bare, without_extras(&std::fs::read(&glb).unwrap())).unwrap();
    for (file, warned) in [(&glb, false), (&bare, true)] {
        let out = sylcol()
            .args(["build", "collisionset", path(file), "-o"])
            .arg(dir.path().join("lib.bin"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = crate::common::stderr(&out);
        assert_eq!(
            err.contains("records written in the file's node order"),
            warned,
            "{err}"
        );
    }
}

#[test]
fn a_whole_archive_exports_one_glb_per_map_and_one_library() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("glb");
    run(&[
        "export",
        &samples(),
        "-o",
        path(&out),
        "--format",
        "glb",
        "--layers",
        "all",
    ]);
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        23,
        "{files:?}: 11 maps, 11 REGN point clouds, the library"
    );
    assert_eq!(
        files.iter().filter(|f| f.ends_with(".REGN.glb")).count(),
        10,
        "one REGN is shown by its built-in name, mapmesh_box_500km.rgn"
    );
    assert_eq!(
        files.iter().filter(|f| f.ends_with(".MCOL.glb")).count(),
        10
    );
    assert!(
        files.contains(&"CollisionSet_Tutorial.glb".to_string()),
        "{files:?}"
    );
}

/// `sylcol serve --port 0` running; [`Server::interrupt`] stops it with
/// SIGINT, and a test that fails before that kills it on drop.
pub(crate) struct Server {
    pub(crate) child: std::process::Child,
    /// The address to connect to (`127.0.0.1:PORT`).
    pub(crate) addr: String,
}

impl Server {
    pub(crate) fn start(args: &[&str]) -> Server {
        let server = Server::start_with(&[], args);
        assert!(
            server.printed.starts_with("127.0.0.1:"),
            "{}",
            server.printed
        );
        server.server
    }

    /// `sylcol serve ARGS --port 0`, run through `wrapper` (a command and
    /// its arguments, such as `prlimit --nofile=40`) if one is given; the
    /// address it printed is in `printed`.
    pub(crate) fn start_with(wrapper: &[&str], args: &[&str]) -> Started {
        let sylcol = assert_cmd::cargo::cargo_bin("sylcol");
        let mut command = match wrapper {
            [program, rest @ ..] => {
                let mut c = Command::new(program);
                c.args(rest).arg(sylcol);
                c
            }
            [] => Command::new(sylcol),
        };
        let mut child = command
            .env("XDG_CACHE_HOME", crate::common::empty_cache())
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let printed = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        let port = printed.rsplit(':').next().unwrap();
        let addr = format!("127.0.0.1:{port}");
        Started {
            server: Server { child, addr },
            printed,
        }
    }

    /// One request (a POST as JSON, as the page sends it); returns
    /// (status, body).
    pub(crate) fn request(&self, method: &str, target: &str, body: &str) -> (u16, String) {
        let json = if method == "POST" {
            "Content-Type: application/json\r\n"
        } else {
            ""
        };
        self.request_with(method, target, json, body)
    }

    /// One request with `headers` (lines, each ending in CRLF) added;
    /// returns (status, body).
    pub(crate) fn request_with(
        &self,
        method: &str,
        target: &str,
        headers: &str,
        body: &str,
    ) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        write!(
            s,
            "{method} {target} HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        let status = reply[9..12].parse().unwrap();
        let body = reply
            .split_once("\r\n\r\n")
            .map(|p| p.1.to_string())
            .unwrap_or_default();
        (status, body)
    }

    pub(crate) fn interrupt(mut self) -> std::process::Output {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        let child = std::mem::replace(&mut self.child, Command::new("true").spawn().unwrap());
        child.wait_with_output().unwrap()
    }
}

/// A [`Server`] just started, and the address it printed (`0.0.0.0:PORT`
/// when told `--host 0.0.0.0`).
pub(crate) struct Started {
    pub(crate) server: Server,
    pub(crate) printed: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_answers_the_api_refuses_bad_requests_and_stops_on_ctrl_c() {
    let map = format!("{}+$DC4B0896", samples());
    let server = Server::start(&[&map]);
    let (status, body) = server.request("GET", "/api/objects", "");
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list[0]["name"], "$DC4B0896");
    let q = r#"{"object":"$DC4B0896","queries":["ray 0,0,0 1,0.1,0.2"]}"#;
    let (status, body) = server.request("POST", "/api/query", q);
    assert_eq!(status, 200, "{body}");
    let cli = run(&[
        "query",
        &map,
        "--json",
        "ray",
        "--origin",
        "0,0,0",
        "--dir",
        "1,0.1,0.2",
    ]);
    assert_eq!(
        body,
        format!("[{}]", String::from_utf8(cli).unwrap().trim())
    );
    // docs/viewer.md's curl example shows what the server prints.
    let docs = std::fs::read_to_string(format!(
        "{}/../../docs/viewer.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let example = docs
        .split("curl -s localhost:8737/api/query -H 'Content-Type: application/json' \\\n  -d '")
        .nth(1)
        .expect("the curl example");
    let (request, shown) = example.split_once("'\n").unwrap();
    let shown: String = shown
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect();
    let (status, body) = server.request("POST", "/api/query", request);
    assert_eq!((status, body), (200, shown));
    for (method, target, body, want) in [
        ("POST", "/api/query", "{", 400),
        (
            "POST",
            "/api/query",
            r#"{"object":"$DC4B0896","queries":["fly 1"]}"#,
            400,
        ),
        ("GET", "/api/verify/nothing", "", 404),
        ("GET", "/../Cargo.toml", "", 404),
        ("GET", "/api/objects/%24DC4B0896.glb?layers=x", "", 400),
    ] {
        let (status, reply) = server.request(method, target, body);
        assert_eq!(status, want, "{method} {target}");
        let v: Value = serde_json::from_str(&reply).unwrap();
        assert!(v["error"].is_string(), "{reply}");
    }
    let (status, body) = server.request("GET", "/", "");
    assert_eq!(status, 200);
    assert!(body.contains("three.bundle.min.js"));
    let out = server.interrupt();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped"));
}

#[test]
fn serve_checks_the_host_and_names_parts_and_libraries_as_the_cli_does() {
    let server = Server::start(&[&samples()]);
    let lib = format!("{}+CollisionSet_S01.bin", samples());
    let cli = run(&[
        "query",
        &lib,
        "--json",
        "--mesh",
        "rou_e101_bdy",
        "closest",
        "--point",
        "0,0,0",
    ]);
    let cli = format!("[{}]", String::from_utf8(cli).unwrap().trim());
    for object in ["CollisionSet_Tutorial", "CollisionSet_S01"] {
        let q =
            format!(r#"{{"object":"{object}","mesh":"rou_e101_bdy","queries":["closest 0,0,0"]}}"#);
        let (status, body) = server.request("POST", "/api/query", &q);
        assert_eq!((status, &body), (200, &cli), "{object}");
    }
    for target in [
        "/api/verify/CollisionSet_S01",
        "/api/objects/CollisionSet_S01.glb",
    ] {
        assert_eq!(server.request("HEAD", target, "").0, 200, "{target}");
    }
    // A DNS-rebinding page's Host is refused.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    write!(
        s,
        "GET /api/objects HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 403 "), "{reply}");
    assert!(
        reply.contains(r#"{"error":"Host \"evil.example\" is not this server"#),
        "{reply}"
    );
    assert!(server.interrupt().status.success());
}

/// `sylcol view FILE`'s page, and its data block parsed: the text from
/// the data element up to the first `</script` (where the HTML parser
/// ends it), which holds no `<` at all, so no name can change where.
fn view_page(dir: &std::path::Path, file: &str) -> (String, Value) {
    let html = dir.join("view.html");
    run(&["view", file, "-o", path(&html)]);
    let page = std::fs::read_to_string(&html).unwrap();
    let open = r#"<script id="sylcol-data" type="application/json">"#;
    let start = page.find(open).expect("the data element") + open.len();
    let block = &page[start..start + page[start..].find("</script").unwrap()];
    assert!(!block.contains('<'), "the data block holds markup");
    let data = serde_json::from_str(block.trim()).unwrap();
    (page, data)
}

#[test]
fn view_writes_one_self_contained_page() {
    let dir = tempfile::tempdir().unwrap();
    let map = format!("{}+$DC4B0896", samples());
    let (page, data) = view_page(dir.path(), &map);
    assert!(
        !page.contains(r#"src="app.js""#) && !page.contains("http://") || page.contains("three")
    );
    assert_eq!(data["objects"][0]["name"], "$DC4B0896");
    assert!(
        data["glb"]["$DC4B0896"]
            .as_str()
            .unwrap()
            .starts_with("Z2xURg"),
        "base64 of glTF"
    );
    assert_eq!(data["verify"]["$DC4B0896"]["ok"], true);
    // `-o -` streams the same page to standard output (no file named `-`).
    let out = sylcol()
        .current_dir(dir.path())
        .args(["view", &map, "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), page);
    assert!(!dir.path().join("-").exists());
}

#[test]
fn view_keeps_its_data_block_whole_for_a_name_with_markup() {
    let dir = tempfile::tempdir().unwrap();
    let evil = dir.path().join("<!--<script>.MCOL");
    let map = format!("{}+$2CF7EB47", samples());
    run(&["rewrite", &map, "-o", path(&evil)]);
    let (page, data) = view_page(dir.path(), path(&evil));
    assert_eq!(data["objects"][0]["name"], "<!--<script>");
    assert_eq!(data["verify"]["<!--<script>"]["ok"], true);
    // The page's own scripts follow, whole.
    assert_eq!(page.matches("<script").count(), 6);
    assert_eq!(page.matches("</script>").count(), 6);
    assert!(page.contains("SylcolDraw") && page.trim_end().ends_with("</html>"));
}
