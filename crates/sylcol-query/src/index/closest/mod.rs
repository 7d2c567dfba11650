//! The nearest surface point through the grid, with what the first
//! `closest_point` builds ([`index`]): the ring search of [`search`].

pub mod index;
pub mod search;
