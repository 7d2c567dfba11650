//! The checks of issue 14's formats: REGN and the IDXD / IXUD string
//! tables. Both decoders keep every byte, so both round trips are
//! byte-identical; the reports (`info`, `verify`) run on whatever decodes.

use sylcol::report::idxd::StringTableInfo;
use sylcol::report::regn::RegnInfo;
use sylcol_format::idxd::{self, Lookup};
use sylcol_format::regn;

use crate::format::{assert_identical, refused_inside};
use crate::{Outcome, assert_same};

/// The seed of `verify`'s randomised controls in the checks.
const SEED: u64 = 1;

/// REGN: decode, encode (byte-identical), decode again; the sections, the
/// assumptions, `info` and `verify` read every decoded file without
/// panicking, and each placed section lies inside the data.
pub(crate) fn regn(data: &[u8]) -> Outcome {
    let first = match regn::decode(data) {
        Ok(r) => r,
        Err(e) => return refused_inside(&e, data, "REGN"),
    };
    for s in first.sections() {
        if let (Some(target), Some(span)) = (s.target, s.span) {
            assert!(
                target + span <= first.data_end(),
                "REGN section {} ({target:#x} + {span}) runs past the data end {:#x}",
                s.index,
                first.data_end()
            );
            assert!(
                first.section_bytes(&s).is_some(),
                "placed section {}",
                s.index
            );
        }
    }
    if let (Some(s), Some(points)) = (first.vertex_section(), first.vertices()) {
        assert_eq!(points.len(), usize::from(s.count), "REGN vertex count");
    }
    let _ = RegnInfo::of("fuzz", data.len(), &first);
    let _ = sylcol::verify::regn::verify(&first, SEED);
    let bytes =
        regn::encode(&first).unwrap_or_else(|e| panic!("a decoded REGN fails to encode: {e}"));
    assert_identical(&bytes, data, "REGN");
    let again =
        regn::decode(&bytes).unwrap_or_else(|e| panic!("a re-encoded REGN fails to decode: {e}"));
    assert_same(&first, &again, "REGN");
    Outcome::Decoded
}

/// IDXD / IXUD: decode, encode (byte-identical, `encoded_len` exact),
/// decode again; the text form builds back to the same bytes; every
/// string offset looks up without panicking, and a string it finds lies
/// inside the pool.
pub(crate) fn idxd(data: &[u8]) -> Outcome {
    let first = match idxd::decode(data) {
        Ok(t) => t,
        Err(e) => return refused_inside(&e, data, "IDXD"),
    };
    let pool = first.pool();
    for (at, offset) in first.offset_words() {
        assert!(at + 4 <= data.len() as u64, "offset word {at:#x} outside");
        if let Lookup::String(i) = pool.lookup(offset) {
            assert!(
                pool.strings[i].end <= first.pool.len(),
                "string past the pool"
            );
            let _ = pool.text(i);
        }
    }
    let _ = StringTableInfo::of("fuzz", data.len(), &first);
    let _ = sylcol::verify::idxd::verify(&first, SEED);
    let bytes =
        idxd::encode(&first).unwrap_or_else(|e| panic!("a decoded table fails to encode: {e}"));
    assert_eq!(bytes.len() as u64, idxd::encoded_len(&first), "encoded_len");
    assert_identical(&bytes, data, "IDXD");
    let again =
        idxd::decode(&bytes).unwrap_or_else(|e| panic!("a re-encoded table fails to decode: {e}"));
    assert_same(&first, &again, "IDXD");
    let text = idxd::text::to_text(&first);
    let built = idxd::text::from_text(&text)
        .unwrap_or_else(|e| panic!("the text form of a decoded table fails to build: {e:?}"));
    let rebuilt = idxd::encode(&built).expect("a built table encodes");
    assert_identical(&rebuilt, data, "IDXD text form");
    Outcome::Decoded
}
