//! The viewer's files, embedded in the binary, and the one-file pages:
//! the one `sylcol view` writes (objects embedded) and `sylcol.html`
//! (sylcol compiled to WebAssembly, `cargo html`).
//!
//! `viewer/` holds the page (`index.html`, `app.js`, `scene.js`, `draw.js`,
//! `style.css`, and `wasm.js`, the in-page back end of `sylcol.html`) and
//! three.js, vendored (`viewer/vendor/`, built from the npm package: see
//! its README). Nothing is fetched at run time.

use serde_json::{Map, json};
use sylcol::export::gltf::base64;

use crate::catalog::Catalog;

const INDEX: &str = include_str!("../viewer/index.html");
const APP: &str = include_str!("../viewer/app.js");
const DRAW: &str = include_str!("../viewer/draw.js");
const SCENE: &str = include_str!("../viewer/scene.js");
const STYLE: &str = include_str!("../viewer/style.css");
const WASM: &str = include_str!("../viewer/wasm.js");
const THREE: &str = include_str!("../viewer/vendor/three.bundle.min.js");
const THREE_LICENSE: &str = include_str!("../viewer/vendor/LICENSE");

/// The embedded file at URL path `path`: its content type and bytes.
pub fn asset(path: &str) -> Option<(&'static str, &'static [u8])> {
    Some(match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX.as_bytes()),
        "/app.js" => ("text/javascript; charset=utf-8", APP.as_bytes()),
        "/draw.js" => ("text/javascript; charset=utf-8", DRAW.as_bytes()),
        "/scene.js" => ("text/javascript; charset=utf-8", SCENE.as_bytes()),
        "/style.css" => ("text/css; charset=utf-8", STYLE.as_bytes()),
        "/vendor/three.bundle.min.js" => ("text/javascript; charset=utf-8", THREE.as_bytes()),
        "/vendor/LICENSE" => ("text/plain; charset=utf-8", THREE_LICENSE.as_bytes()),
        _ => return None,
    })
}

/// Script text safe inside an inline `<script>`: no `</` can end it early.
/// For the page's own scripts (`</` only ever appears in their strings
/// and regular expressions, where `<\/` means the same).
fn script_safe(text: &str) -> String {
    text.replace("</", "<\\/")
}

/// JSON safe inside a `<script type="application/json">` element: every
/// `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026`, and U+2028 /
/// U+2029 as `\u2028` / `\u2029`. Outside its strings JSON has none of
/// these characters, and inside them the escapes mean the same
/// characters, so the value parses back unchanged; the HTML parser then
/// sees no `</script`, `<!--` or `<script` in it, whatever names the
/// archive holds (a `<!--<script>` would otherwise put the parser in its
/// double-escaped state, and the data element would swallow the page's
/// scripts).
pub fn json_in_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The viewer as one self-contained HTML file: the page, its script and
/// style, three.js, and every object's list entry, glTF scene (every
/// layer it has) and verify report, embedded. Without a server the page
/// picks, toggles layers and casts rays with three.js's own ray cast.
pub fn standalone_html(catalog: &Catalog) -> Result<String, String> {
    let mut glb = Map::new();
    let mut verify = Map::new();
    let mut objects = Vec::new();
    for o in catalog.objects() {
        let bytes = o
            .scene(o.layers())
            .and_then(|s| s.to_glb())
            .map_err(|e| format!("{}: {e}", o.name))?;
        glb.insert(o.name.clone(), json!(base64(&bytes)));
        verify.insert(o.name.clone(), o.verify());
        objects.push(o.summary());
    }
    let data = json!({ "objects": objects, "glb": glb, "verify": verify });
    let data = serde_json::to_string(&data).map_err(|e| e.to_string())?;
    let data = json_in_script(&data);
    let data = inline(
        "script",
        r#" id="sylcol-data" type="application/json""#,
        &data,
    );
    Ok(inlined_page(&data, ""))
}

/// `sylcol.html`: the viewer as one self-contained file whose back end is
/// sylcol compiled to WebAssembly (`crates/sylcol-wasm`): `wasm` is the
/// module, inlined as base64, and `glue` the script wasm-bindgen wrote
/// for it (`--target no-modules`), run before `wasm.js` sets it up as the
/// page's back end. The user drops files on it; nothing is fetched.
pub fn wasm_html(glue: &str, wasm: &[u8]) -> String {
    let module = format!(
        "<script id=\"sylcol-wasm\" type=\"application/wasm+base64\">{}</script>",
        base64(wasm)
    );
    let scripts = format!(
        "{}\n{}\n",
        inline("script", "", glue),
        inline("script", "", WASM)
    );
    inlined_page(&module, &scripts)
}

/// An inline element `tag` holding `body`, which cannot close it early.
fn inline(tag: &str, attr: &str, body: &str) -> String {
    format!("<{tag}{attr}>\n{}\n</{tag}>", script_safe(body))
}

