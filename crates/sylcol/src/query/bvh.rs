//! sylcol's own acceleration for rays: an eight-wide bounding volume
//! hierarchy built from the mesh.
//!
//! A uniform grid loses on large meshes to memory traffic: a ray touches a
//! few cells of a packet array that grows with the triangles. A BVH's top
//! levels stay in cache. This one is built for the kernels that exist:
//!
//! - **Build** (`bvh_build`): a binary tree by the SAH (binned, 16 bins
//!   on all three axes, for sets of more than 16 triangles; exact over the
//!   sorted centroids for smaller ones), cost `area * ceil(n / 8)` per
//!   side: a leaf costs a packet test however full it is. A set of up to
//!   sixteen triangles is a leaf of one or two packets unless the SAH finds
//!   a split clearly cheaper; on a mesh of more than [`CACHED_TRIANGLES`]
//!   up to eight are always a leaf (fewer, fuller packets: less to fetch).
//!   Where the bins cannot separate the centroids, or the tree is deeper
//!   than [`MEDIAN_DEPTH`], a larger set is split at the object median.
//!   The binary tree is then collapsed into [`WIDTH`]-wide nodes by the
//!   SAH (`bvh_collapse`: the cheapest cut of the binary tree below each
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
//! The traversal and its conservative slab test are in `bvh_walk`;
//! [`Bvh::validate`] checks the structure (every triangle in exactly one
//! leaf, every box containing its children and triangles).

use glam::Vec3;

use super::bvh_build::binary_tree;
use super::bvh_collapse::collapse;
use super::ray_triangle::{LANES, Packet};
use crate::mesh::TriMesh;

/// Children per node.
pub const WIDTH: usize = 8;

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

/// A leaf link holds its packet count less one from this bit (two bits)
/// and the index of its first packet below.
pub const COUNT_SHIFT: u32 = 29;

/// The packet index bits of a leaf link.
pub const INDEX_MASK: u32 = (1 << COUNT_SHIFT) - 1;

/// Binary depth from which splits are at the object median, which bounds
/// the tree's depth (and the traversal stack) by this plus log2 of the
/// triangle count.
pub const MEDIAN_DEPTH: usize = 40;

/// A child link with this bit set names a leaf (its packets below it:
/// [`COUNT_SHIFT`], [`INDEX_MASK`]).
pub const LEAF: u32 = 1 << 31;

/// An unused child slot (its box is empty, so no ray enters it).
pub const NO_CHILD: u32 = u32::MAX;

/// An eight-wide node: child boxes as rows lo x, lo y, lo z, hi x, hi y,
/// hi z of eight f32 each; an unused slot has lo = +inf, hi = -inf.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub struct Node {
    /// Child boxes, row by row.
    pub bounds: [[f32; WIDTH]; 6],
    /// Per child: a node index, or [`LEAF`] | (packets - 1) <<
    /// [`COUNT_SHIFT`] | first packet, or [`NO_CHILD`].
    pub child: [u32; WIDTH],
    /// Slots `0..inner` hold this node's inner children, nodes `first`,
    /// `first + 1`, ... in slot order (the build stores them side by
    /// side); the other slots hold leaves or nothing. The walk then finds
    /// an inner child's index from its slot with one addition instead of
    /// a load of `child` (about five cycles on the node step's chain;
    /// [`Bvh::validate`] checks that `child` agrees).
    pub inner: u32,
    /// The index of slot 0's node (meaningful when `inner` > 0).
    pub first: u32,
    /// When every leaf of this node is one packet (the collapse packs a
    /// node's leaves one after another in slot order): slot `inner`'s
    /// link less `inner`, so that leaf slot `s`'s link is `leaf0 + s`
    /// (wrapping), found like an inner child's without a load; else 0
    /// (the walk then reads `child`).
    pub leaf0: u32,
}

impl Node {
    /// A node with every slot unused.
    pub(super) fn empty() -> Self {
        let mut bounds = [[f32::INFINITY; WIDTH]; 6];
        bounds[3..].fill([f32::NEG_INFINITY; WIDTH]);
        Node {
            bounds,
            child: [NO_CHILD; WIDTH],
            inner: 0,
            first: 0,
            leaf0: 0,
        }
    }

