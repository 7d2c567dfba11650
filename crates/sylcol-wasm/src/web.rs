//! The JavaScript interface (wasm-bindgen): a [`Page`] the dropped files
//! are added to, opened, and asked.

use glam::Vec3;
use sylcol::query::Ray;
use wasm_bindgen::prelude::*;

use crate::{MemoryFolder, Session};

/// The files dropped on the page and what they hold.
#[wasm_bindgen]
#[derive(Default)]
pub struct Page {
    files: MemoryFolder,
    session: Session,
}

/// One answer of the viewer's API: status, content type and body.
#[wasm_bindgen]
pub struct Reply {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

#[wasm_bindgen]
impl Reply {
    /// The HTTP status the server would send.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The content type the server would send.
    #[wasm_bindgen(getter, js_name = contentType)]
    pub fn content_type(&self) -> String {
        self.content_type.clone()
    }

    /// The body (copied out to a `Uint8Array`).
    #[wasm_bindgen(getter)]
    pub fn body(&self) -> Vec<u8> {
        self.body.clone()
    }
}

#[wasm_bindgen]
impl Page {
    /// An empty page.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Page {
        Page::default()
    }

    /// Adds a dropped file (its folders are left off its name); it
    /// replaces a file of the same name added before.
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) {
        self.files.add(name, bytes);
    }

    /// Forgets every file and object.
    pub fn clear(&mut self) {
        *self = Page::default();
    }

    /// Opens the files added and shows their objects: the summary as JSON
    /// (`objects`, `skipped`, `errors`).
    pub fn open(&mut self) -> String {
        self.session = Session::open(&self.files);
        self.session.summary().to_string()
    }

    /// One request of the viewer's API, answered here.
    pub fn request(&self, method: &str, url: &str, body: &[u8]) -> Reply {
        let r = self.session.request(method, url, body);
        Reply {
            status: r.status,
            content_type: r.content_type.to_string(),
            body: r.body,
        }
    }

    /// `sylcol verify --json` over every file added.
    pub fn verify(&self) -> String {
        serde_json::to_string(&self.session.verify()).unwrap_or_default()
    }

    /// Casts rays (six floats each: origin, direction) at map `object`
    /// (or part `mesh` of a library) through its collider: two floats
    /// each back, the time of impact and the triangle (NaN, -1 for a
    /// miss) — for timing the collider without the JSON of the API.
    #[wasm_bindgen(js_name = castRays)]
    pub fn cast_rays(
        &self,
        object: &str,
        mesh: Option<String>,
        rays: &[f32],
        max: f32,
    ) -> Result<Vec<f32>, JsError> {
        let catalog = self.session.catalog();
        let o = catalog
            .get(object)
            .ok_or_else(|| JsError::new(&format!("no object named {object:?}")))?;
        let collider = catalog
            .collider(o, mesh.as_deref())
            .map_err(|e| JsError::new(&e.to_string()))?;
        let rays: Vec<Ray> = rays
            .chunks_exact(6)
            .map(|r| Ray::new(Vec3::new(r[0], r[1], r[2]), Vec3::new(r[3], r[4], r[5])))
            .collect();
        let hits = collider
            .cast_rays(&rays, max)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(hits
            .iter()
            .flat_map(|h| match h {
                Some(h) => [h.time_of_impact, h.triangle as f32],
                None => [f32::NAN, -1.0],
            })
            .collect())
    }
}
