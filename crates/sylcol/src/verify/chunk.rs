//! Format-level MCOL checks on the chunk's bytes: where the POF0 table sits.

use sylcol_format::mcol::Mcol;

use super::report::Check;

/// Names of the format-level checks.
pub mod names {
    /// The POF0 table starts at 0x10 + data size.
    pub const POF0_AT: &str = "POF0 table at 0x10 + data size";
}

/// Runs the checks that read the chunk's bytes.
pub fn checks(mcol: &Mcol, bytes: &[u8]) -> Vec<Check> {
    let at = 0x10u64 + u64::from(mcol.header.data_size);
    let pof0 = usize::try_from(at)
        .ok()
        .and_then(|a| bytes.get(a..a.checked_add(4)?))
        == Some(b"POF0".as_slice());
    vec![Check::holds(names::POF0_AT, pof0).with_note(format!("table at {at:#x}"))]
}
