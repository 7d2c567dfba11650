//! IDXD / IXUD checks (docs/formats/idxd.md): the counts consume the file,
//! every string offset is -1 or starts a string of the pool; and, as a
//! figure beside a control, how many records carry their string's hash.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::idxd::{Lookup, StringTable};
use sylcol_format::ipfb::make_entry_id;

use super::report::Check;

/// The check ids (docs/verify.md, "IDXD / IXUD").
pub mod names {
    use crate::verify::report::CheckId;

    /// The counts and the pool size consume the file exactly.
    pub const EXACT: CheckId = CheckId::new(
        "idxd.size.exact",
        "counts and pool size consume the file exactly",
    );
    /// Every offset is -1 or inside the pool.
    pub const IN_POOL: CheckId = CheckId::new(
        "idxd.offsets.in_pool",
        "every string offset is -1 or inside the pool",
    );
    /// Every offset inside the pool starts a string.
    pub const STARTS: CheckId = CheckId::new(
        "idxd.offsets.start",
        "every offset inside the pool starts a string",
    );
    /// Records whose hash is MakeEntryID of their string (a figure).
    pub const HASHES: CheckId = CheckId::new(
        "idxd.records.hash",
        "record hash == MakeEntryID of its string",
    );
}

/// What `verify` reports for a string table.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StringTableReport {
    /// Whether every check passed.
    pub ok: bool,
    /// The seed of the randomised control.
    pub seed: u64,
    /// The checks.
    pub checks: Vec<Check>,
}

/// Runs every string-table check.
pub fn verify(t: &StringTable, seed: u64) -> StringTableReport {
    let pool = t.pool();
    let end = t.pool_offset() + t.pool.len() as u64;
    let mut checks = vec![
        Check::holds(names::EXACT, t.trailer.is_empty()).with_note_opt(
            (!t.trailer.is_empty())
                .then(|| format!("at {end:#x}: {} bytes after the pool", t.trailer.len())),
        ),
    ];
    let words = t.offset_words();
    let (mut inside, mut starts, mut in_pool_total) = (0u64, 0u64, 0u64);
    let (mut first_outside, mut first_mid) = (None, None);
    for &(at, offset) in &words {
        match pool.lookup(offset) {
            Lookup::None => inside += 1,
            Lookup::String(_) => {
                inside += 1;
                in_pool_total += 1;
                starts += 1;
            }
            Lookup::NotAStart => {
                inside += 1;
                in_pool_total += 1;
                first_mid.get_or_insert((at, offset));
            }
            Lookup::Outside => {
                first_outside.get_or_insert((at, offset));
            }
        }
    }
    let units = pool.units();
    checks.push(
        Check::all(names::IN_POOL, inside, words.len() as u64).with_note_opt(first_outside.map(
            |(at, o)| format!("first at {at:#x}: offset {o:#x}, the pool holds {units} units"),
        )),
    );
    checks.push(
        Check::all(names::STARTS, starts, in_pool_total).with_note_opt(first_mid.map(|(at, o)| {
            format!("first at {at:#x}: offset {o:#x} is inside a string or its terminator")
        })),
    );
    checks.push(hash_check(t, seed));
    StringTableReport {
        ok: checks.iter().all(|c| c.ok),
        seed,
        checks,
    }
}

/// Records with a string whose hash is MakeEntryID of it; the control
/// compares each with a random string of the pool.
fn hash_check(t: &StringTable, seed: u64) -> Check {
    let pool = t.pool();
    let texts: Vec<String> = (0..pool.strings.len()).map(|i| pool.text(i)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x1D8D);
    let (mut held, mut total, mut control) = (0u64, 0u64, 0u64);
    for r in &t.records {
        if let Lookup::String(i) = pool.lookup(r.string) {
            total += 1;
            held += u64::from(make_entry_id(&texts[i]) == r.hash);
            let other = &texts[rng.random_range(0..texts.len())];
            control += u64::from(make_entry_id(other) == r.hash);
        }
    }
    Check::info(names::HASHES, held, total).with_control(
        "a random string of the table",
        control,
        total,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> StringTable {
        let path = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        sylcol_format::idxd::decode(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn the_fixture_tables_pass() {
        for name in ["names.idxd", "names.ixud", "bytes.ixud"] {
            let r = verify(&fixture(name), 1);
            assert!(r.ok, "{name}: {:#?}", r.checks);
            let hashes = r
                .checks
                .iter()
                .find(|c| c.id == "idxd.records.hash")
                .unwrap();
            assert_eq!(
                hashes.passed, hashes.total,
                "{name}: the writer hashes each string"
            );
        }
    }

    #[test]
    fn the_damaged_table_fails_at_its_offsets() {
        let t = fixture("damaged.idxd");
        let r = verify(&t, 1);
        let failing: Vec<(&str, &str)> = (r.checks.iter())
            .filter(|c| !c.ok)
            .map(|c| (c.id, c.note.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(failing.len(), 3, "{failing:?}");
        let at = |id: &str| failing.iter().find(|f| f.0 == id).unwrap().1.to_string();
        assert!(at("idxd.size.exact").starts_with(&format!("at {:#x}", 256 - 3)));
        assert!(
            at("idxd.offsets.start")
                .starts_with(&format!("first at {:#x}", t.record_string_offset(1)))
        );
        assert!(
            at("idxd.offsets.in_pool")
                .starts_with(&format!("first at {:#x}", t.pair_offset_word(0, 1)))
        );
    }
}
