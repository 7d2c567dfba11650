//! IDXD / IXUD encoder: the words and bytes of a [`StringTable`], in file order.

use zerocopy::IntoBytes;
use zerocopy::byteorder::big_endian::U32;

use super::raw::{HeadRaw, PairRaw, RecordRaw};
use super::{Flavour, PoolSizeUnit, StringTable};
use crate::error::EncodeError;

/// The encoded length of `table` in bytes.
pub fn encoded_len(table: &StringTable) -> u64 {
    table.pool_offset() + table.pool.len() as u64 + table.trailer.len() as u64
}

/// Encodes a table. Refuses counts that do not fit a u32, an IXUD pool of
/// an odd number of bytes, and the unit reading on an IDXD table.
pub fn encode(table: &StringTable) -> Result<Vec<u8>, EncodeError> {
    let size_word = pool_size_word(table)?;
    let count = |what: &'static str, n: usize| {
        u32::try_from(n).map_err(|_| EncodeError::TooLarge {
            what,
            value: n as u64,
            limit: u32::MAX.into(),
        })
    };
    let n1 = count("records", table.records.len())?;
    let n2 = count("pairs", table.pairs.len())?;
    let mut out = Vec::with_capacity(encoded_len(table) as usize);
    let head = HeadRaw {
        magic: *table.flavour.magic(),
        count: U32::new(n1),
    };
    out.extend_from_slice(head.as_bytes());
    for r in &table.records {
        let raw = RecordRaw {
            hash: U32::new(r.hash),
            string: U32::new(r.string),
            p1: U32::new(r.p1),
            p2: U32::new(r.p2),
        };
        out.extend_from_slice(raw.as_bytes());
    }
    out.extend_from_slice(&n2.to_be_bytes());
    for p in &table.pairs {
        let raw = PairRaw {
            hash: U32::new(p.hash),
            first: U32::new(p.first),
            second: U32::new(p.second),
        };
        out.extend_from_slice(raw.as_bytes());
    }
    out.extend_from_slice(&size_word.to_be_bytes());
    out.extend_from_slice(&table.pool);
    out.extend_from_slice(&table.trailer);
    Ok(out)
}

fn pool_size_word(table: &StringTable) -> Result<u32, EncodeError> {
    let len = table.pool.len();
    let value = match (table.flavour, table.pool_size_unit) {
        (Flavour::Ixud, _) if len % 2 == 1 => {
            return Err(EncodeError::IxudPoolWholeUnits { bytes: len as u64 });
        }
        (Flavour::Idxd, PoolSizeUnit::Units) => {
            return Err(EncodeError::IdxdPoolSizeInBytes);
        }
        (_, PoolSizeUnit::Bytes) => len,
        (Flavour::Ixud, PoolSizeUnit::Units) => len / 2,
    };
    u32::try_from(value).map_err(|_| EncodeError::TooLarge {
        what: "pool size",
        value: value as u64,
        limit: u32::MAX.into(),
    })
}
