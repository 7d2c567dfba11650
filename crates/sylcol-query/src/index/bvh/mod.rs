//! sylcol's own acceleration for rays: an eight-wide BVH built from the
//! mesh by the SAH ([`tree`]: the structure and its build; [`build`],
//! [`collapse`]), walked in order by the kernels' box test ([`walk`], two
//! rays at a time in a batch over a large tree: [`stream`]), with a
//! validation pass ([`check`]). The same tree answers the nearest point
//! ([`near`]) and the moving sphere ([`sweep`]) with the grid path's
//! per-triangle kernels.

pub mod build;
pub mod check;
pub mod collapse;
pub mod near;
pub(crate) mod planes;
pub mod shape;
pub mod stream;
pub mod sweep;
pub mod tree;
pub mod walk;

#[cfg(test)]
mod query_tests;
#[cfg(test)]
mod tests;
