//! The HTTP API as a pure function: a request (method, URL, body) in, a
//! [`Reply`] out. Every error is a 4xx with `{"error": ...}`; nothing a
//! client sends can panic the server or reach a file.
//!
//! | request | answer |
//! |---|---|
//! | `GET /api/objects` | every object: name, kind (map, library, points), path, aliases, parts, points, `info` |
//! | `GET /api/objects/{name}.glb?layers=hull,cells` | the object's glTF scene |
//! | `GET /api/objects/{name}.obj?mesh=PART` | a map's hull (a library: one part) as OBJ |
//! | `POST /api/query` | answers, in the shape `query --json` prints |
//! | `GET /api/verify/{name}` | its row of `verify --json` (`shares_content_with`: the aliases), plus `name`, `flagged` |
//! | `GET /`, `/app.js`, ... | the viewer page ([`crate::assets`]) |

use glam::Vec3;
use serde::Serialize;
use serde_json::Value;
use sylcol::export::gltf::{GltfExportError, Layers};
use sylcol::query::script::ParseError;
use sylcol::query::{Answer, Query, QueryError, Ray};
use sylcol::report::query::inside_refusal;

use crate::assets;
use crate::catalog::{Catalog, ColliderError};

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

/// The body of every error reply: `{"error": message}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl Reply {
    /// A JSON answer: `value` serialised (floats as `query --json`
    /// prints them).
    pub fn json(status: u16, value: &impl Serialize) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    /// `{"error": message}` with a 4xx status.
    pub fn error(status: u16, message: impl Into<String>) -> Reply {
        Reply::json(
            status,
            &ErrorBody {
                error: &message.into(),
            },
        )
    }
}

/// Why a request is refused; each is a 4xx reply `{"error": message}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The URL path does not decode.
    #[error("the path is not valid percent-encoded UTF-8")]
    BadPath,
    /// A query-string parameter does not decode.
    #[error("{key}={raw:?} is not valid percent-encoded UTF-8")]
    BadParam {
        /// The parameter.
        key: &'static str,
        /// Its raw value.
        raw: String,
    },
    /// `/api/objects/NAME` without `.glb` or `.obj`.
    #[error("no such resource {0:?} (try /api/objects/NAME.glb)")]
    NoResource(String),
    /// No object of that name.
    #[error("no object named {0:?}")]
    NoObject(String),
    /// No API at that path.
    #[error("no API {0:?}")]
    NoApi(String),
    /// No page at that path.
    #[error("no page {0:?}")]
    NoPage(String),
    /// `/api/query` asked with another method than POST.
    #[error("POST a JSON body to /api/query")]
    QueryNeedsPost,
    /// A method the server does not answer.
    #[error("method {0} is not served")]
    Method(String),
    /// `layers=` with no layer.
    #[error(
        "layers= is empty: name one or more of hull, cells, cell-spheres, tri-spheres, failures, or all (without it: every layer the object has)"
    )]
    EmptyLayers,
    /// `layers=` naming what is not a layer.
    #[error("layers={list:?}: {error}")]
    Layers {
        /// The list given.
        list: String,
        /// What is wrong with it.
        error: String,
    },
    /// The object has no single mesh to write as OBJ (a library without
    /// `?mesh=`, a part it lacks).
    #[error("{0}")]
    Obj(String),
    /// The scene could not be made.
    #[error("{name}: {error}")]
    Export {
        /// The object.
        name: String,
        /// Why.
        error: GltfExportError,
    },
    /// The body is larger than [`MAX_BODY`].
    #[error("the body is over {MAX_BODY} bytes")]
    BodyTooLarge,
    /// The body does not parse.
    #[error("the body is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A field of the body is missing or of the wrong type.
    #[error("{0}")]
    Field(&'static str),
    /// More than [`MAX_QUERIES`] queries.
    #[error("at most {MAX_QUERIES} queries a request")]
    TooManyQueries,
    /// The object and part offer no collider.
    #[error(transparent)]
    Collider(#[from] ColliderError),
    /// A query that is not a string.
    #[error("query {0} is not a string")]
    NotAString(usize),
    /// A query line that does not parse.
    #[error("query {index} ({line:?}): {error}")]
    Parse {
        /// Its place in the request.
        index: usize,
        /// The line.
        line: String,
        /// Why.
        error: ParseError,
    },
    /// A query that cannot be answered.
    #[error("query {index} ({line:?}): {error}")]
    Answer {
        /// Its place in the request.
        index: usize,
        /// The line.
        line: String,
        /// Why.
        error: QueryError,
    },
    /// A query this mesh has no answer for (`inside` on a mesh with an
    /// edge used by an odd number of triangles).
    #[error("query {index} ({line:?}): {why}")]
    Unanswerable {
        /// Its place in the request.
        index: usize,
        /// The line.
        line: String,
        /// Why.
        why: String,
    },
}

impl ApiError {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::NoResource(_)
            | ApiError::NoObject(_)
            | ApiError::NoApi(_)
            | ApiError::NoPage(_) => 404,
            ApiError::QueryNeedsPost | ApiError::Method(_) => 405,
            ApiError::BodyTooLarge | ApiError::TooManyQueries => 413,
            _ => 400,
        }
    }
}

