//! sylcol's own acceleration for rays: an eight-wide bounding volume
//! hierarchy built from the mesh.
//!
//! A uniform grid loses on large meshes to memory traffic: a ray touches a
//! few cells of a packet array that grows with the triangles. A BVH's top
//! levels stay in cache. This one is built for the kernels that exist:
//!
//! - **Build** (`build`): a binary tree by the SAH (binned, 16 bins
//!   on all three axes, for sets of more than 16 triangles; exact over the
//!   sorted centroids for smaller ones), cost `area * ceil(n / 8)` per
//!   side: a leaf costs a packet test however full it is. A set of up to
//!   sixteen triangles is a leaf of one or two packets unless the SAH finds
//!   a split clearly cheaper; on a mesh of more than [`CACHED_TRIANGLES`]
//!   up to eight are always a leaf (fewer, fuller packets: less to fetch).
//!   Where the bins cannot separate the centroids, or the tree is deeper
//!   than [`MEDIAN_DEPTH`], a larger set is split at the object median.
//!   The binary tree is then collapsed into [`WIDTH`]-wide nodes by the
//!   SAH (`collapse`: the cheapest cut of the binary tree below each
//!   node, found for the whole tree at once; a small subtree may become
//!   one leaf).
//! - **Nodes** ([`Node`], 256 bytes, cache-line aligned): the eight child
//!   boxes in structure-of-arrays f32 (one AVX register a row), the exact
//!   min / max of the f32 corners below them (no rounding in space), and
//!   eight child links; inner children first, stored side by side, so
//!   that the walk computes an inner child's index from its slot
//!   ([`Node::inner`], [`Node::first`]), and a node's single-packet
//!   leaves likewise ([`Node::leaf0`]).
//! - **Leaves**: one or two [`Packet`]s of up to eight triangles, tested by
//!   the watertight kernel (`ray_triangle`). Every triangle is in exactly
//!   one leaf, so no mailbox is needed.
//!
//! The traversal is in `walk`, its conservative slab test in
//! `kernels::slab`;
//! [`Bvh::validate`] checks the structure (every triangle in exactly one
//! leaf, every box containing its children and triangles).

use std::sync::OnceLock;

use super::build::binary_tree;
use super::collapse::collapse;
use super::planes::Slabs;
use crate::geometry::mesh::TriMesh;
use crate::kernels::node::{Aabb, COUNT_SHIFT, LEAF, NO_CHILD, Node, WIDTH};
use crate::kernels::packet::{LANES, Packet};

/// The hierarchy: eight-wide nodes (the root is node 0) over packets.
#[derive(Debug, Clone)]
pub struct Bvh {
    pub(crate) nodes: Vec<Node>,
    pub(crate) packets: Vec<Packet>,
    /// Levels of nodes from the root to the deepest leaf.
    pub(crate) depth: usize,
    /// Whether the traversal asks the cache for the children it will
    /// visit: the nodes and packets take more than [`PREFETCH_BYTES`].
    /// (Read by the x86-64 walk only: other targets have no prefetch.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) prefetch: bool,
    /// Whether a batch of rays walks it two rays at a time
    /// (`stream`): the nodes and packets take more than
    /// [`stream_bytes`].
    pub(crate) stream: bool,
    /// The packets' distance slabs for nearest points (`planes`), built
    /// on the first such query.
    pub(crate) slabs: OnceLock<Vec<Slabs>>,
}

/// A hierarchy larger than this is prefetched (`walk`); a smaller one
/// stays in the core's own caches between rays. Measured against 512 KiB
/// (interleaved pairs, sylcol against Embree robust in the same run): the
/// 4 k sphere's 269 KiB hierarchy is ~2 % faster prefetched, with ~6 %
/// more instructions; the maps (at most 86 KiB) lose by it.
pub const PREFETCH_BYTES: usize = 128 * 1024;

/// A hierarchy larger than this is walked two rays at a time by a batch
/// (`stream`) where the core's L2 size is unknown; otherwise the
/// threshold is half the L2 ([`stream_bytes`]). Its rays wait on memory,
/// and the other ray's steps fill the wait. Measured with `sylcol-bench
/// batch` (rays/s against Embree's `rtcIntersect1`, three runs each) on a
/// core with 1 MiB of L2: the 65 k sphere's 3.4 MiB hierarchy 0.80-0.89x
/// one ray at a time, 1.00-1.15x two; the 16 k sphere's 886 KiB level on
/// one thread and 0.74-0.89x -> 0.93-0.94x on two; the maps (at most 86
/// KiB) and the 1 k / 4 k spheres are slower streamed (the second ray's
/// bookkeeping costs more than the overlap gains where everything is in
/// the core's caches). On a core with 2 MiB of L2 the 16 k sphere is
/// 22-25 % faster one ray at a time (its hierarchy stays in the L2), the
/// 65 k level either way.
pub const STREAM_BYTES: usize = 512 * 1024;

