//! # sylcol-wasm
//!
//! sylcol in the browser: the library compiled to `wasm32-unknown-unknown`
//! for the one-file page `sylcol.html` (`cargo xtask html`; see
//! `docs/viewer.md`). The user's files never leave the page: they are
//! walked as the CLI walks its arguments ([`files`]), shown through the
//! viewer's own JSON API answered in the page ([`session`],
//! `sylcol_serve::api`), verified as `sylcol verify --json` verifies
//! them, and queried through the same `Collider`.

pub mod files;
pub mod session;
#[cfg(target_arch = "wasm32")]
mod web;

pub use files::Dropped;
pub use session::Session;
