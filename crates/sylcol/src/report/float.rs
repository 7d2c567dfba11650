//! Floats read from a file, as JSON: a number when finite, else the text
//! Rust prints for it, `"NaN"`, `"inf"` or `"-inf"`. JSON has no such
//! numbers, and serde_json would write `null`, which a schema saying
//! "number" does not allow and a reader cannot tell from a missing value.
//!
//! A field holding a file's raw float (a header's box, extent, cell size)
//! is serialised with `#[serde(serialize_with = "float::vec3")]` and
//! described with `#[schemars(with = "[float::FileF32; 3]")]`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serializer;
use serde::ser::SerializeTuple;

/// One f32 from a file: a number, or `"NaN"`, `"inf"`, `"-inf"`.
pub struct FileF32;

impl JsonSchema for FileF32 {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "FileF32".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A float as stored: a number, or \"NaN\", \"inf\" or \"-inf\" for a value JSON cannot hold.",
            "anyOf": [
                { "type": "number", "format": "float" },
                { "type": "string", "enum": ["NaN", "inf", "-inf"] }
            ]
        })
    }
}

/// Serialises three floats as [`FileF32`]s.
pub fn vec3<S: Serializer>(v: &[f32; 3], s: S) -> Result<S::Ok, S::Error> {
    let mut t = s.serialize_tuple(3)?;
    for &x in v {
        if x.is_finite() {
            t.serialize_element(&x)?;
        } else {
            // "NaN", "inf" or "-inf": what Rust's Display (and the text
            // output) prints.
            t.serialize_element(&x.to_string())?;
        }
    }
    t.end()
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct Row(#[serde(serialize_with = "super::vec3")] [f32; 3]);

    #[test]
    fn non_finite_floats_are_text_never_null() {
        let j = serde_json::to_string(&Row([1.5, f32::NAN, f32::NEG_INFINITY])).unwrap();
        assert_eq!(j, r#"[1.5,"NaN","-inf"]"#);
        let j = serde_json::to_string(&Row([f32::INFINITY, -0.0, 3e38])).unwrap();
        assert_eq!(j, r#"["inf",-0.0,3e+38]"#);
    }
}
