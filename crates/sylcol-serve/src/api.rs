//! The HTTP API as a pure function: a request (method, URL, body) in, a
//! [`Reply`] out. Every error is a 4xx with `{"error": ...}`; nothing a
//! client sends can panic the server or reach a file.
//!
//! | request | answer |
//! |---|---|
//! | `GET /api/objects` | every object: name, kind, path, aliases, parts, `info` |
//! | `GET /api/objects/{name}.glb?layers=hull,cells` | the object's glTF scene |
//! | `POST /api/query` | answers, in the shape `query --json` prints |
//! | `GET /api/verify/{name}` | what `verify --json` says, plus `flagged` |
//! | `GET /`, `/app.js`, ... | the viewer page ([`crate::assets`]) |

use glam::Vec3;
use serde_json::{Value, json};
use sylcol::export::gltf::Layers;
use sylcol::query::{Query, Ray};

use crate::assets;
use crate::catalog::Catalog;

/// Largest request body accepted.
pub const MAX_BODY: usize = 1 << 20;
/// Most queries in one request.
pub const MAX_QUERIES: usize = 10_000;

/// An HTTP answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Content-Type.
    pub content_type: &'static str,
    /// Body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, value: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    /// `{"error": message}` with a 4xx status.
    pub fn error(status: u16, message: impl Into<String>) -> Reply {
        Reply::json(status, &json!({ "error": message.into() }))
    }
}

/// Answers one request. `url` is the raw request target (path and query).
pub fn handle(catalog: &Catalog, method: &str, url: &str, body: &[u8]) -> Reply {
    let (raw_path, query) = url.split_once('?').unwrap_or((url, ""));
    let Some(path) = percent_decode(raw_path) else {
        return Reply::error(400, "the path is not valid percent-encoded UTF-8");
    };
    match (method, path.as_str()) {
        ("GET", "/api/objects") => {
            let list: Vec<Value> = catalog.objects().iter().map(|o| o.summary()).collect();
            Reply::json(200, &Value::Array(list))
        }
        ("POST", "/api/query") => query_reply(catalog, body),
        (_, "/api/query") => Reply::error(405, "POST a JSON body to /api/query"),
        ("GET", p) if p.starts_with("/api/objects/") => {
            let name = &p["/api/objects/".len()..];
            match name.strip_suffix(".glb") {
                Some(name) => glb_reply(catalog, name, query),
                None => Reply::error(
                    404,
                    format!("no such resource {p:?} (try /api/objects/NAME.glb)"),
                ),
            }
        }
        ("GET", p) if p.starts_with("/api/verify/") => {
            let name = &p["/api/verify/".len()..];
            match catalog.get(name) {
                Some(o) => Reply::json(200, &o.verify()),
                None => Reply::error(404, format!("no object named {name:?}")),
            }
        }
        ("GET", p) if p.starts_with("/api/") => Reply::error(404, format!("no API {p:?}")),
        ("GET", p) => match assets::asset(p) {
            Some((content_type, body)) => Reply {
                status: 200,
                content_type,
                body: body.to_vec(),
            },
            None => Reply::error(404, format!("no page {p:?}")),
        },
        (m, _) => Reply::error(405, format!("method {m} is not served")),
    }
}

/// `GET /api/objects/{name}.glb?layers=...` (default: every layer the
/// object has).
fn glb_reply(catalog: &Catalog, name: &str, query: &str) -> Reply {
    let Some(object) = catalog.get(name) else {
        return Reply::error(404, format!("no object named {name:?}"));
    };
    let layers = match query_param(query, "layers") {
        Some(list) => match Layers::parse(&list) {
            Ok(l) => l,
            Err(e) => return Reply::error(400, e),
        },
        None => object.layers(),
    };
    match object.scene(layers).and_then(|s| s.to_glb()) {
        Ok(glb) => Reply {
            status: 200,
            content_type: "model/gltf-binary",
            body: glb,
        },
        Err(e) => Reply::error(400, format!("{name}: {e}")),
    }
}

/// `POST /api/query`: `{"object", "mesh"?, "queries": [...], "cells"?}`.
fn query_reply(catalog: &Catalog, body: &[u8]) -> Reply {
    if body.len() > MAX_BODY {
        return Reply::error(413, format!("the body is over {MAX_BODY} bytes"));
    }
    let req: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Reply::error(400, format!("the body is not JSON: {e}")),
    };
    let Some(name) = req.get("object").and_then(Value::as_str) else {
        return Reply::error(400, "\"object\" (a name from /api/objects) is missing");
    };
    let Some(queries) = req.get("queries").and_then(Value::as_array) else {
        return Reply::error(400, "\"queries\" (an array of query lines) is missing");
    };
    if queries.len() > MAX_QUERIES {
        return Reply::error(413, format!("at most {MAX_QUERIES} queries a request"));
    }
    let mesh = match req.get("mesh") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return Reply::error(400, "\"mesh\" must be a part name"),
    };
    let want_cells = req.get("cells").and_then(Value::as_bool).unwrap_or(false);
    let Some(object) = catalog.get(name) else {
        return Reply::error(404, format!("no object named {name:?}"));
    };
    let collider = match catalog.collider(object, mesh) {
        Ok(c) => c,
        Err(e) => return Reply::error(400, e),
    };
    let mut answers = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let Some(line) = q.as_str() else {
            return Reply::error(400, format!("query {i} is not a string"));
        };
        let parsed: Query = match line.parse() {
            Ok(q) => q,
            Err(e) => return Reply::error(400, format!("query {i} ({line:?}): {e}")),
        };
        let answer = match collider.answer(&parsed) {
            Ok(a) => a,
            Err(e) => return Reply::error(400, format!("query {i} ({line:?}): {e}")),
        };
        // The answer's own serialisation (floats as `query --json` prints
        // them), with the walked cells appended when asked for.
        let mut text = serde_json::to_string(&answer).unwrap_or_default();
        if want_cells && let Some((ray, end)) = walked(&parsed, answer.time_of_impact) {
            let cells = collider.ray_cells(&ray, end).unwrap_or_default();
            text.pop();
            text.push_str(&format!(",\"cells\":{}}}", json!(cells)));
        }
        answers.push(text);
    }
    Reply {
        status: 200,
        content_type: "application/json",
        body: format!("[{}]", answers.join(",")).into_bytes(),
    }
}

