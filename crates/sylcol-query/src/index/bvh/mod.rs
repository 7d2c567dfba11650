//! sylcol's own acceleration for rays: an eight-wide BVH built from the
//! mesh by the SAH ([`tree`]: the structure and its build; [`build`],
//! [`collapse`]), walked in order by the kernels' box test ([`walk`], two
//! rays at a time in a batch over a large tree: [`stream`]), with a
//! validation pass ([`check`]).

pub mod build;
pub mod check;
pub mod collapse;
pub mod shape;
// A stream enters its AVX2-compiled loop with the proof: an `unsafe`
// call into a `#[target_feature]` function.
#[allow(unsafe_code)]
pub mod stream;
pub mod tree;
// The traversal's stack and the tree's nodes and leaves are read
// unchecked: the build makes every link and `validate` checks them; the
// stack's depth is bounded by the build (`SAFETY:` at each read).
#[allow(unsafe_code)]
pub mod walk;

// The tests call the AVX2 node step (`#[target_feature]`) with its proof.
#[cfg(test)]
#[allow(unsafe_code)]
mod tests;
