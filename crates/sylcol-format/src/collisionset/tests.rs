//! Unit and property tests of the CollisionSet codec, on libraries built by
//! hand byte by byte.

use proptest::prelude::*;

use super::*;
use crate::error::DecodeErrorKind;

/// Writes one record word by word, the way the seed describes it.
fn raw_record(
    out: &mut Vec<u8>,
    be: bool,
    name: &[u8],
    name_len: u32,
    verts: &[[f32; 3]],
    tris: &[[u32; 3]],
) {
    let put =
        |out: &mut Vec<u8>, w: u32| out.extend(if be { w.to_be_bytes() } else { w.to_le_bytes() });
    let size = name_len + 8 + 12 * verts.len() as u32 + 12 * tris.len() as u32;
    put(out, size);
    put(out, name_len);
    let mut field = name.to_vec();
    field.resize(name_len as usize, 0);
    out.extend(field);
    put(out, verts.len() as u32);
    put(out, tris.len() as u32);
    verts.iter().flatten().for_each(|c| put(out, c.to_bits()));
    tris.iter().flatten().for_each(|&i| put(out, i));
}

const TET: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
];
const TET_TRIS: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];

fn library(be: bool) -> Vec<u8> {
    let mut out = Vec::new();
    raw_record(&mut out, be, b"rou_e101_bdy_cmesh", 24, &TET, &TET_TRIS);
    raw_record(&mut out, be, b"mob_n040_cmesh", 16, &TET[..3], &[[0, 1, 2]]);
    raw_record(
        &mut out,
        be,
        b"S14_p1_Asteroid_cmesh_05",
        32,
        &TET,
        &TET_TRIS,
    );
    out
}

#[test]
fn decodes_big_endian_library() {
    let data = library(true);
    let set = decode(&data).unwrap();
    assert_eq!(set.endian, Endian::Big);
    assert_eq!(set.records.len(), 3);
    assert_eq!(set.records[0].name(), "rou_e101_bdy_cmesh");
    assert_eq!(set.records[0].name_field.len(), 24);
    assert_eq!(set.records[1].vertices, TET[..3].to_vec());
    assert_eq!(set.records[2].triangles, TET_TRIS.to_vec());
    assert_eq!(set.vertex_count(), 11);
    assert_eq!(set.triangle_count(), 9);
    assert_eq!(
        set.offsets(),
        vec![0, 16 + 24 + 96, 16 + 24 + 96 + 16 + 16 + 48]
    );
    assert_eq!(encoded_len(&set), data.len() as u64);
    assert_eq!(encode(&set).unwrap(), data);
    let f = set.families();
    assert_eq!((f.rou, f.mob, f.rob, f.asteroid, f.other), (1, 1, 0, 1, 0));
    assert!(looks_like(&data));
}

#[test]
fn decodes_little_endian_library_only_when_big_fails() {
    let data = library(false);
    assert!(decode_as(&data, Endian::Big).is_err());
    let set = decode(&data).unwrap();
    assert_eq!(set.endian, Endian::Little);
    assert_eq!(set.records[2].name(), "S14_p1_Asteroid_cmesh_05");
    assert_eq!(encode(&set).unwrap(), data);
    assert!(looks_like(&data));
}

#[test]
fn keeps_odd_padding_and_nan_bits() {
    let mut data = Vec::new();
    let weird = [[f32::from_bits(0x7FC0_1234), -0.0, f32::MIN_POSITIVE]; 3];
    raw_record(
        &mut data,
        true,
        b"rob_f002\0junk!!",
        16,
        &weird,
        &[[0, 1, 2]],
    );
    let set = decode(&data).unwrap();
    assert_eq!(set.records[0].name(), "rob_f002");
    assert_eq!(&set.records[0].name_field[9..15], b"junk!!");
    assert_eq!(encode(&set).unwrap(), data);
}

#[test]
fn empty_input_is_refused_as_truncated_and_not_detected() {
    for endian in [Endian::Big, Endian::Little] {
        let e = decode_as(&[], endian).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.to_string().contains("truncated"), "{e}");
    }
    assert!(decode(&[]).is_err());
    assert_eq!(first_record_error(&[], 0), Some(decode(&[]).unwrap_err()));
    let none = CollisionSet {
        endian: Endian::Big,
        records: vec![],
    };
    assert!(encode(&none).is_err());
    assert!(!looks_like(&[]));
    assert!(!looks_like(b"MCOL\0\0\0\0\0\0\0\0"));
}

