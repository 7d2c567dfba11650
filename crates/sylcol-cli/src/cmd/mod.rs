//! One module per command.

pub mod build;
pub mod export;
pub mod info;
pub mod meta;
pub mod names;
pub mod pairs;
pub mod pak;
pub mod probe;
pub mod query;
pub mod rewrite;
pub mod serve;
pub mod verify;
pub mod view;