    /// Child slot `i`'s box.
    pub fn child_box(&self, i: usize) -> Aabb {
        let row = |k: usize| self.bounds[k][i];
        Aabb {
            lo: Vec3::new(row(0), row(1), row(2)),
            hi: Vec3::new(row(3), row(4), row(5)),
        }
    }
}

/// An axis-aligned box of f32 corners (min / max are exact).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lowest corner.
    pub lo: Vec3,
    /// Highest corner.
    pub hi: Vec3,
}

impl Aabb {
    /// The empty box.
    pub const EMPTY: Aabb = Aabb {
        lo: Vec3::INFINITY,
        hi: Vec3::NEG_INFINITY,
    };

    /// The box of a triangle's corners.
    pub fn of_triangle(c: &[Vec3; 3]) -> Self {
        Aabb {
            lo: c[0].min(c[1]).min(c[2]),
            hi: c[0].max(c[1]).max(c[2]),
        }
    }

    /// The smallest box holding this one and `b`.
    pub fn union(&self, b: &Aabb) -> Aabb {
        Aabb {
            lo: self.lo.min(b.lo),
            hi: self.hi.max(b.hi),
        }
    }

    /// Whether `b` lies inside this box.
    pub fn contains(&self, b: &Aabb) -> bool {
        self.lo.cmple(b.lo).all() && b.hi.cmple(self.hi).all()
    }

    /// Half the surface area (the SAH weight); 0 for an empty box.
    pub(super) fn half_area(&self) -> f32 {
        let e = (self.hi - self.lo).max(Vec3::ZERO);
        e.x * e.y + e.y * e.z + e.z * e.x
    }
}

/// The hierarchy: eight-wide nodes (the root is node 0) over packets.
#[derive(Debug, Clone)]
pub struct Bvh {
    pub(crate) nodes: Vec<Node>,
    pub(crate) packets: Vec<Packet>,
    /// Levels of nodes from the root to the deepest leaf.
    pub(crate) depth: usize,
    /// Whether the traversal asks the cache for the children it will
    /// visit: the nodes and packets take more than [`PREFETCH_BYTES`].
    pub(crate) prefetch: bool,
    /// Whether a batch of rays walks it two rays at a time
    /// (`bvh_stream`): the nodes and packets take more than
    /// [`stream_bytes`].
    pub(crate) stream: bool,
}

/// A hierarchy larger than this is prefetched (`bvh_walk`); a smaller one
/// stays in the core's own caches between rays. Measured against 512 KiB
/// (interleaved pairs, sylcol against Embree robust in the same run): the
/// 4 k sphere's 269 KiB hierarchy is ~2 % faster prefetched, with ~6 %
/// more instructions; the maps (at most 86 KiB) lose by it.
pub const PREFETCH_BYTES: usize = 128 * 1024;

/// A hierarchy larger than this is walked two rays at a time by a batch
/// (`bvh_stream`) where the core's L2 size is unknown; otherwise the
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
        collapse(&tree, &ids, mesh)
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

impl super::Collider {
    /// The same collider with sylcol's own acceleration for rays and
    /// segments: an eight-wide BVH built from the mesh ([`Bvh`]). A mesh
    /// of at most `BVH_MIN_TRIANGLES` (16) triangles gets none: its rays test
    /// its two packets, which is all a tree's root would do after a box
    /// test. Above that the tree wins even where the grid path scans every
    /// packet (`SMALL_MESH`): on the 60-triangle map 2cf7eb47, 84 ns a ray
    /// against the scan's 91 (`docs/queries-log.md`, "A BVH from 17
    /// triangles"). Other queries still use
    /// the grid. The answers have the same exactness as the grid's (the
    /// same kernels, the same first-hit rule; "Exactness" in
    /// `docs/queries.md`).
    pub fn with_bvh(mut self) -> Self {
        if self.triangle_count() > BVH_MIN_TRIANGLES {
            // A small mesh's first ray may have built the same tree already.
            let built = self.small_bvh.take();
            self.bvh = Some(built.unwrap_or_else(|| Bvh::build(&self.mesh)));
        }
        self
    }

    /// The BVH, when [`with_bvh`](super::Collider::with_bvh) built one
    /// (never for a mesh of at most `BVH_MIN_TRIANGLES` (16) triangles).
    pub fn bvh(&self) -> Option<&Bvh> {
        self.bvh.as_ref()
    }
}
