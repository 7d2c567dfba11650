//! `sniff` on an object's first bytes says what `decode_any` on the whole
//! object would: never hiding a decodable object, and for the others the
//! very same error, so commands can refuse an object without reading it.

use proptest::prelude::*;
use sylcol_format::collisionset::{CollisionSet, Endian, Record, encode};
use sylcol_format::{AnyError, DECODED_MAGICS, SNIFF_LEN, decode_any, sniff};

fn library(little: bool) -> Vec<u8> {
    let tri = Record::new("rou_a", vec![[0.0; 3]; 3], vec![[0, 1, 2]]).unwrap();
    let set = CollisionSet {
        endian: if little { Endian::Little } else { Endian::Big },
        records: vec![tri.clone(), tri],
    };
    encode(&set).unwrap()
}

/// The sniff of `data`'s first `cut` bytes agrees with `decode_any(data)`:
/// a refusal is decode_any's own error; a yes may over-approximate only
/// when the head is not the whole object (the first record's counts may
/// lie past it).
fn agrees(data: &[u8], cut: usize) -> Result<(), TestCaseError> {
    let head = &data[..cut.min(data.len())];
    match sniff(head, data.len() as u64) {
        Ok(()) if head.len() == data.len() => {
            let whole = decode_any(data);
            prop_assert!(
                !matches!(whole, Err(AnyError::Unrecognised { .. })),
                "{whole:?}"
            );
        }
        Ok(()) => {}
        Err(e) => prop_assert_eq!(Err(e), decode_any(data).map(|_| ())),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn damaged_libraries(little in any::<bool>(), at in any::<prop::sample::Index>(), xor in 1u8..=255, cut in 0usize..80) {
        let mut data = library(little);
        let i = at.index(data.len());
        data[i] ^= xor;
        agrees(&data, cut.max(16))?;
        agrees(&data, SNIFF_LEN)?;
    }

    #[test]
    fn random_bytes(data in prop::collection::vec(any::<u8>(), 0..64)) {
        agrees(&data, SNIFF_LEN)?;
    }
}

#[test]
fn every_decoded_magic_is_recognised_by_decode_any() {
    for magic in DECODED_MAGICS {
        let mut data = magic.to_vec();
        data.extend([0u8; 60]);
        assert!(sniff(&data, data.len() as u64).is_ok());
        // Recognised by its magic: decoded as that format, or invalid as it
        // (an empty IDXD table with 48 trailing zeros decodes).
        match decode_any(&data) {
            Ok(object) => assert_eq!(object.kind().name().as_bytes(), &magic[..]),
            Err(err) => assert!(matches!(err, AnyError::Invalid { .. }), "{err:?}"),
        }
    }
    assert!(
        sniff(&library(false), 1 << 30).is_ok(),
        "counts past the head"
    );
    // An empty object is no library: refused by both, the same way.
    assert_eq!(sniff(&[], 0), Err(AnyError::Empty));
    assert_eq!(decode_any(&[]).map(|_| ()), Err(AnyError::Empty));
}
