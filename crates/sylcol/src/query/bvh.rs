//! sylcol's own acceleration for rays: an eight-wide bounding volume
//! hierarchy built from the mesh.
//!
//! A uniform grid loses on large meshes to memory traffic: a ray touches a
//! few cells of a packet array that grows with the triangles. A BVH's top
//! levels stay in cache. This one is built for the kernels that exist:
//!
//! - **Build**: a binary tree by binned SAH (16 bins on the triangles'
//!   centroids, all three axes, cost `area * ceil(n / 8)` per side: a leaf
//!   costs a packet test however full it is). A set of up to sixteen
//!   triangles is a leaf of one or two packets unless the SAH finds a
//!   split cheaper by more than [`NODE_COST`] of a packet test (also below
//!   eight triangles: smaller boxes spare packet tests); on a mesh of more
//!   than [`CACHED_TRIANGLES`] the cost is [`LARGE_NODE_COST`] and up to
//!   eight are always a leaf (fewer, fuller packets: less to fetch). Where the bins
//!   cannot separate the centroids, or the tree is deeper than
//!   [`MEDIAN_DEPTH`], a larger set is split at the object median.
//!   The binary tree is then collapsed into [`WIDTH`]-wide nodes (each
//!   node opens its largest child until it has eight).
//! - **Nodes** ([`Node`], 256 bytes, cache-line aligned): the eight child
//!   boxes in structure-of-arrays f32 (one AVX register a row), the exact
//!   min / max of the f32 corners below them (no rounding in space), and
//!   eight child links.
//! - **Leaves**: one or two [`Packet`]s of up to eight triangles, tested by
//!   the watertight kernel (`ray_triangle`). Every triangle is in exactly
//!   one leaf, so no mailbox is needed.
//!
//! The traversal and its conservative slab test are in `bvh_walk`;
//! [`Bvh::validate`] checks the structure (every triangle in exactly one
//! leaf, every box containing its children and triangles).

use glam::{Vec3, Vec3A};

use super::ray_triangle::{LANES, Packet, pack};
use crate::mesh::TriMesh;

/// Children per node.
pub const WIDTH: usize = 8;

/// Triangles a packet holds (a leaf of up to this many is one packet).
pub const LEAF_SIZE: usize = LANES;

/// Most packets a leaf holds; a binary node of up to this many packets'
/// triangles becomes a leaf when the SAH finds that cheaper than a split.
pub const LEAF_PACKETS: usize = 2;

/// What a split costs beside its children's packet tests (a slot in a
/// wide node, a share of its box test), against one packet test, for the
/// SAH's choice between a leaf and a split of up to 16 triangles.
/// Measured (callgrind, instructions a ray on d84a95fb / dd89a110 / 4 k /
/// 65 k sphere): 1.0, no split below 8 triangles: 1 049 / 1 383 / 1 086 /
/// 1 300; 0.5 with sets of up to 8 split as at 0.15: 971 / 1 236 / 1 040 /
/// 1 278; 0.15 for all: the same; 0.05 below 8: 959 / 1 232 / 1 057 /
/// 1 284 (the spheres lose). A packet test costs the same however few
/// of its lanes are used, so the split must shrink the boxes clearly.
const NODE_COST: f32 = 0.15;

/// The same for a mesh of more than [`CACHED_TRIANGLES`], where sets of
/// up to eight stay leaves: smaller, emptier leaves there cost more in
/// memory traffic than they save in instructions. Measured on the 65 k
/// sphere (interleaved timing, the BVH against Embree in the same run,
/// load ~3): 0.71-0.73 of Embree's speed with 0.15, 0.80-0.82 with this
/// rule (1 278 against 1 263 instructions a ray); on the 16 k sphere
/// 0.76 with 0.15, 0.79 with this rule.
const LARGE_NODE_COST: f32 = 1.0;

/// Meshes above this many triangles take [`LARGE_NODE_COST`] (their
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

/// SAH bins per axis.
const BINS: usize = 16;

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
}

