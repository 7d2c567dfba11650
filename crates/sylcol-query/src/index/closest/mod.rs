//! The nearest surface point through the grid, with what the first
//! `closest_point` builds ([`index`]): the ring search of [`search`], and
//! the exact answer for a point far from the mesh ([`far`]).

pub mod far;
pub mod index;
pub mod search;
