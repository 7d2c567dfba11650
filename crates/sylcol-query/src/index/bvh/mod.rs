//! sylcol's own acceleration for rays: an eight-wide BVH built from the
//! mesh by the SAH ([`tree`]: the structure and its build; [`build`],
//! [`collapse`]), walked in order by the kernels' box test ([`walk`], two
//! rays at a time in a batch over a large tree: [`stream`]), with a
//! validation pass ([`check`]).

pub mod build;
pub mod check;
pub mod collapse;
pub mod shape;
pub mod stream;
pub mod tree;
pub mod walk;

#[cfg(test)]
mod tests;
