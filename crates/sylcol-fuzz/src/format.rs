//! The checks of the binary formats' targets (sylcol-format's decoders).

use std::io::{BufReader, Read};

use sylcol_format::collisionset;
use sylcol_format::ipfb::Index;
use sylcol_format::ipfb::z1;
use sylcol_format::{DecodeError, mcol, pof0, probe};

use crate::{Outcome, assert_same};

pub(crate) fn refused(e: &DecodeError) -> Outcome {
    Outcome::refused(&e.kind)
}

/// The refusal of `data` by the `what` decoder, whose error must name an
/// offset inside the input.
pub(crate) fn refused_inside(e: &DecodeError, data: &[u8], what: &str) -> Outcome {
    assert!(
        e.offset <= data.len() as u64,
        "{what} error offset {:#x} past the {}-byte input: {e}",
        e.offset,
        data.len()
    );
    refused(e)
}

/// Panics naming the first byte where `again` differs from `input`.
pub(crate) fn assert_identical(again: &[u8], input: &[u8], what: &str) {
    if again != input {
        let at = again
            .iter()
            .zip(input)
            .position(|(a, b)| a != b)
            .unwrap_or(again.len().min(input.len()));
        panic!(
            "{what}: decode -> encode is not byte-identical: first difference at byte {at:#x} \
             ({} bytes in, {} bytes out)",
            input.len(),
            again.len()
        );
    }
}

/// MCOL: the encoder reproduces every decoded file byte for byte.
pub(crate) fn mcol(data: &[u8]) -> Outcome {
    let first = match mcol::decode(data) {
        Ok(m) => m,
        Err(e) => return refused_inside(&e, data, "MCOL"),
    };
    let bytes =
        mcol::encode(&first).unwrap_or_else(|e| panic!("a decoded MCOL fails to encode: {e}"));
    assert_identical(&bytes, data, "MCOL");
    let again =
        mcol::decode(&bytes).unwrap_or_else(|e| panic!("a re-encoded MCOL fails to decode: {e}"));
    assert_same(&first, &again, "MCOL");
    Outcome::Decoded
}

/// POF0: a table framed (input starting with `POF0`) or bare. The slots
/// decoded encode again (shortest widths), decode to the same slots, and
/// that canonical encoding is a fixed point: a table written with the
/// shortest widths rewrites byte-identical. (Wider entries than needed
/// decode to the same slots; MCOL keeps such a table verbatim.)
pub(crate) fn pof0(data: &[u8]) -> Outcome {
    let table = if data.starts_with(pof0::MAGIC) {
        match pof0::read_framed(data, 0) {
            Ok((table, end)) => {
                assert_eq!(end, 8 + table.len() as u64, "POF0 framing end");
                table
            }
            Err(e) => return refused(&e),
        }
    } else {
        data
    };
    let slots = match pof0::decode_entries(table) {
        Ok(s) => s,
        Err(e) => return refused(&e),
    };
    let wide: Vec<u64> = slots.iter().map(|&s| u64::from(s)).collect();
    let encoded = pof0::encode_entries(&wide)
        .unwrap_or_else(|e| panic!("decoded POF0 slots fail to encode: {e}"));
    assert_eq!(encoded.len() % 4, 0, "POF0 table not padded to 4");
    let again = pof0::decode_entries(&encoded).expect("a re-encoded POF0 table decodes");
    assert_eq!(
        again, slots,
        "POF0: decode -> encode -> decode changed the slots"
    );
    let twice = pof0::encode_entries(&wide).expect("encodes again");
    assert_identical(&twice, &encoded, "POF0 (canonical table)");
    let framed = pof0::frame(&encoded);
    let (inner, _) = pof0::read_framed(&framed, 0).expect("a framed table reads back");
    assert_eq!(inner, &encoded[..], "POF0 framing round trip");
    Outcome::Decoded
}

