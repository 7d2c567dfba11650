//! Invariant checks with controls: every identity the seeds used to trust a
//! decode, run on any file, each beside the test that shows it could fail.
//!
//! - [`mcol`]: a map collision hull (header, cells, lists, spheres, mesh,
//!   broad phase);
//! - [`collisionset`]: the per-part collision library (walk, indices, mesh
//!   topology, families, resource ids);
//! - [`regn`]: a REGN (the assumptions of docs/formats/regn.md, its vertices);
//! - [`idxd`]: an IDXD / IXUD string table (offsets, sizes);
//! - [`orientation`]: winding and facing, for both;
//! - [`report`]: the [`Check`] every test reports.
//!
//! See `docs/verify.md` for what each check proves.

mod chunk;
pub mod collisionset;
pub mod flags;
mod geometry;
pub mod idxd;
pub mod mcol;
pub mod orientation;
pub mod regn;
pub mod report;
#[cfg(any(test, feature = "fixtures"))]
#[doc(hidden)]
pub mod testmaps;
pub mod text;

pub use report::{Check, CheckId, Control, Expect};

/// The seed used for randomised controls when none is given.
pub const DEFAULT_SEED: u64 = 0x5EED_2026;
