//! # sylcol-wasm
//!
//! sylcol in the browser: the library compiled to `wasm32-unknown-unknown`
//! for the one-file page `sylcol.html` (`cargo html`; see
//! `docs/viewer.md`). The user's files never leave the page: they are
//! opened through the CLI's own front door (`sylcol::source`: a
//! [`MemoryFolder`] the files are dropped into, opened by
//! `Opener::objects_in`), shown through the viewer's own JSON API
//! answered in the page ([`session`], `sylcol_serve::api`), verified as
//! `sylcol verify --json` verifies them, and queried through the same
//! `Collider` (`sylcol::source::ColliderSpec`, as `sylcol query` makes it).

#![forbid(unsafe_code)]

pub mod session;
#[cfg(target_arch = "wasm32")]
mod web;

pub use session::Session;
pub use sylcol::source::MemoryFolder;