/// The error's offset, the field it names and what it says of it.
fn count_detail(data: &[u8]) -> (u64, &'static str, String) {
    use DecodeErrorKind as K;
    let e = decode(data).unwrap_err();
    let what = match e.kind {
        K::CollisionSetTrailingBytes { .. } => "record prefix",
        K::CollisionSetSizePastEnd { .. } | K::CollisionSetSizeMismatch { .. } => "record size",
        K::CollisionSetNameLen { .. } => "record name_len",
        K::CollisionSetTriangleIndex { .. } => "triangle index",
        _ => panic!("unexpected error {e}"),
    };
    let text = e.kind.to_string();
    let detail = text
        .strip_prefix(&format!("{what}: "))
        .expect("the field first");
    (e.offset, what, detail.to_string())
}

#[test]
fn size_word_that_desynchronises_the_walk() {
    let mut data = library(true);
    let second = 16 + 24 + 96;
    // Grow the second record's size word by 12: it no longer equals the counts.
    data[second + 3] += 12;
    assert!(
        looks_like(&data),
        "a library damaged after record 0 is still recognised"
    );
    let (offset, what, detail) = count_detail(&data);
    assert_eq!((offset, what), (second as u64, "record size"));
    assert!(detail.contains("record 1 (big-endian walk)"), "{detail}");
    assert!(detail.contains("desynchronised"), "{detail}");
}

#[test]
fn size_word_past_the_end() {
    let mut data = library(true);
    data[0] = 0x10;
    let (offset, what, detail) = count_detail(&data);
    assert_eq!((offset, what), (0, "record size"));
    assert!(detail.contains("runs past the end"), "{detail}");
}

#[test]
fn name_len_not_a_multiple_of_eight() {
    let mut data = Vec::new();
    raw_record(&mut data, true, b"rou_e010", 12, &TET, &TET_TRIS);
    let (offset, what, detail) = count_detail(&data);
    assert_eq!((offset, what), (4, "record name_len"));
    assert!(detail.contains("name_len 12"), "{detail}");
}

#[test]
fn triangle_index_out_of_range_names_record_and_corner() {
    let mut data = library(true);
    let mut bad = Vec::new();
    raw_record(
        &mut bad,
        true,
        b"rou_e303_wep_cmesh",
        24,
        &TET,
        &[[0, 1, 4]],
    );
    let at = data.len() as u64;
    data.extend(bad);
    let (offset, what, detail) = count_detail(&data);
    assert_eq!(what, "triangle index");
    assert_eq!(offset, at + 16 + 24 + 48 + 8);
    assert!(detail.contains("record 3 triangle 0 corner 2"), "{detail}");
}

#[test]
fn trailing_bytes_after_the_last_record() {
    let mut data = library(true);
    data.extend([0, 0, 0]);
    let (offset, what, detail) = count_detail(&data);
    assert_eq!((offset, what), (data.len() as u64 - 3, "record prefix"));
    assert!(detail.contains("3 trailing bytes"), "{detail}");
}

#[test]
fn truncated_inside_a_record() {
    let data = library(true);
    // Cut through the third record: its size word now runs past the end.
    let cut = &data[..data.len() - 5];
    let err = decode(cut).unwrap_err();
    assert!(matches!(
        err.kind,
        DecodeErrorKind::CollisionSetSizePastEnd { record: 2, .. }
    ));
    // A huge count with a consistent size word cannot allocate: the size
    // word is checked against the bytes left first.
    let mut huge = Vec::new();
    huge.extend(u32::MAX.to_be_bytes());
    huge.extend(16u32.to_be_bytes());
    huge.extend([0u8; 24]);
    assert!(decode(&huge).is_err());
}

#[test]
fn encoder_refuses_inconsistent_models() {
    let mut set = decode(&library(true)).unwrap();
    set.records[1].triangles[0][1] = 9;
    assert!(matches!(
        encode(&set),
        Err(e @ crate::EncodeError::CollisionSetTriangleIndex { record: 1, .. })
            if e.to_string().contains("record 1")
    ));
    set.records[1].triangles[0][1] = 1;
    set.records[1].name_field.truncate(13);
    assert!(encode(&set).is_err());
    assert!(Record::new("", vec![], vec![]).is_err());
    assert!(Record::new("a b", vec![], vec![]).is_err());
}

#[test]
fn edited_library_encodes_and_decodes() {
    let mut set = decode(&library(true)).unwrap();
    let extra = Record::new("rob_e005_bdy_cmesh", TET.to_vec(), TET_TRIS.to_vec()).unwrap();
    assert_eq!(extra.name_field.len(), 24);
    set.records.insert(1, extra);
    let i = set.position("mob_n040_cmesh").unwrap();
    assert_eq!(
        set.position("mob_n040"),
        Some(i),
        "the _cmesh suffix may be left off"
    );
    set.records.remove(i);
    set.endian = Endian::Little;
    let bytes = encode(&set).unwrap();
    let back = decode(&bytes).unwrap();
    assert_eq!(back, set);
    assert!(back.get("rob_e005_bdy_cmesh").is_some());
}

