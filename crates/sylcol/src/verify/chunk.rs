//! Format-level MCOL checks on the chunk's bytes: where the POF0 table sits,
//! which words it relocates, and where those words point.

use std::collections::BTreeSet;

use sylcol_format::chunk::Chunk;
use sylcol_format::mcol::{CELL_SIZE, HEADER_SIZE, HEADER_SLOTS, Mcol, POINTER_BASE};

use super::report::Check;

/// Names of the format-level checks.
pub mod names {
    use crate::verify::report::CheckId;

    /// The POF0 table starts at 0x10 + data size.
    pub const POF0_AT: CheckId = CheckId::new("mcol.pof0.at", "POF0 table at 0x10 + data size");
    /// The relocated words in the header are exactly 0x54, 0x58, 0x5C, 0x74.
    pub const HEADER_SLOTS: CheckId = CheckId::new(
        "mcol.pof0.header_slots",
        "header slots are exactly 0x54 0x58 0x5C 0x74",
    );
    /// Slot 0x5C resolves to 0x80, the first byte after the header.
    pub const SPHERES_AT_80: CheckId =
        CheckId::new("mcol.pof0.spheres_at_80", "slot 0x5C resolves to 0x80");
    /// Relocated words point past the header and inside the data.
    pub const SLOTS_IN_DATA: CheckId =
        CheckId::new("mcol.pof0.in_data", "relocated words point inside the data");
    /// Relocations = 4 + occupied cells + list records.
    pub const SLOT_COUNT: CheckId = CheckId::new(
        "mcol.pof0.count",
        "relocations == 4 + occupied cells + records",
    );
    /// Every relocation is a header slot, a cell's +8 or a record's +4.
    pub const SLOTS_EXPLAINED: CheckId = CheckId::new(
        "mcol.pof0.explained",
        "every relocation is a header slot, A+8 or B+4",
    );
}

/// Runs the checks that read the chunk's bytes.
pub fn checks(mcol: &Mcol, bytes: &[u8]) -> Vec<Check> {
    let at = 0x10u64 + u64::from(mcol.header.data_size);
    let pof0 = usize::try_from(at)
        .ok()
        .and_then(|a| bytes.get(a..a.checked_add(4)?))
        == Some(b"POF0".as_slice());
    let mut out = vec![Check::holds(names::POF0_AT, pof0).with_note(format!("table at {at:#x}"))];
    match Chunk::parse(bytes) {
        Ok(chunk) => out.extend(slot_checks(mcol, bytes, &chunk)),
        Err(e) => out.push(Check::holds(names::HEADER_SLOTS, false).with_note(e.to_string())),
    }
    out
}

fn slot_checks(mcol: &Mcol, bytes: &[u8], chunk: &Chunk) -> Vec<Check> {
    let slots = chunk.slots(mcol.pof0_base);
    let word = |o: u32| -> Option<u32> {
        let o = o as usize;
        Some(u32::from_be_bytes(bytes.get(o..o + 4)?.try_into().ok()?))
    };
    let header: BTreeSet<u32> = slots
        .iter()
        .copied()
        .filter(|&s| s < HEADER_SIZE as u32)
        .collect();
    let expected: BTreeSet<u32> = HEADER_SLOTS.into_iter().collect();
    let both = header.intersection(&expected).count() as u64;
    let either = header.union(&expected).count() as u64;
    let spheres_at = word(0x5C).map(|w| w as u64 + POINTER_BASE as u64);

    let data_end = chunk.data_end();
    let inside = slots
        .iter()
        .filter(|&&s| {
            word(s).is_some_and(|w| {
                let t = w as u64 + POINTER_BASE as u64;
                t >= HEADER_SIZE as u64 && t < data_end
            })
        })
        .count() as u64;

    let occupied = mcol.occupied_cells();
    let want = 4 + occupied + mcol.records.len();
    let mut explained: BTreeSet<u32> = expected;
    if let Some(l) = &mcol.layout {
        for (i, c) in mcol.cells.iter().enumerate() {
            if c.record().is_some() {
                explained.insert(l.cells + (CELL_SIZE * i) as u32 + 8);
            }
        }
        explained.extend(l.records.iter().map(|&r| r + 4));
    }
    let accounted = slots.iter().filter(|s| explained.contains(s)).count() as u64;
    vec![
        Check::all(names::HEADER_SLOTS, both, either)
            .with_note(format!("header slots {header:x?}")),
        Check::holds(names::SPHERES_AT_80, spheres_at == Some(0x80))
            .with_note_opt(spheres_at.map(|t| format!("resolves to {t:#x}"))),
        Check::all(names::SLOTS_IN_DATA, inside, slots.len() as u64),
        Check::holds(names::SLOT_COUNT, slots.len() == want).with_note(format!(
            "{} relocations, 4 + {occupied} + {}",
            slots.len(),
            mcol.records.len()
        )),
        Check::all(names::SLOTS_EXPLAINED, accounted, slots.len() as u64),
    ]
}
