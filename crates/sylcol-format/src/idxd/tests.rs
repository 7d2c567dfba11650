//! IDXD / IXUD: hand-laid tables, errors, text form and properties.

use proptest::prelude::*;

use super::text::{from_text, to_text};
use super::*;
use crate::error::DecodeErrorKind;

fn be(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// An IDXD table laid out by hand from the stated layout: two records
/// sharing string 0, one without a string, a pair, a 2-string pool.
fn hand_idxd() -> Vec<u8> {
    let mut d = b"IDXD".to_vec();
    d.extend(be(&[3]));
    d.extend(be(&[0xAAAA_0001, 0, 7, 8]));
    d.extend(be(&[0xAAAA_0002, 0, 9, 10]));
    d.extend(be(&[0xAAAA_0003, NO_STRING, 0, 0]));
    d.extend(be(&[1, 0xBBBB_0001, 4, NO_STRING]));
    d.extend(be(&[8]));
    d.extend(b"abc\0def\0");
    d
}

/// The same strings in IXUD, the pool size counted in 2-byte units.
fn hand_ixud(units: bool) -> Vec<u8> {
    let mut d = b"IXUD".to_vec();
    d.extend(be(&[1, 0xAAAA_0001, 4, 0, 0]));
    d.extend(be(&[0]));
    let pool: Vec<u8> = "abc\0def\0"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    d.extend(be(&[if units { 8 } else { 16 }]));
    d.extend(pool);
    d
}

#[test]
fn decodes_a_hand_laid_idxd() {
    let bytes = hand_idxd();
    let t = decode(&bytes).unwrap();
    assert_eq!(t.flavour, Flavour::Idxd);
    assert_eq!(t.records.len(), 3);
    assert_eq!(
        t.records[1],
        Record {
            hash: 0xAAAA_0002,
            string: 0,
            p1: 9,
            p2: 10
        }
    );
    assert_eq!(
        t.pairs,
        [Pair {
            hash: 0xBBBB_0001,
            first: 4,
            second: NO_STRING
        }]
    );
    assert_eq!(t.pool_offset(), 8 + 48 + 4 + 12 + 4);
    let pool = t.pool();
    assert_eq!(pool.text_at(0).as_deref(), Some("abc"));
    assert_eq!(pool.text_at(4).as_deref(), Some("def"));
    assert_eq!(pool.lookup(NO_STRING), Lookup::None);
    assert!(t.trailer.is_empty());
    assert_eq!(encode(&t).unwrap(), bytes);
    assert_eq!(encoded_len(&t), bytes.len() as u64);
    let words = t.offset_words();
    assert_eq!(words[0], (12, 0));
    assert_eq!(words[3], (8 + 48 + 4 + 4, 4));
    assert_eq!(words[4], (8 + 48 + 4 + 8, NO_STRING));
}

#[test]
fn ixud_pool_size_in_units_or_bytes() {
    for (units, unit) in [(true, PoolSizeUnit::Units), (false, PoolSizeUnit::Bytes)] {
        let bytes = hand_ixud(units);
        let t = decode(&bytes).unwrap();
        assert_eq!((t.flavour, t.pool_size_unit), (Flavour::Ixud, unit));
        assert_eq!(t.pool.len(), 16);
        // Offsets count 2-byte units: "def" starts at unit 4.
        assert_eq!(t.pool().text_at(4).as_deref(), Some("def"));
        assert_eq!(t.pool().lookup(2), Lookup::NotAStart);
        assert_eq!(encode(&t).unwrap(), bytes);
    }
}

#[test]
fn trailer_and_bad_offsets_are_kept() {
    let mut bytes = hand_idxd();
    bytes[12..16].copy_from_slice(&2u32.to_be_bytes()); // mid-string
    bytes.extend(b"xyz");
    let t = decode(&bytes).unwrap();
    assert_eq!(t.trailer, b"xyz");
    assert_eq!(t.pool().lookup(2), Lookup::NotAStart);
    assert_eq!(encode(&t).unwrap(), bytes);
    let back = from_text(&to_text(&t)).unwrap();
    assert_eq!(encode(&back).unwrap(), bytes);
}

#[test]
fn errors_name_the_offset() {
    let bad = |bytes: &[u8]| decode(bytes).unwrap_err();
    let e = bad(b"IDXX\0\0\0\0");
    assert_eq!(e.offset, 0);
    assert!(matches!(e.kind, DecodeErrorKind::BadMagic { .. }));
    // A record count far past the input fails at its word, before allocating.
    let mut d = hand_idxd();
    d[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = bad(&d);
    assert_eq!(e.offset, 4);
    assert!(
        matches!(
            e.kind,
            DecodeErrorKind::IdxdRecordsFit {
                what: "record count",
                count: 0xFFFF_FFFF,
                record_size: 16,
                at: 8,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("record count"), "{e}");
    // The pair count.
    let mut d = hand_idxd();
    d[56..60].copy_from_slice(&1000u32.to_be_bytes());
    assert_eq!(bad(&d).offset, 56);
    // The pool size.
    let mut d = hand_idxd();
    d[72..76].copy_from_slice(&9u32.to_be_bytes());
    let e = bad(&d);
    assert_eq!(e.offset, 72);
    assert!(
        matches!(e.kind, DecodeErrorKind::IdxdPoolSizeFits { size: 9, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("pool size"), "{e}");
    // An odd IXUD pool size whose unit reading does not fit either.
    let mut d = hand_ixud(false);
    d[28..32].copy_from_slice(&15u32.to_be_bytes());
    let e = bad(&d);
    assert_eq!(e.offset, 28);
    assert!(
        matches!(e.kind, DecodeErrorKind::IxudPoolSizeFits { size: 15, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("odd"), "{e}");
    // Truncations.
    for cut in [0, 3, 7, 20, 59, 74] {
        assert!(decode(&hand_idxd()[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn text_form_round_trips_and_keeps_sharing() {
    let bytes = hand_idxd();
    let t = decode(&bytes).unwrap();
    let text = to_text(&t);
    assert!(text.contains("string 0 \"abc\""), "{text}");
    assert!(
        text.contains("record AAAA0002 s0 00000009 0000000A"),
        "{text}"
    );
    assert!(text.contains("pair BBBB0001 s1 -"), "{text}");
    assert_eq!(from_text(&text).unwrap(), t);
    for units in [true, false] {
        let t = decode(&hand_ixud(units)).unwrap();
        assert_eq!(from_text(&to_text(&t)).unwrap(), t);
    }
}

#[test]
fn text_form_escapes_what_is_not_text() {
    let mut t = StringTable::new(Flavour::Idxd);
    t.pool = b"a\"b\\\n\xFF\x01\0tail\xC3".to_vec();
    let text = to_text(&t);
    assert!(text.contains(r#"string 0 "a\"b\\\n\xFF\u{01}""#), "{text}");
    assert!(text.contains(r#"tail "tail\xC3""#), "{text}");
    assert_eq!(from_text(&text).unwrap(), t);
    let mut u = StringTable::new(Flavour::Ixud);
    u.pool = vec![0xD8, 0x00, 0x00, 0x41, 0, 0];
    let text = to_text(&u);
    assert!(text.contains(r#"string 0 "\u{D800}A""#), "{text}");
    assert_eq!(from_text(&text).unwrap(), u);
}

#[test]
fn text_form_errors_name_the_line() {
    let e = from_text("format IDXD\nstring 0 \"a\"\nrecord 1 s5 0 0\n").unwrap_err();
    assert_eq!(e.line, 3);
    let e = from_text("format IDXD\nstring 1 \"a\"\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(from_text("string 0 \"a\"\n").is_err());
    assert_eq!(
        from_text("format IDXD\nstring 0 \"a\\u{0}\"")
            .unwrap_err()
            .line,
        2
    );
    assert_eq!(
        from_text("format IDXD\npool-size units").unwrap_err().line,
        2
    );
    assert_eq!(
        from_text("format IXUD\ntail \"\\xFF\"").unwrap_err().line,
        2
    );
    assert_eq!(
        from_text("format IDXD\nrecord 1 - 0\n").unwrap_err().line,
        2
    );
    assert!(from_text("format IDXD\nstring 0 \"open\n").is_err());
}

fn arb_table() -> impl Strategy<Value = StringTable> {
    let flavour = prop_oneof![Just(Flavour::Idxd), Just(Flavour::Ixud)];
    (
        flavour,
        proptest::collection::vec(proptest::collection::vec(1u8..=255, 0..6), 0..6),
        proptest::collection::vec(1u8..=255, 0..3),
        proptest::collection::vec(
            (any::<u32>(), any::<u8>(), any::<u32>(), any::<u32>()),
            0..6,
        ),
        proptest::collection::vec((any::<u32>(), any::<u8>(), any::<u8>()), 0..4),
        proptest::collection::vec(any::<u8>(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(flavour, strings, tail, records, pairs, trailer, units)| {
            let unit = flavour.unit();
            let mut t = StringTable::new(flavour);
            let mut starts = vec![NO_STRING, 1];
            for s in &strings {
                starts.push((t.pool.len() / unit) as u32);
                for &b in s {
                    t.pool.extend(std::iter::repeat_n(b, unit));
                }
                t.pool.extend(std::iter::repeat_n(0, unit));
            }
            for &b in &tail {
                t.pool.extend(std::iter::repeat_n(b, unit));
            }
            let pick = |k: u8| starts[k as usize % starts.len()];
            t.records = records
                .into_iter()
                .map(|(hash, k, p1, p2)| Record {
                    hash,
                    string: pick(k),
                    p1,
                    p2,
                })
                .collect();
            t.pairs = pairs
                .into_iter()
                .map(|(hash, a, b)| Pair {
                    hash,
                    first: pick(a),
                    second: pick(b),
                })
                .collect();
            t.trailer = trailer;
            if flavour == Flavour::Ixud && units {
                t.pool_size_unit = PoolSizeUnit::Units;
            }
            t
        })
}

proptest! {
    #[test]
    fn encode_decode_round_trips(t in arb_table()) {
        let bytes = encode(&t).unwrap();
        let back = decode(&bytes).unwrap();
        prop_assert_eq!(encode(&back).unwrap(), bytes);
        // Without a trailer the size word reads back the way it was written
        // (an empty IXUD pool is 0 bytes and 0 units alike).
        if t.trailer.is_empty() && !t.pool.is_empty() {
            prop_assert_eq!(back, t.clone());
        }
        prop_assert_eq!(from_text(&to_text(&t)).unwrap(), t);
    }

    #[test]
    fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..96), magic in 0usize..3) {
        let mut bytes = bytes;
        if magic < 2 && bytes.len() >= 4 {
            bytes[..4].copy_from_slice([b"IDXD", b"IXUD"][magic]);
        }
        if let Ok(t) = decode(&bytes) {
            prop_assert_eq!(encode(&t).unwrap(), bytes);
        }
    }
}