impl From<ApiError> for Reply {
    fn from(e: ApiError) -> Reply {
        Reply::error(e.status(), e.to_string())
    }
}

/// Answers one request. `url` is the raw request target (path and query).
/// HEAD is answered as GET (the HTTP layer sends the headers only).
pub fn handle(catalog: &Catalog, method: &str, url: &str, body: &[u8]) -> Reply {
    route(catalog, method, url, body).unwrap_or_else(Reply::from)
}

fn route(catalog: &Catalog, method: &str, url: &str, body: &[u8]) -> Result<Reply, ApiError> {
    let method = if method == "HEAD" { "GET" } else { method };
    let (raw_path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = percent_decode(raw_path).ok_or(ApiError::BadPath)?;
    match (method, path.as_str()) {
        ("GET", "/api/objects") => {
            let list: Vec<Value> = catalog.objects().iter().map(|o| o.summary()).collect();
            Ok(Reply::json(200, &list))
        }
        ("POST", "/api/query") => query_reply(catalog, body),
        (_, "/api/query") => Err(ApiError::QueryNeedsPost),
        ("GET", p) if p.starts_with("/api/objects/") => {
            let name = &p["/api/objects/".len()..];
            if let Some(name) = name.strip_suffix(".glb") {
                glb_reply(catalog, name, query)
            } else if let Some(name) = name.strip_suffix(".obj") {
                obj_reply(catalog, name, query)
            } else {
                Err(ApiError::NoResource(p.to_string()))
            }
        }
        ("GET", p) if p.starts_with("/api/verify/") => {
            let name = &p["/api/verify/".len()..];
            let object = catalog
                .get(name)
                .ok_or_else(|| ApiError::NoObject(name.to_string()))?;
            Ok(Reply::json(200, &object.verify()))
        }
        ("GET", p) if p.starts_with("/api/") => Err(ApiError::NoApi(p.to_string())),
        ("GET", p) => match assets::asset(p) {
            Some((content_type, body)) => Ok(Reply {
                status: 200,
                content_type,
                body: body.to_vec(),
            }),
            None => Err(ApiError::NoPage(p.to_string())),
        },
        (m, _) => Err(ApiError::Method(m.to_string())),
    }
}

/// `GET /api/objects/{name}.glb?layers=...` (default: every layer the
/// object has).
fn glb_reply(catalog: &Catalog, name: &str, query: &str) -> Result<Reply, ApiError> {
    let object = catalog
        .get(name)
        .ok_or_else(|| ApiError::NoObject(name.to_string()))?;
    let layers = match query_param(query, "layers")? {
        Some(list) if list.trim().is_empty() => return Err(ApiError::EmptyLayers),
        Some(list) => Layers::parse(&list).map_err(|error| ApiError::Layers { list, error })?,
        None => object.layers(),
    };
    let glb = object
        .scene(layers)
        .and_then(|s| s.to_glb())
        .map_err(|error| ApiError::Export {
            name: name.to_string(),
            error,
        })?;
    Ok(Reply {
        status: 200,
        content_type: "model/gltf-binary",
        body: glb,
    })
}

/// One answer of `POST /api/query`: the answer as `query --json` prints
/// it, with the cells a ray or segment walked when asked for.
#[derive(Serialize)]
struct Answered {
    #[serde(flatten)]
    answer: Answer,
    #[serde(skip_serializing_if = "Option::is_none")]
    cells: Option<Vec<[usize; 3]>>,
}

/// `GET /api/objects/{name}.obj?mesh=PART`: what `sylcol export NAME -o
/// x.obj` writes (a library: `--mesh PART`, one part).
fn obj_reply(catalog: &Catalog, name: &str, query: &str) -> Result<Reply, ApiError> {
    let object = catalog
        .get(name)
        .ok_or_else(|| ApiError::NoObject(name.to_string()))?;
    let mesh = query_param(query, "mesh")?;
    let body = object.obj(mesh.as_deref()).map_err(ApiError::Obj)?;
    Ok(Reply {
        status: 200,
        content_type: "model/obj",
        body,
    })
}

/// `POST /api/query`: `{"object", "mesh"?, "queries": [...], "cells"?}`.
fn query_reply(catalog: &Catalog, body: &[u8]) -> Result<Reply, ApiError> {
    if body.len() > MAX_BODY {
        return Err(ApiError::BodyTooLarge);
    }
    let req: Value = serde_json::from_slice(body).map_err(ApiError::NotJson)?;
    let name = req
        .get("object")
        .and_then(Value::as_str)
        .ok_or(ApiError::Field(
            "\"object\" (a name from /api/objects) is missing",
        ))?;
    let queries = req
        .get("queries")
        .and_then(Value::as_array)
        .ok_or(ApiError::Field(
            "\"queries\" (an array of query lines) is missing",
        ))?;
    if queries.len() > MAX_QUERIES {
        return Err(ApiError::TooManyQueries);
    }
    let mesh = match req.get("mesh") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return Err(ApiError::Field("\"mesh\" must be a part name")),
    };
    let want_cells = req.get("cells").and_then(Value::as_bool).unwrap_or(false);
    let object = catalog
        .get(name)
        .ok_or_else(|| ApiError::NoObject(name.to_string()))?;
    let collider = catalog.collider(object, mesh)?;
    let mut answers = Vec::with_capacity(queries.len());
    // Why `inside` has no answer on this mesh, worked out at the first one.
    let inside_refused = std::cell::OnceCell::new();
    for (index, q) in queries.iter().enumerate() {
        let line = q.as_str().ok_or(ApiError::NotAString(index))?;
        let parsed: Query = line.parse().map_err(|error| ApiError::Parse {
            index,
            line: line.to_string(),
            error,
        })?;
        if let Query::Inside { .. } = parsed
            && let Some(why) = inside_refused.get_or_init(|| inside_refusal(&collider))
        {
            return Err(ApiError::Unanswerable {
                index,
                line: line.to_string(),
                why: why.clone(),
            });
        }
        let answer = collider.answer(&parsed).map_err(|error| ApiError::Answer {
            index,
            line: line.to_string(),
            error,
        })?;
        let cells = want_cells
            .then(|| walked(&parsed, answer.time_of_impact))
            .flatten()
            .map(|(ray, end)| collider.ray_cells(&ray, end).unwrap_or_default());
        answers.push(Answered { answer, cells });
    }
    Ok(Reply::json(200, &answers))
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

/// The value of `key` in a query string (percent-decoded; `None` when
/// absent), or an error naming the parameter when its percent-encoding
/// or UTF-8 is broken.
fn query_param(query: &str, key: &'static str) -> Result<Option<String>, ApiError> {
    let Some((_, raw)) = query
        .split('&')
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .find(|(k, _)| *k == key)
    else {
        return Ok(None);
    };
    percent_decode(&raw.replace('+', " "))
        .map(Some)
        .ok_or_else(|| ApiError::BadParam {
            key,
            raw: raw.to_string(),
        })
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
    use serde_json::json;
    use sylcol::verify::testmaps;

    fn catalog() -> Catalog {
        let m = testmaps::box_map();
        let bytes = sylcol_format::mcol::encode(&m).unwrap();
        let (c, skipped) = Catalog::new(vec![
            Source {
                path: "a/$2CF7EB47.MCOL".into(),
                bytes: bytes.clone().into(),
            },
            Source {
                path: "b/copy.MCOL".into(),
                bytes: bytes.into(),
            },
            Source {
                path: "junk.bin".into(),
                bytes: b"nothing".to_vec().into(),
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
        let r = handle(&c, "GET", "/api/objects/%242CF7EB47.obj", b"");
        assert_eq!((r.status, r.content_type), (200, "model/obj"));
        let text = String::from_utf8(r.body).unwrap();
        assert!(text.contains("\no $2CF7EB47\n"), "{text}");
        assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 12);
        let v = json_of(&handle(&c, "GET", "/api/verify/$2CF7EB47", b""));
        assert_eq!(v["ok"], true);
        assert_eq!(v["flagged"]["triangles"], json!([]));
    }

    /// A library of two cube parts, read under two names (the disc's
    /// eighteen copies in small).
    fn library_catalog() -> Catalog {
        use sylcol_format::collisionset::{CollisionSet, Endian, Record, encode};
        let cube = testmaps::cube(10.0);
        let rec = |name: &str| {
            let v = cube.vertices.iter().map(|v| v.to_array()).collect();
            Record::new(name, v, cube.triangles.clone()).unwrap()
        };
        let set = CollisionSet {
            endian: Endian::Big,
            records: vec![rec("mob_n040_cmesh"), rec("rou_e101_bdy_cmesh")],
        };
        let bytes = encode(&set).unwrap();
        let (c, _) = Catalog::new(vec![
            Source {
                path: "MiscBin.pak+CollisionSet_Tutorial.bin".into(),
                bytes: bytes.clone().into(),
            },
            Source {
                path: "MiscBin.pak+CollisionSet_S01.bin".into(),
                bytes: bytes.into(),
            },
        ]);
        assert_eq!(c.objects().len(), 1);
        c
    }

    #[test]
    fn a_part_is_found_by_its_short_name_and_a_library_by_its_aliases() {
        let c = library_catalog();
        let ask = |object: &str, mesh: &str| {
            let body = json!({ "object": object, "mesh": mesh, "queries": ["closest 0,0,0", "ray 0,0,0 1,0,0"] });
            handle(&c, "POST", "/api/query", body.to_string().as_bytes())
        };
        let full = ask("CollisionSet_Tutorial", "rou_e101_bdy_cmesh");
        assert_eq!(full.status, 200, "{}", String::from_utf8_lossy(&full.body));
        assert_eq!(ask("CollisionSet_Tutorial", "rou_e101_bdy"), full);
        assert_eq!(ask("CollisionSet_S01", "rou_e101_bdy"), full);
        let obj = |q: &str| {
            handle(
                &c,
                "GET",
                &format!("/api/objects/CollisionSet_S01.obj{q}"),
                b"",
            )
        };
        let part = obj("?mesh=rou_e101_bdy");
        assert_eq!(part.status, 200, "{}", String::from_utf8_lossy(&part.body));
        assert!(String::from_utf8_lossy(&part.body).contains("o rou_e101_bdy_cmesh\n"));
        assert!(
            json_of(&obj(""))["error"]
                .as_str()
                .unwrap()
                .contains("name one with ?mesh=")
        );
        assert_eq!(obj("?mesh=nope").status, 400);
        let r = ask("CollisionSet_S01", "rou_e999");
        assert_eq!(r.status, 400);
        assert!(
            json_of(&r)["error"]
                .as_str()
                .unwrap()
                .contains("no part named")
        );
        let v = json_of(&handle(&c, "GET", "/api/verify/CollisionSet_S01", b""));
        assert_eq!(
            (&v["ok"], &v["name"]),
            (&json!(true), &json!("CollisionSet_Tutorial"))
        );
        // As `verify --json` over both names: the copy is named.
        assert_eq!(
            v["shares_content_with"],
            json!(["MiscBin.pak+CollisionSet_S01.bin"])
        );
        let r = handle(&c, "GET", "/api/objects/CollisionSet_S01.glb", b"");
        assert_eq!((r.status, r.content_type), (200, "model/gltf-binary"));
        // `all` is every layer a library has.
        let r = handle(
            &c,
            "GET",
            "/api/objects/CollisionSet_S01.glb?layers=all",
            b"",
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(
            handle(&c, "GET", "/api/verify/CollisionSet_S02", b"").status,
            404
        );
    }

    #[test]
    fn a_broken_or_empty_parameter_is_a_400_naming_it() {
        let c = catalog();
        for (url, says) in [
            ("/api/objects/$2CF7EB47.glb?layers=%ff", "layers=\"%ff\""),
            ("/api/objects/$2CF7EB47.glb?layers=%", "layers=\"%\""),
            ("/api/objects/$2CF7EB47.glb?layers=%2", "percent-encoded"),
            ("/api/objects/$2CF7EB47.glb?layers=", "layers= is empty"),
            ("/api/objects/$2CF7EB47.glb?layers", "layers= is empty"),
            ("/api/objects/$2CF7EB47.glb?layers=,", "no layer named"),
            (
                "/api/objects/$2CF7EB47.glb?layers=walls",
                "unknown layer \"walls\"",
            ),
        ] {
            let r = handle(&c, "GET", url, b"");
            assert_eq!(r.status, 400, "{url}");
            let e = json_of(&r)["error"].as_str().unwrap().to_string();
            assert!(e.contains(says), "{url}: {e}");
        }
    }

    #[test]
    fn head_is_answered_as_get() {
        let c = catalog();
        for url in [
            "/",
            "/api/objects",
            "/api/objects/$2CF7EB47.glb",
            "/api/nothing",
        ] {
            assert_eq!(
                handle(&c, "HEAD", url, b""),
                handle(&c, "GET", url, b""),
                "{url}"
            );
        }
        assert_eq!(handle(&c, "HEAD", "/api/query", b"").status, 405);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("%24DC4B0896").as_deref(), Some("$DC4B0896"));
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