/// The size above which a batch streams a hierarchy ([`STREAM_BYTES`]):
/// half this core's L2 (CPUID leaf 0x8000_0006, which Intel and AMD
/// both report), or [`STREAM_BYTES`] where it is not known. Read once.
pub fn stream_bytes() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| l2_bytes().map_or(STREAM_BYTES, |l2| l2 / 2))
}

/// The L2 cache of the core this runs on, in bytes, if the CPU says.
fn l2_bytes() -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        // Leaf 0x8000_0006 is read only when the highest extended leaf
        // reaches it (ECX bits 31..16: the L2's size in KiB).
        let top = __cpuid(0x8000_0000).eax;
        if top >= 0x8000_0006 {
            let kib = (__cpuid(0x8000_0006).ecx >> 16) as usize;
            if kib > 0 {
                return Some(kib * 1024);
            }
        }
    }
    None
}

/// What [`Bvh::stats`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BvhStats {
    /// Eight-wide nodes.
    pub nodes: usize,
    /// Leaves (one or two packets of up to eight triangles).
    pub leaves: usize,
    /// Packets in all the leaves.
    pub packets: usize,
    /// Node levels from the root to the deepest leaf.
    pub depth: usize,
    /// Triangles in all leaves.
    pub triangles: usize,
    /// Bytes of nodes and packets.
    pub bytes: usize,
}

impl Bvh {
    /// The hierarchy over every triangle of `mesh` (indices must be in
    /// range); packet lanes left empty get the id `mesh.triangles.len()`.
    pub fn build(mesh: &TriMesh) -> Self {
        let (tree, ids) = binary_tree(mesh);
        let c = collapse(&tree, &ids, mesh);
        let bytes = c.nodes.len() * size_of::<Node>() + c.packets.len() * size_of::<Packet>();
        Bvh {
            nodes: c.nodes,
            packets: c.packets,
            depth: c.depth,
            prefetch: bytes > PREFETCH_BYTES,
            stream: bytes > stream_bytes(),
            slabs: OnceLock::new(),
        }
    }

    /// Node, leaf and depth counts.
    pub fn stats(&self) -> BvhStats {
        let leaves = self
            .nodes
            .iter()
            .flat_map(|n| n.child)
            .filter(|&c| c != NO_CHILD && c & LEAF != 0)
            .count();
        let triangles = self
            .packets
            .iter()
            .map(|p| (0..LANES).filter(|&l| p.corner(0, l).x.is_finite()).count())
            .sum();
        BvhStats {
            nodes: self.nodes.len(),
            leaves,
            packets: self.packets.len(),
            depth: self.depth,
            triangles,
            bytes: self.nodes.len() * size_of::<Node>() + self.packets.len() * size_of::<Packet>(),
        }
    }

    /// Node levels from the root to the deepest leaf.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The tree's expected cost by the surface area heuristic, in the
    /// convention Embree's statistics print (`verbose=2`): each node and
    /// each packet counts once, weighted by its box's half area over the
    /// root's (the chance that a random line through the root's box
    /// crosses it). The root counts 1. Zero for an empty tree.
    pub fn sah(&self) -> BvhSah {
        let Some(root) = self.nodes.first() else {
            return BvhSah::default();
        };
        let whole = used_slots(root).fold(Aabb::EMPTY, |b, s| b.union(&root.child_box(s)));
        let scale = f64::from(whole.half_area());
        if scale <= 0.0 {
            return BvhSah::default();
        }
        let mut sah = BvhSah {
            nodes: 1.0,
            packets: 0.0,
        };
        for n in &self.nodes {
            for s in used_slots(n) {
                let weight = f64::from(n.child_box(s).half_area()) / scale;
                let link = n.child[s];
                if link & LEAF == 0 {
                    sah.nodes += weight;
                } else {
                    sah.packets += weight * f64::from(((link & !LEAF) >> COUNT_SHIFT) + 1);
                }
            }
        }
        sah
    }
}

/// The slots of `n` that hold a child.
fn used_slots(n: &Node) -> impl Iterator<Item = usize> + '_ {
    (0..WIDTH).filter(|&s| n.child[s] != NO_CHILD)
}

/// What [`Bvh::sah`] reports: the expected node tests and packet tests
/// of a random line through the root's box.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BvhSah {
    /// Nodes (eight-wide slab tests), the root's 1 included.
    pub nodes: f64,
    /// Packets (eight-lane triangle tests).
    pub packets: f64,
}