#[test]
fn name_readings() {
    let r = NameReading::parse("rou_e101_brg_01_cmesh");
    assert_eq!(r.family, Family::Rou);
    assert_eq!(r.stem, "rou_e101_brg_01");
    assert!(r.cmesh_suffix);
    assert_eq!(r.resource_id.as_deref(), Some("rou_e101"));
    assert_eq!(r.part.as_deref(), Some("brg_01"));
    assert_eq!(r.part_kind, Some(PartKind::Bridge));
    let r = NameReading::parse("rou_e901_wing_01_L");
    assert_eq!((r.part.as_deref(), r.part_kind), (Some("wing_01_L"), None));
    let r = NameReading::parse("mob_n040");
    assert_eq!((r.family, r.part.as_deref()), (Family::Mob, None));
    assert_eq!(
        NameReading::parse("rob_f001_bdy").part_kind,
        Some(PartKind::Body)
    );
    let a = NameReading::parse("S14_p1_Asteroid_cmesh_05");
    assert_eq!(a.family, Family::Asteroid);
    assert_eq!(a.stage.as_deref(), Some("S14_p1"));
    assert_eq!(a.asteroid.as_deref(), Some("05"));
    assert_eq!(a.resource_id, None);
    assert_eq!(
        NameReading::parse("S01_Asteroid_cmesh_01a")
            .asteroid
            .as_deref(),
        Some("01a")
    );
    for other in [
        "_cmesh",
        "rou_",
        "Asteroid_cmesh_01",
        "box",
        "X01_Asteroid_cmesh_1",
    ] {
        assert_eq!(NameReading::parse(other).family, Family::Other, "{other}");
    }
    for (code, kind) in [
        ("bdy", PartKind::Body),
        ("eng", PartKind::Engine),
        ("wep", PartKind::Weapon),
        ("sld", PartKind::Shield),
    ] {
        assert_eq!(PartKind::from_code(code), Some(kind));
        assert_eq!(kind.code(), code);
    }
    assert_eq!(padded_name_len(14), 16);
    assert_eq!(padded_name_len(16), 24);
    assert_eq!(padded_name_len(22), 24);
    assert_eq!(padded_name_len(24), 32);
}

fn arb_record() -> impl Strategy<Value = Record> {
    (1usize..40, 0usize..12).prop_flat_map(|(nv, nt)| {
        (
            "[a-zA-Z0-9_]{1,30}",
            proptest::collection::vec(proptest::array::uniform3(-1.0e6f32..1.0e6), nv),
            proptest::collection::vec(proptest::array::uniform3(0..nv as u32), nt),
        )
            .prop_map(|(name, v, t)| Record::new(&name, v, t).unwrap())
    })
}

proptest! {
    #[test]
    fn random_libraries_round_trip(
        records in proptest::collection::vec(arb_record(), 1..6),
        little in any::<bool>(),
    ) {
        let set = CollisionSet {
            endian: if little { Endian::Little } else { Endian::Big },
            records,
        };
        let bytes = encode(&set).unwrap();
        prop_assert_eq!(bytes.len() as u64, encoded_len(&set));
        let back = decode(&bytes).unwrap();
        prop_assert_eq!(&back, &set);
        prop_assert_eq!(encode(&back).unwrap(), bytes);
    }

    #[test]
    fn corrupted_libraries_fail_cleanly_or_stay_lossless(
        at in 0usize..400,
        xor in 1u8..=255,
        little in any::<bool>(),
    ) {
        let mut data = library(!little);
        let at = at % data.len();
        data[at] ^= xor;
        match decode(&data) {
            // A flipped float or name byte leaves a valid library: still lossless.
            Ok(set) => prop_assert_eq!(encode(&set).unwrap(), data),
            Err(e) => prop_assert!(e.offset <= data.len() as u64),
        }
    }

    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(&data);
        let _ = looks_like(&data);
    }

    /// What the whole says it looks like, every head of it may start:
    /// sniffing never hides a library (`may_start` is what keeps an
    /// archive entry from being read whole).
    #[test]
    fn every_head_of_a_library_may_start_one(
        little in any::<bool>(),
        flip in any::<Option<(prop::sample::Index, u8)>>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut data = library(!little);
        if let Some((at, xor)) = flip {
            let at = at.index(data.len());
            data[at] ^= xor;
        }
        let head = &data[..cut.index(data.len() + 1)];
        if looks_like(&data) {
            prop_assert!(may_start(head, data.len() as u64));
        }
    }
}
