//! IDXD / IXUD decoder: every count is checked against the input length
//! before anything is allocated; offsets are kept raw (see `verify`).

use zerocopy::FromBytes;

use super::raw::{HeadRaw, PAIR_SIZE, PairRaw, RECORD_SIZE, RecordRaw};
use super::{Flavour, Pair, PoolSizeUnit, Record, StringTable};
use crate::bytes::{be_u32, show_magic, slice};
use crate::error::{DecodeError, DecodeErrorKind};

/// Decodes a whole IDXD or IXUD table.
pub fn decode(data: &[u8]) -> Result<StringTable, DecodeError> {
    let head = slice(data, 0, 8, "the table header (magic, record count)")?;
    let head = HeadRaw::read_from_bytes(head).expect("8 bytes");
    let flavour = Flavour::from_magic(&head.magic).ok_or_else(|| {
        DecodeError::new(
            0u64,
            DecodeErrorKind::BadMagic {
                expected: "IDXD or IXUD".into(),
                found: show_magic(&head.magic),
            },
        )
    })?;
    let n1 = u64::from(head.count.get());
    let records_bytes = counted(data, 4, 8, n1, RECORD_SIZE, "record count")?;
    let records = <[RecordRaw]>::ref_from_bytes(records_bytes)
        .expect("a multiple of 16 bytes")
        .iter()
        .map(|r| Record {
            hash: r.hash.get(),
            string: r.string.get(),
            p1: r.p1.get(),
            p2: r.p2.get(),
        })
        .collect();
    let n2_at = 8 + RECORD_SIZE as u64 * n1;
    let n2 = u64::from(be_u32(data, n2_at, "the pair count")?);
    let pairs_bytes = counted(data, n2_at, n2_at + 4, n2, PAIR_SIZE, "pair count")?;
    let pairs = <[PairRaw]>::ref_from_bytes(pairs_bytes)
        .expect("a multiple of 12 bytes")
        .iter()
        .map(|p| Pair {
            hash: p.hash.get(),
            first: p.first.get(),
            second: p.second.get(),
        })
        .collect();
    let size_at = n2_at + 4 + PAIR_SIZE as u64 * n2;
    let size = be_u32(data, size_at, "the pool size")?;
    let pool_at = size_at + 4;
    let remaining = data.len() as u64 - pool_at;
    let (unit, len) = pool_reading(flavour, size, remaining)
        .ok_or_else(|| DecodeError::new(size_at, pool_size_problem(flavour, size, remaining)))?;
    let pool_end = pool_at + len;
    Ok(StringTable {
        flavour,
        records,
        pairs,
        pool_size_unit: unit,
        pool: data[pool_at as usize..pool_end as usize].to_vec(),
        trailer: data[pool_end as usize..].to_vec(),
    })
}

/// The `n * size` bytes at `at`, or an error at the count word `count_at`
/// when they (and the 4-byte word that must follow) run past the input.
fn counted<'a>(
    data: &'a [u8],
    count_at: u64,
    at: u64,
    n: u64,
    size: usize,
    what: &'static str,
) -> Result<&'a [u8], DecodeError> {
    let needed = n * size as u64;
    let available = (data.len() as u64).saturating_sub(at);
    if needed.saturating_add(4) > available {
        return Err(DecodeError::new(
            count_at,
            DecodeErrorKind::IdxdRecordsFit {
                what,
                count: n,
                record_size: size as u64,
                at,
                available,
            },
        ));
    }
    slice(data, at, needed, what)
}

/// Which reading of the pool size word to use: the one that ends the
/// table exactly at the end of the input (bytes first), else the first
/// that fits. IXUD pools must hold whole code units.
fn pool_reading(flavour: Flavour, size: u32, remaining: u64) -> Option<(PoolSizeUnit, u64)> {
    let size = u64::from(size);
    let candidates: &[(PoolSizeUnit, u64)] = match flavour {
        Flavour::Idxd => &[(PoolSizeUnit::Bytes, size)],
        Flavour::Ixud if size % 2 == 0 => {
            &[(PoolSizeUnit::Bytes, size), (PoolSizeUnit::Units, 2 * size)]
        }
        Flavour::Ixud => &[(PoolSizeUnit::Units, 2 * size)],
    };
    let exact = candidates.iter().find(|c| c.1 == remaining);
    exact
        .or_else(|| candidates.iter().find(|c| c.1 <= remaining))
        .copied()
}

fn pool_size_problem(flavour: Flavour, size: u32, remaining: u64) -> DecodeErrorKind {
    match flavour {
        Flavour::Idxd => DecodeErrorKind::IdxdPoolSizeFits { size, remaining },
        Flavour::Ixud => DecodeErrorKind::IxudPoolSizeFits { size, remaining },
    }
}