/// The page with its style and scripts inlined: `head` (elements, before
/// three.js) and `before_app` (elements, just before app.js) added.
fn inlined_page(head: &str, before_app: &str) -> String {
    INDEX
        .replace(
            r#"<link rel="stylesheet" href="style.css">"#,
            &inline("style", "", STYLE),
        )
        .replace(
            r#"<script src="vendor/three.bundle.min.js"></script>"#,
            &format!("{head}\n{}", inline("script", "", THREE)),
        )
        .replace(
            r#"<script src="draw.js"></script>"#,
            &inline("script", "", DRAW),
        )
        .replace(
            r#"<script src="scene.js"></script>"#,
            &inline("script", "", SCENE),
        )
        .replace(
            r#"<script src="app.js"></script>"#,
            &format!("{before_app}{}", inline("script", "", APP)),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_linked_file_is_embedded_and_inlined() {
        for link in [
            "style.css",
            "vendor/three.bundle.min.js",
            "draw.js",
            "scene.js",
            "app.js",
        ] {
            assert!(INDEX.contains(link), "{link}");
            assert!(asset(&format!("/{link}")).is_some(), "{link}");
        }
        let (catalog, _) = Catalog::new(Vec::new());
        let page = standalone_html(&catalog).unwrap();
        assert!(!page.contains(r#"src="app.js""#) && !page.contains("style.css"));
        assert!(!page.contains(r#"src="draw.js""#) && page.contains("SylcolDraw"));
        assert!(!page.contains(r#"src="scene.js""#) && page.contains("SylcolScene"));
        assert!(page.contains(r#"id="sylcol-data""#));
        let data_start = page.find(r#"type="application/json">"#).unwrap();
        let rest = &page[data_start..];
        assert!(rest.find("</script>").unwrap() > rest.find(r#""objects""#).unwrap());
    }

    #[test]
    fn the_wasm_page_inlines_the_module_and_its_back_end_before_the_app() {
        let page = wasm_html("var wasm_bindgen = 1; // </script>", b"\0asm\x01\0\0\0");
        let lower = page.to_ascii_lowercase();
        assert_eq!(lower.matches("<script").count(), 7);
        assert_eq!(lower.matches("</script>").count(), 7);
        assert!(!page.contains("<script src=") && !page.contains("href=\"style.css"));
        assert!(page.contains(
            r#"<script id="sylcol-wasm" type="application/wasm+base64">AGFzbQEAAAA=</script>"#
        ));
        let glue = page.find("var wasm_bindgen").unwrap();
        let back_end = page.find("window.SylcolBackend").unwrap();
        let app = page.find("const backend = DATA").unwrap();
        assert!(glue < back_end && back_end < app);
        assert!(page.contains("// <\\/script>"));
    }

    #[test]
    fn scripts_cannot_close_early() {
        assert_eq!(script_safe(r#"x = "</script>";"#), r#"x = "<\/script>";"#);
    }

    #[test]
    fn json_in_a_script_has_no_markup_and_parses_back() {
        let value = json!({ "name": "<!--<script>&</script>\u{2028}\u{2029}\\<" });
        let text = json_in_script(&value.to_string());
        for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!text.contains(c), "{c:?} in {text}");
        }
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    /// The text of the page's data element, up to the first `</script`
    /// (where the HTML parser ends it when it holds no `<!--`).
    fn data_block(page: &str) -> &str {
        let open = r#"<script id="sylcol-data" type="application/json">"#;
        let start = page.find(open).unwrap() + open.len();
        let len = page[start..].to_ascii_lowercase().find("</script").unwrap();
        &page[start..start + len]
    }

    #[test]
    fn a_name_with_markup_leaves_the_data_block_whole() {
        use crate::catalog::Source;
        let m = sylcol::verify::testmaps::box_map();
        let name = "<!--<script>";
        let (catalog, _) = Catalog::new(vec![Source {
            path: format!("evil/{name}.MCOL"),
            bytes: sylcol_format::mcol::encode(&m).unwrap().into(),
        }]);
        let page = standalone_html(&catalog).unwrap();
        let block = data_block(&page);
        // No `<` at all: the parser cannot leave the script data state.
        assert!(!block.contains('<'), "{block}");
        let data: serde_json::Value = serde_json::from_str(block.trim()).unwrap();
        let o = &catalog.objects()[0];
        assert_eq!(o.name, name);
        assert_eq!(data["objects"], json!([o.summary()]));
        assert_eq!(data["verify"][name], o.verify());
        assert!(data["glb"][name].as_str().unwrap().starts_with("Z2xURg"));
        // Every script after it is there, each opened and closed once.
        let lower = page.to_ascii_lowercase();
        assert_eq!(lower.matches("<script").count(), 5);
        assert_eq!(lower.matches("</script>").count(), 5);
        assert!(page.trim_end().ends_with("</html>"));
    }

    #[test]
    fn the_page_scripts_hold_no_comment_or_script_opening() {
        // What the data block is kept from holding, the page's own
        // scripts must not hold either (the HTML parser reads them too).
        for body in [APP, DRAW, SCENE, THREE, STYLE, WASM] {
            let lower = body.to_ascii_lowercase();
            assert!(!lower.contains("<!--") && !lower.contains("<script"));
        }
    }
}
