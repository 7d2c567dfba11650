//! What the fuzzers found, one test per bug, each on the minimised input
//! kept in `fuzz/regressions/<target>/`: the typed error the fixed decoder
//! gives, naming where and which invariant broke.

use sylcol::import::{ImportErrorKind, ImportOptions, MeshFormat, import_bytes, read_parts};
use sylcol_format::{DecodeErrorKind, collisionset};
use sylcol_fuzz::Target;

fn regression(target: Target, name: &str) -> Vec<u8> {
    std::fs::read(target.regressions_dir().join(name)).unwrap()
}

fn import_error(target: Target, name: &str, format: MeshFormat) -> String {
    let data = regression(target, name);
    match import_bytes(&data, format, None, &ImportOptions::default()) {
        Err(e @ ImportErrorKind::Parse { .. }) => e.to_string(),
        other => panic!("{name}: expected a parse error, got {other:?}"),
    }
}

/// A record whose name field is empty decoded, but the encoder refuses an
/// empty name field: decode -> encode failed on a file that decoded.
#[test]
fn collisionset_empty_name_field_is_refused_at_its_word() {
    let data = regression(Target::CollisionSet, "empty_name_field");
    let e = collisionset::decode(&data).unwrap_err();
    assert_eq!(e.offset, 4, "{e}");
    assert!(
        matches!(
            e.kind,
            DecodeErrorKind::CollisionSetNameLen { name_len: 0, .. }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("name_len 0 must be a non-zero multiple of 8"),
        "{e}"
    );
    assert!(!collisionset::looks_like(&data));
}

/// A REGN whose POF0 table names a slot far past the data (and the input):
/// the error gave the slot itself as its byte offset, 0xad9cf790 in a
/// 5 273-byte file (found by the mutation test, `tests/mutations.rs`). It
/// now names the POF0 entry that lists the slot.
#[test]
fn regn_pof0_slot_past_the_input_is_reported_at_its_entry() {
    let data = regression(Target::Regn, "pof0_slot_past_the_input");
    let e = sylcol_format::regn::decode(&data).unwrap_err();
    assert!(e.offset < data.len() as u64, "{e}");
    let pof0 = 0x10 + u64::from(u32::from_be_bytes(data[4..8].try_into().unwrap()));
    assert!(e.offset >= pof0 + 8, "inside the POF0 table: {e}");
    assert!(matches!(e.kind, DecodeErrorKind::Pof0NoBase { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("relocated slot 0xad9cf790 (POF0 entry"),
        "{e}"
    );
    assert!(text.contains("the slot lies outside the data"), "{e}");
    // The MCOL reader resolves the base the same way.
    let mut mcol = data.clone();
    mcol[..4].copy_from_slice(b"MCOL");
    let e = sylcol_format::mcol::decode(&mcol).unwrap_err();
    assert!(e.offset < mcol.len() as u64, "{e}");
}

/// `element vertex 777777778` with no properties: the binary parser built
/// that many empty elements from no bytes (out of memory).
#[test]
fn ply_element_count_is_checked_against_the_bytes() {
    let e = import_error(Target::Ply, "count_without_properties.ply", MeshFormat::Ply);
    assert!(
        e.contains("element `vertex` declares 777777778 items of at least 1 bytes each"),
        "{e}"
    );
    assert!(e.contains("the header ends at byte"), "{e}");
}

/// A GLB whose total length is below its 12-byte header: gltf subtracted
/// 12 from it unchecked.
#[test]
fn glb_total_length_below_the_header_is_refused() {
    let e = import_error(Target::Gltf, "glb_length_below_header", MeshFormat::Gltf);
    assert!(e.contains("GLB header at byte 8: total length 0"), "{e}");
}

/// `"POSITION": 5` with two accessors: gltf-json's validation indexed the
/// accessor list before checking the index.
#[test]
fn gltf_position_accessor_out_of_range_is_refused() {
    let e = import_error(
        Target::Gltf,
        "position_accessor_out_of_range.glb",
        MeshFormat::Gltf,
    );
    assert!(
        e.contains("meshes[0].primitives[0].attributes.POSITION names accessor 5, but the file has 2 accessors"),
        "{e}"
    );
}

/// An indices accessor of type VEC3: gltf's reader asserted the element
/// size it expected (found by the mutation test, `tests/mutations.rs`).
#[test]
fn gltf_indices_accessor_of_the_wrong_type_is_refused() {
    let data = regression(Target::Gltf, "indices_accessor_vec3.gltf");
    let e = import_bytes(&data, MeshFormat::Gltf, None, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e, ImportErrorKind::Unsupported { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "indices accessor 1 is Vec3 of U32; glTF indices are SCALAR unsigned integers"
        ),
        "{e}"
    );
}

/// `f 1//-4` with one normal defined: tobj resolved the relative index
/// to a wrapped usize and overflowed multiplying it by 3. sylcol's own OBJ
/// reader, which replaced tobj, reads only the vertex of each corner, so
/// the file imports (one degenerate triangle); the same hazard on a vertex
/// index is refused at its line.
#[test]
fn obj_relative_index_before_the_first_element_is_harmless() {
    let data = regression(Target::Obj, "relative_normal_before_first.obj");
    let mesh = import_bytes(&data, MeshFormat::Obj, None, &ImportOptions::default()).unwrap();
    assert_eq!(mesh.triangles, vec![[0, 0, 0]]);
    let e = import_bytes(
        b"v 0 1 0\nf -4 1 1\n",
        MeshFormat::Obj,
        None,
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("line 2: face corner -4 counts back past the first vertex"),
        "{e}"
    );
}

/// The glTF parts reader (`build collisionset LIBRARY.glb`) opens a
/// document through the same guarded path as the mesh importer: the inputs
/// that panicked inside gltf are refused there too.
#[test]
fn gltf_parts_reader_refuses_the_same_inputs() {
    for name in [
        "glb_length_below_header",
        "position_accessor_out_of_range.glb",
        "indices_accessor_vec3.gltf",
    ] {
        let data = regression(Target::Gltf, name);
        assert!(read_parts(&data, None).is_err(), "{name}");
    }
}

/// A buffer URI without a scheme that percent-decodes to bytes that are
/// not UTF-8: gltf unwrapped the decoding inside `import_buffers`.
#[test]
fn gltf_buffer_uri_that_is_not_utf8_is_refused() {
    let e = import_error(Target::Gltf, "buffer_uri_not_utf8.gltf", MeshFormat::Gltf);
    assert!(
        e.contains("buffers[0].uri") && e.contains("percent-decodes to bytes that are not UTF-8"),
        "{e}"
    );
    let data = regression(Target::Gltf, "buffer_uri_not_utf8.gltf");
    assert!(read_parts(&data, None).is_err());
}