/// The ray a ray or segment query walks, and where its walk stops (the
/// hit, else its end).
fn walked(q: &Query, toi: Option<f32>) -> Option<(Ray, f32)> {
    match *q {
        Query::Ray { ray, max } => Some((ray, toi.unwrap_or(max))),
        Query::Segment { from, to } if to != from => {
            Some((Ray::new(from, to - from), toi.unwrap_or(1.0)))
        }
        _ => None,
    }
    .filter(|(r, _)| r.dir != Vec3::ZERO)
}

/// The value of `key` in a query string (percent-decoded).
fn query_param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| percent_decode(&v.replace('+', " ")))
}

/// `%XX` escapes decoded; `None` when an escape or the UTF-8 is broken.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Source;
    use sylcol::verify::testmaps;

    fn catalog() -> Catalog {
        let m = testmaps::box_map();
        let bytes = sylcol_format::mcol::encode(&m).unwrap();
        let (c, skipped) = Catalog::new(vec![
            Source {
                path: "a/$2CF7EB47.MCOL".into(),
                bytes: bytes.clone(),
            },
            Source {
                path: "b/copy.MCOL".into(),
                bytes,
            },
            Source {
                path: "junk.bin".into(),
                bytes: b"nothing".to_vec(),
            },
        ]);
        assert_eq!(skipped.len(), 1);
        c
    }

    fn json_of(r: &Reply) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    #[test]
    fn objects_list_names_aliases_and_info() {
        let c = catalog();
        let r = handle(&c, "GET", "/api/objects", b"");
        let v = json_of(&r);
        assert_eq!(v[0]["name"], "$2CF7EB47");
        assert_eq!(v[0]["aliases"][0], "b/copy.MCOL");
        assert_eq!(v[0]["info"]["format"], "MCOL");
        assert_eq!(v[0]["info"]["triangles"], 12);
        assert_eq!(v.as_array().unwrap().len(), 1);
    }

    #[test]
    fn queries_are_answered_by_the_grid_walk_with_cells() {
        let c = catalog();
        let body = json!({ "object": "$2CF7EB47", "queries": ["ray 1,1,1 1,0,0", "ray 0,0,0 1,0,0", "inside 1,2,3"], "cells": true });
        let r = handle(&c, "POST", "/api/query", body.to_string().as_bytes());
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let v = json_of(&r);
        assert_eq!(v[0]["hit"], true);
        assert_eq!(v[0]["point"], json!([250000.0, 1.0, 1.0]));
        // From the centre cell's corner out along +x: five cells ...
        let cells = v[0]["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 5);
        assert_eq!(cells[0], json!([5, 5, 5]));
        // ... and a ray lying in two cell faces walks one layer: a triangle
        // it crosses touches the face, so the cell on either side lists it.
        assert_eq!(v[1]["cells"].as_array().unwrap().len(), 5);
        assert_eq!(v[2], json!({ "query": "inside", "inside": true }));
    }

    #[test]
    fn bad_requests_are_4xx_json_errors() {
        let c = catalog();
        let cases: [(&str, &str, &[u8], u16); 9] = [
            ("POST", "/api/query", b"{", 400),
            (
                "POST",
                "/api/query",
                br#"{"object":"nope","queries":[]}"#,
                404,
            ),
            (
                "POST",
                "/api/query",
                br#"{"object":"$2CF7EB47","queries":["ray 1,2 3"]}"#,
                400,
            ),
            (
                "POST",
                "/api/query",
                br#"{"object":"$2CF7EB47","queries":["ray 0,0,0 0,0,0"]}"#,
                400,
            ),
            ("GET", "/api/query", b"", 405),
            ("GET", "/api/objects/%24nope.glb", b"", 404),
            ("GET", "/api/objects/$2CF7EB47.glb?layers=walls", b"", 400),
            ("GET", "/../../etc/passwd", b"", 404),
            ("DELETE", "/api/objects", b"", 405),
        ];
        for (method, url, body, status) in cases {
            let r = handle(&c, method, url, body);
            assert_eq!(r.status, status, "{method} {url}");
            assert!(json_of(&r)["error"].is_string(), "{method} {url}");
        }
    }

    #[test]
    fn glb_and_verify_by_name() {
        let c = catalog();
        let r = handle(
            &c,
            "GET",
            "/api/objects/%242CF7EB47.glb?layers=hull%2Ccells",
            b"",
        );
        assert_eq!((r.status, r.content_type), (200, "model/gltf-binary"));
        assert_eq!(&r.body[..4], b"glTF");
        let v = json_of(&handle(&c, "GET", "/api/verify/$2CF7EB47", b""));
        assert_eq!(v["ok"], true);
        assert_eq!(v["flagged"]["triangles"], json!([]));
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("%24DC4B0896").as_deref(), Some("$DC4B0896"));
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
