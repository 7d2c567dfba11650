//! The grid sweep of `build mcol` (filled in below).

/// Prints the sweep table.
pub fn run(_filter: Option<&str>, _rays: usize, _rounds: usize) {}