/// CollisionSet: either byte order; byte-identical re-encoding; errors
/// name an offset inside the input.
pub(crate) fn collisionset(data: &[u8]) -> Outcome {
    let _ = sylcol_format::Kind::detect(data);
    let first = match collisionset::decode(data) {
        Ok(set) => set,
        Err(e) => return refused_inside(&e, data, "CollisionSet"),
    };
    for record in &first.records {
        let _ = (record.name(), record.reading());
    }
    let _ = (first.families(), first.offsets());
    let bytes = collisionset::encode(&first)
        .unwrap_or_else(|e| panic!("a decoded CollisionSet fails to encode: {e}"));
    assert_eq!(
        bytes.len() as u64,
        collisionset::encoded_len(&first),
        "encoded_len"
    );
    assert_identical(&bytes, data, "CollisionSet");
    let again = collisionset::decode(&bytes)
        .unwrap_or_else(|e| panic!("a re-encoded CollisionSet fails to decode: {e}"));
    assert_same(&first, &again, "CollisionSet");
    Outcome::Decoded
}

/// IPFB index: the entries read encode and parse back to the same
/// entries; an index without problems whose entry count fills the file
/// exactly rewrites byte-identical.
pub(crate) fn ipfb_index(data: &[u8]) -> Outcome {
    let first = match Index::parse(data) {
        Ok(index) => index,
        Err(e) => return refused(&e),
    };
    for e in &first.entries {
        let found = first
            .find(e.hash)
            .expect("every entry read is found by its hash");
        assert_eq!(found.hash, e.hash);
    }
    let bytes = Index::encode(&first.entries);
    let again =
        Index::parse(&bytes).unwrap_or_else(|e| panic!("a re-encoded index fails to parse: {e}"));
    assert_eq!(
        again.entries, first.entries,
        "IPFB index: parse -> encode -> parse changed the entries"
    );
    let exact = first.problems.is_empty()
        && first.declared_count as usize == first.entries.len()
        && data.len() == bytes.len();
    if exact {
        assert_identical(&bytes, data, "IPFB index");
    }
    Outcome::Decoded
}

/// Z1: what inflates has the declared size and Adler-32, inflates the same
/// through a small-buffered stream, and survives compress -> inflate.
pub(crate) fn z1(data: &[u8]) -> Outcome {
    let streamed = inflate_in_small_reads(data);
    let out = match z1::decompress(data) {
        Ok(out) => out,
        Err(e) => {
            assert!(
                streamed.is_err(),
                "Z1: the small-buffered stream inflates what the whole-entry reader refuses ({e})"
            );
            assert!(
                e.offset <= data.len() as u64,
                "Z1 error offset {:#x} past the input: {e}",
                e.offset
            );
            return refused(&e);
        }
    };
    assert_eq!(
        streamed.as_deref().ok(),
        Some(&out[..]),
        "Z1: streamed and whole inflate differ"
    );
    let header =
        z1::Z1Header::parse(data, data.len() as u64).expect("header of an entry that inflated");
    assert_eq!(out.len() as u64, u64::from(header.size), "Z1 declared size");
    assert_eq!(z1::adler32(&out), header.adler, "Z1 Adler-32");
    let again = z1::compress(&out, 1).expect("inflated bytes compress");
    assert_eq!(
        z1::decompress(&again).expect("re-compressed entry inflates"),
        out,
        "Z1 round trip"
    );
    Outcome::Decoded
}

/// The entry through [`z1::Z1Reader`] fed 7 bytes at a time.
fn inflate_in_small_reads(data: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let header = z1::Z1Header::parse(data, data.len() as u64)?;
    let inner = BufReader::with_capacity(7, &data[12..]);
    let mut out = Vec::new();
    z1::Z1Reader::new(inner, header, 0)
        .read_to_end(&mut out)
        .map_err(z1::into_decode_error)?;
    Ok(out)
}

/// Any POF0-relocated chunk: what `sylcol probe` reads.
pub(crate) fn chunk(data: &[u8]) -> Outcome {
    let _ = sylcol_format::Kind::detect(data);
    match probe::probe(data) {
        Ok(p) => {
            assert!(
                p.slots.len() <= data.len(),
                "more relocated slots than bytes"
            );
            Outcome::Decoded
        }
        Err(e) => refused(&e),
    }
}
