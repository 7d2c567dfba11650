//! The shape rules of sylcol's BVH: how many triangles a leaf holds,
//! which meshes get a tree, and how deep a tree may grow.

use crate::kernels::packet::LANES;

/// Triangles a packet holds (a leaf of up to this many is one packet).
pub const LEAF_SIZE: usize = LANES;

/// Most packets a leaf holds; a binary node of up to this many packets'
/// triangles becomes a leaf when the SAH finds that cheaper than a split.
pub const LEAF_PACKETS: usize = 2;

/// Meshes of at most this many triangles (two packets) get no BVH from
/// `Collider::with_bvh`: their rays test both packets, all a root would
/// do after its box test. (The game's box maps have 12.)
pub const BVH_MIN_TRIANGLES: usize = 2 * LANES;

/// Meshes above this many triangles take the build's larger node cost (their
/// packets, 44 bytes a triangle, outgrow most of a Zen 4 core's 1 MiB L2
/// beside the nodes and the rest of the program).
pub const CACHED_TRIANGLES: usize = 8_000;

/// Binary depth from which splits are at the object median, which bounds
/// the tree's depth (and the traversal stack) by this plus log2 of the
/// triangle count.
pub const MEDIAN_DEPTH: usize = 40;
