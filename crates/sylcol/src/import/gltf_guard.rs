//! The checks gltf 1.4 skips, made before it reads: found by fuzzing
//! (`fuzz/regressions/import_gltf/`), each a panic or an unchecked
//! overflow inside the gltf crates on a hostile file.

use std::path::Path;

use gltf::accessor::{DataType, Dimensions};

use super::types::{ImportErrorKind, MeshFormat};

/// Parses a glTF or GLB document and loads its buffers, with the checks
/// below made before gltf would trip over what they check. `base` is the
/// folder external buffers are resolved against (`None` refuses them).
pub(super) fn open(
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<(gltf::Document, Vec<gltf::buffer::Data>), ImportErrorKind> {
    let parse = |e: gltf::Error| ImportErrorKind::parse(MeshFormat::Gltf, e);
    check_glb_length(bytes)?;
    let gltf::Gltf { document, blob } =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(parse)?;
    check_position_accessors(document.as_json())?;
    check_buffer_uris(document.as_json())?;
    let document = gltf::Document::from_json(document.into_json()).map_err(parse)?;
    let buffers = gltf::import_buffers(&document, base, blob).map_err(parse)?;
    Ok((document, buffers))
}

/// A GLB's total length (bytes 8..12) must cover its own 12-byte header:
/// gltf 1.4 subtracts 12 from it unchecked (an overflow panic in checked
/// builds, a wrapped length otherwise).
fn check_glb_length(bytes: &[u8]) -> Result<(), ImportErrorKind> {
    let Some(word) = bytes.get(8..12).filter(|_| bytes.starts_with(b"glTF")) else {
        return Ok(());
    };
    let length = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    if length < 12 {
        return Err(ImportErrorKind::parse(
            MeshFormat::Gltf,
            format!(
                "GLB header at byte 8: total length {length} is shorter than the 12-byte header"
            ),
        ));
    }
    Ok(())
}

/// A buffer URI without a scheme is a relative path that gltf 1.4
/// percent-decodes and unwraps as UTF-8: a panic on `%CB` alone. Such a
/// URI is refused here, naming the buffer.
fn check_buffer_uris(root: &gltf::json::Root) -> Result<(), ImportErrorKind> {
    for (i, buffer) in root.buffers.iter().enumerate() {
        let Some(uri) = buffer.uri.as_deref().filter(|u| !u.contains(':')) else {
            continue;
        };
        if String::from_utf8(percent_decoded(uri)).is_err() {
            return Err(ImportErrorKind::parse(
                MeshFormat::Gltf,
                format!("buffers[{i}].uri {uri:?} percent-decodes to bytes that are not UTF-8"),
            ));
        }
    }
    Ok(())
}

/// `%XX` (two hex digits) replaced by its byte, everything else kept.
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|_| bytes[i] == b'%')
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// gltf-json 1.4's validation looks up every primitive's POSITION accessor
/// before checking that it exists, and panics on `"POSITION": 5` in a file
/// with two accessors: those indices are checked here first.
fn check_position_accessors(root: &gltf::json::Root) -> Result<(), ImportErrorKind> {
    use gltf::json::mesh::Semantic;
    use gltf::json::validation::Checked;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let Some(accessor) = primitive
                .attributes
                .get(&Checked::Valid(Semantic::Positions))
            else {
                continue;
            };
            if accessor.value() >= root.accessors.len() {
                return Err(ImportErrorKind::parse(
                    MeshFormat::Gltf,
                    format!(
                        "meshes[{m}].primitives[{p}].attributes.POSITION names accessor {}, \
                         but the file has {} accessors",
                        accessor.value(),
                        root.accessors.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The accessors of `primitive` that the importer reads (POSITION and the
/// indices), checked the way gltf's reader uses them: it asserts the
/// element type it expects (debug builds), panics on float indices, and
/// computes `offset + stride * (count - 1) + size` unchecked.
pub(super) fn check_accessors(primitive: &gltf::Primitive) -> Result<(), String> {
    if let Some(positions) = primitive.get(&gltf::Semantic::Positions) {
        if positions.dimensions() != Dimensions::Vec3 || positions.data_type() != DataType::F32 {
            return Err(format!(
                "POSITION accessor {} is {:?} of {:?}; glTF positions are VEC3 of FLOAT",
                positions.index(),
                positions.dimensions(),
                positions.data_type()
            ));
        }
        check_ranges(&positions, "POSITION")?;
    }
    if let Some(indices) = primitive.indices() {
        let integer = matches!(
            indices.data_type(),
            DataType::U8 | DataType::U16 | DataType::U32
        );
        if indices.dimensions() != Dimensions::Scalar || !integer {
            return Err(format!(
                "indices accessor {} is {:?} of {:?}; glTF indices are SCALAR unsigned integers",
                indices.index(),
                indices.dimensions(),
                indices.data_type()
            ));
        }
        check_ranges(&indices, "indices")?;
    }
    Ok(())
}

/// The byte ranges of an accessor (and of its sparse parts) can be
/// computed without overflow, and it holds at least one element.
fn check_ranges(accessor: &gltf::Accessor, role: &str) -> Result<(), String> {
    let what = format!("{role} accessor {}", accessor.index());
    if accessor.count() == 0 {
        return Err(format!("{what} has count 0 (glTF requires at least 1)"));
    }
    if let Some(view) = accessor.view() {
        check_range(
            &view,
            accessor.offset(),
            accessor.count(),
            accessor.size(),
            &what,
        )?;
    }
    if let Some(sparse) = accessor.sparse() {
        if sparse.count() == 0 {
            return Err(format!("{what}: sparse count 0 (glTF requires at least 1)"));
        }
        let indices = sparse.indices();
        let index_size = indices.index_type().size();
        let sparse_what = format!("{what} sparse indices");
        check_range(
            &indices.view(),
            indices.offset(),
            sparse.count(),
            index_size,
            &sparse_what,
        )?;
        let values = sparse.values();
        let values_what = format!("{what} sparse values");
        check_range(
            &values.view(),
            values.offset(),
            sparse.count(),
            accessor.size(),
            &values_what,
        )?;
    }
    Ok(())
}

/// `count` elements of `size` bytes at `offset` in `view`: the stride
/// holds an element and the end offset does not overflow.
fn check_range(
    view: &gltf::buffer::View,
    offset: usize,
    count: usize,
    size: usize,
    what: &str,
) -> Result<(), String> {
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(format!(
            "{what}: buffer view {} has stride {stride}, less than its {size}-byte elements",
            view.index()
        ));
    }
    let end = stride
        .checked_mul(count - 1)
        .and_then(|n| n.checked_add(offset))
        .and_then(|n| n.checked_add(size));
    let view_end = view.offset().checked_add(view.length());
    if end.is_none() || view_end.is_none() {
        return Err(format!(
            "{what}: {count} elements at offset {offset} (stride {stride}) in buffer view {} \
             reach past any buffer",
            view.index()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::import::{ImportOptions, MeshFormat, import_bytes};

    /// A glTF with one 36-byte zero buffer, one view and one POSITION accessor.
    fn document(accessor: &str, view: &str) -> String {
        format!(
            r#"{{"asset":{{"version":"2.0"}},
            "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{}"}}],
            "bufferViews":[{view}],
            "accessors":[{accessor}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}]}}"#,
            "A".repeat(48)
        )
    }

    fn error(accessor: &str, view: &str) -> String {
        let text = document(accessor, view);
        match import_bytes(
            text.as_bytes(),
            MeshFormat::Gltf,
            None,
            &ImportOptions::default(),
        ) {
            Err(e) => e.to_string(),
            Ok(m) => panic!("imported {} triangles", m.triangles.len()),
        }
    }

    const VIEW: &str = r#"{"buffer":0,"byteLength":36}"#;

    /// A POSITION accessor on view 0 with `count` and `component_type`.
    fn positions(count: &str, component_type: u32) -> String {
        format!(
            r#"{{"bufferView":0,"count":{count},"componentType":{component_type},"type":"VEC3","min":[0,0,0],"max":[0,0,0]}}"#
        )
    }

    #[test]
    fn a_sound_accessor_passes_the_guard() {
        let accessor = positions("3", 5126);
        // Three zero vertices and no indices: one (degenerate) triangle.
        let text = document(&accessor, VIEW);
        let mesh = import_bytes(
            text.as_bytes(),
            MeshFormat::Gltf,
            None,
            &ImportOptions::default(),
        )
        .unwrap();
        assert_eq!(mesh.triangles.len(), 1);
    }

    #[test]
    fn positions_must_be_vec3_float() {
        let accessor = positions("3", 5125);
        let e = error(&accessor, VIEW);
        assert!(e.contains("POSITION accessor 0 is Vec3 of U32"), "{e}");
    }

    #[test]
    fn count_zero_is_refused() {
        let accessor = positions("0", 5126);
        let e = error(&accessor, VIEW);
        assert!(e.contains("POSITION accessor 0 has count 0"), "{e}");
    }

    #[test]
    fn a_stride_shorter_than_an_element_is_refused() {
        let accessor = positions("3", 5126);
        let e = error(&accessor, r#"{"buffer":0,"byteLength":36,"byteStride":4}"#);
        assert!(
            e.contains("buffer view 0 has stride 4, less than its 12-byte elements"),
            "{e}"
        );
    }

    #[test]
    fn a_range_that_overflows_is_refused() {
        let accessor = positions("4611686018427387904", 5126);
        let e = error(&accessor, VIEW);
        assert!(
            e.contains("4611686018427387904 elements at offset 0 (stride 12)"),
            "{e}"
        );
    }
}