impl Node {
    /// A node with every slot unused.
    fn empty() -> Self {
        let mut bounds = [[f32::INFINITY; WIDTH]; 6];
        bounds[3..].fill([f32::NEG_INFINITY; WIDTH]);
        Node {
            bounds,
            child: [NO_CHILD; WIDTH],
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

    /// Whether `b` lies inside this box.
    pub fn contains(&self, b: &Aabb) -> bool {
        self.lo.cmple(b.lo).all() && b.hi.cmple(self.hi).all()
    }

    /// Half the surface area (the SAH weight); 0 for an empty box.
    fn half_area(&self) -> f32 {
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
    depth: usize,
    /// Whether the traversal asks the cache for the children it will
    /// visit: the nodes and packets take more than [`PREFETCH_BYTES`].
    pub(crate) prefetch: bool,
}

/// A hierarchy larger than this is prefetched (`bvh_walk`); a smaller one
/// stays in the core's own caches (Zen 4: 1 MiB of L2) between rays.
pub const PREFETCH_BYTES: usize = 512 * 1024;

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

/// A node of the binary build tree.
#[derive(Debug, Clone, Copy)]
struct BinNode {
    bounds: Aabb,
    /// Leaf: `ids[first..first + count]`; inner: children `first`,
    /// `first + 1` (count 0).
    first: u32,
    count: u32,
}

/// Per triangle: its box and the centre of the box (SIMD vectors).
struct Prims {
    boxes: Vec<Box3>,
    centre: Vec<Vec3A>,
}

/// A box for the build (min / max of f32 corners, exact).
#[derive(Debug, Clone, Copy)]
struct Box3 {
    lo: Vec3A,
    hi: Vec3A,
}

impl Box3 {
    const EMPTY: Box3 = Box3 {
        lo: Vec3A::INFINITY,
        hi: Vec3A::NEG_INFINITY,
    };

    #[inline]
    fn union(self, b: Box3) -> Self {
        Box3 {
            lo: self.lo.min(b.lo),
            hi: self.hi.max(b.hi),
        }
    }

    #[inline]
    fn grow(self, p: Vec3A) -> Self {
        Box3 {
            lo: self.lo.min(p),
            hi: self.hi.max(p),
        }
    }

    /// Half the surface area; 0 for an empty box.
    #[inline]
    fn half_area(&self) -> f32 {
        let e = (self.hi - self.lo).max(Vec3A::ZERO);
        e.x * e.y + e.y * e.z + e.z * e.x
    }

    fn aabb(&self) -> Aabb {
        Aabb {
            lo: self.lo.into(),
            hi: self.hi.into(),
        }
    }
}

impl Bvh {
    /// The hierarchy over every triangle of `mesh` (indices must be in
    /// range); packet lanes left empty get the id `mesh.triangles.len()`.
    pub fn build(mesh: &TriMesh) -> Self {
        let n = mesh.triangles.len();
        let boxes: Vec<Box3> = (0..n)
            .map(|t| {
                let b = Aabb::of_triangle(&mesh.corners(t));
                Box3 {
                    lo: b.lo.into(),
                    hi: b.hi.into(),
                }
            })
            .collect();
        let centre = boxes.iter().map(|b| (b.lo + b.hi) * 0.5).collect();
        let prims = Prims { boxes, centre };
        let mut ids: Vec<u32> = (0..n as u32).collect();
        let mut tree = Vec::with_capacity(2 * n.div_ceil(LEAF_SIZE).max(1));
        if n > 0 {
            tree.push(BinNode {
                bounds: Aabb::EMPTY,
                first: 0,
                count: n as u32,
            });
            let rule = if n <= CACHED_TRIANGLES {
                Rule {
                    node_cost: NODE_COST,
                    leaf: 1,
                }
            } else {
                Rule {
                    node_cost: LARGE_NODE_COST,
                    leaf: LEAF_SIZE,
                }
            };
            split(&prims, &rule, &mut ids, &mut tree, 0, 0);
        }
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
}

/// Splits binary node `at` (whose `ids` range is set) and its children,
/// filling in their boxes.
fn split(
    p: &Prims,
    rule: &Rule,
    ids: &mut [u32],
    tree: &mut Vec<BinNode>,
    at: usize,
    depth: usize,
) {
    let (first, count) = (tree[at].first as usize, tree[at].count as usize);
    let range = &mut ids[first..first + count];
    let (mut bounds, mut centres) = (Box3::EMPTY, Box3::EMPTY);
    for &t in range.iter() {
        bounds = bounds.union(p.boxes[t as usize]);
        centres = centres.grow(p.centre[t as usize]);
    }
    tree[at].bounds = bounds.aabb();
    if count <= rule.leaf {
        return;
    }
    let plane = if depth < MEDIAN_DEPTH {
        best_plane(p, range, &centres)
    } else {
        None
    };
    if count <= LEAF_SIZE * LEAF_PACKETS {
        // A leaf of one or two packets, or a split (smaller boxes)?
        let leaf = packets_for(count);
        if plane.is_none_or(|pl| rule.node_cost + pl.cost / bounds.half_area() >= leaf) {
            return;
        }
    }
    let left_count = match plane {
        Some(pl) => pl.partition(p, range),
        None => None,
    }
    .unwrap_or_else(|| median_partition(p, range));
    let left = tree.len();
    tree.push(BinNode {
        bounds: Aabb::EMPTY,
        first: first as u32,
        count: left_count as u32,
    });
    tree.push(BinNode {
        bounds: Aabb::EMPTY,
        first: (first + left_count) as u32,
        count: (count - left_count) as u32,
    });
    tree[at].first = left as u32;
    tree[at].count = 0;
    split(p, rule, ids, tree, left, depth + 1);
    split(p, rule, ids, tree, left + 1, depth + 1);
}

/// The SAH's leaf rule for one mesh: a split's cost beside its children's
/// packet tests, and the count that is always a leaf.
struct Rule {
    node_cost: f32,
    leaf: usize,
}

/// Packet tests a side of `n` triangles costs.
fn packets_for(n: usize) -> f32 {
    n.div_ceil(LEAF_SIZE) as f32
}

/// A binned SAH plane: its cost (area times packets, both sides), axis,
/// bin boundary and the binning (lowest centroid, bins per unit).
#[derive(Debug, Clone, Copy)]
struct Plane {
    cost: f32,
    axis: usize,
    plane: usize,
    low: f32,
    scale: f32,
}

impl Plane {
    /// Partitions `ids` at this plane: the count on the left, or `None`
    /// when one side would be empty.
    fn partition(&self, p: &Prims, ids: &mut [u32]) -> Option<usize> {
        let left_of = |t: &u32| {
            let b =
                ((p.centre[*t as usize][self.axis] - self.low) * self.scale).min((BINS - 1) as f32);
            (b as usize) < self.plane
        };
        let left = partition_in_place(ids, left_of);
        (left > 0 && left < ids.len()).then_some(left)
    }
}

/// The cheapest of the binned SAH's planes over `ids`, or `None` when no
/// plane separates the centroids.
fn best_plane(p: &Prims, ids: &[u32], centres: &Box3) -> Option<Plane> {
    let clo = centres.lo;
    let extent = centres.hi - clo;
    // Bins per unit along each axis (0 where the centroids do not spread).
    let spread = extent.cmpgt(Vec3A::ZERO);
    let scale = Vec3A::select(spread, Vec3A::splat(BINS as f32) / extent, Vec3A::ZERO);
    // One pass bins all three axes.
    let mut bins = [[(Box3::EMPTY, 0usize); BINS]; 3];
    for &t in ids.iter() {
        let b = ((p.centre[t as usize] - clo) * scale).min(Vec3A::splat((BINS - 1) as f32));
        let bx = p.boxes[t as usize];
        for (axis, bins) in bins.iter_mut().enumerate() {
            let bin = &mut bins[b[axis] as usize];
            bin.0 = bin.0.union(bx);
            bin.1 += 1;
        }
    }
    let mut best: Option<(f32, usize, usize)> = None; // cost, axis, plane
    for (axis, bins) in bins.iter().enumerate() {
        if !spread.test(axis) {
            continue;
        }
        // Right-hand sweeps: area and count of bins plane.. .
        let mut right = [(0.0f32, 0usize); BINS];
        let (mut acc, mut n) = (Box3::EMPTY, 0);
        for i in (1..BINS).rev() {
            acc = acc.union(bins[i].0);
            n += bins[i].1;
            right[i] = (acc.half_area(), n);
        }
        let (mut acc, mut n) = (Box3::EMPTY, 0);
        for plane in 1..BINS {
            acc = acc.union(bins[plane - 1].0);
            n += bins[plane - 1].1;
            let (ra, rn) = right[plane];
            if n == 0 || rn == 0 {
                continue;
            }
            let cost = acc.half_area() * packets_for(n) + ra * packets_for(rn);
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, plane));
            }
        }
    }
    let (cost, axis, plane) = best?;
    Some(Plane {
        cost,
        axis,
        plane,
        low: clo[axis],
        scale: scale[axis],
    })
}

/// Moves the ids for which `pred` holds to the front; their count.
fn partition_in_place(ids: &mut [u32], pred: impl Fn(&u32) -> bool) -> usize {
    let mut left = 0;
    for i in 0..ids.len() {
        if pred(&ids[i]) {
            ids.swap(left, i);
            left += 1;
        }
    }
    left
}

/// Splits `ids` at the median centroid along the axis of widest centroid
/// spread (ties by triangle id): half on either side.
fn median_partition(p: &Prims, ids: &mut [u32]) -> usize {
    let c = ids
        .iter()
        .fold(Box3::EMPTY, |b, &t| b.grow(p.centre[t as usize]));
    let axis = (c.hi - c.lo).max_position();
    let mid = ids.len() / 2;
    ids.select_nth_unstable_by(mid, |&a, &b| {
        let (ca, cb) = (p.centre[a as usize][axis], p.centre[b as usize][axis]);
        ca.total_cmp(&cb).then(a.cmp(&b))
    });
    mid
}

/// The eight-wide hierarchy from the binary tree.
fn collapse(tree: &[BinNode], ids: &[u32], mesh: &TriMesh) -> Bvh {
    let pad = mesh.triangles.len() as u32;
    let mut bvh = Bvh {
        nodes: Vec::with_capacity(tree.len() / 4 + 1),
        packets: Vec::with_capacity(tree.len() / 2 + 1),
        depth: 0,
        prefetch: false,
    };
    if tree.is_empty() {
        return bvh;
    }
    bvh.nodes.push(Node::empty());
    let mut todo = vec![(0usize, 0usize, 1usize)]; // binary node, wide node, level
    while let Some((bin, wide, level)) = todo.pop() {
        bvh.depth = bvh.depth.max(level);
        let kids = open_children(tree, bin);
        let mut node = Node::empty();
        for (slot, &k) in kids.iter().enumerate() {
            let b = tree[k].bounds;
            for axis in 0..3 {
                node.bounds[axis][slot] = b.lo[axis];
                node.bounds[3 + axis][slot] = b.hi[axis];
            }
            node.child[slot] = if tree[k].count > 0 {
                let (first, count) = (tree[k].first as usize, tree[k].count as usize);
                let leaf = pack(&ids[first..first + count], pad, |t| {
                    mesh.corners(t as usize)
                });
                let first = bvh.packets.len() as u32;
                let more = (leaf.len() as u32 - 1) << COUNT_SHIFT;
                bvh.packets.extend(leaf);
                LEAF | more | first
            } else {
                bvh.nodes.push(Node::empty());
                let index = bvh.nodes.len() - 1;
                todo.push((k, index, level + 1));
                index as u32
            };
        }
        bvh.nodes[wide] = node;
    }
    bvh.prefetch = bvh.stats().bytes > PREFETCH_BYTES;
    bvh
}

/// The children of binary node `at` for one wide node: a leaf root is its
/// own only child; otherwise its two children, opening the inner child of
/// largest area until there are [`WIDTH`].
fn open_children(tree: &[BinNode], at: usize) -> Vec<usize> {
    if tree[at].count > 0 {
        return vec![at];
    }
    let first = tree[at].first as usize;
    let mut kids = vec![first, first + 1];
    while kids.len() < WIDTH {
        let widest = kids
            .iter()
            .enumerate()
            .filter(|(_, k)| tree[**k].count == 0)
            .max_by(|a, b| {
                let (x, y) = (tree[*a.1].bounds, tree[*b.1].bounds);
                x.half_area().total_cmp(&y.half_area())
            })
            .map(|(i, _)| i);
        let Some(i) = widest else { break };
        let k = kids.swap_remove(i);
        let first = tree[k].first as usize;
        kids.extend([first, first + 1]);
    }
    kids
}

impl super::Collider {
    /// The same collider with sylcol's own acceleration for rays and
    /// segments: an eight-wide BVH built from the mesh ([`Bvh`]), used
    /// for meshes of more than `SMALL_MESH` (64) triangles (smaller ones
    /// test every packet). Other queries still use the grid. The answers
    /// have the same exactness as the grid's (the same kernels, the same
    /// first-hit rule; "Exactness" in `docs/queries.md`).
    pub fn with_bvh(mut self) -> Self {
        self.bvh = Some(Bvh::build(&self.mesh));
        self
    }

    /// The BVH, when [`with_bvh`](super::Collider::with_bvh) built one.
    pub fn bvh(&self) -> Option<&Bvh> {
        self.bvh.as_ref()
    }
}
