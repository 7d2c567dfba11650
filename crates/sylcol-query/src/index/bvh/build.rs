//! The BVH's build: a binary tree over the triangles by the surface area
//! heuristic ([`binary_tree`]), which `collapse` turns into
//! eight-wide nodes.
//!
//! - **Large sets** (more than [`SMALL_SET`] triangles): binned SAH, 16
//!   bins on the centroids, all three axes in one pass, cost `area *
//!   ceil(n / 8)` per side (a leaf costs a packet test however full it
//!   is). Where the bins cannot separate the centroids, or the tree is
//!   deeper than [`MEDIAN_DEPTH`], the set is split at the object median.
//! - **Small sets** (up to [`SMALL_SET`], a leaf's most): the exact SAH,
//!   every split of the centroids sorted along each axis. Every binned
//!   plane is one of these splits, so the exact sweep never finds a
//!   dearer split than the bins, and for a few triangles it is far cheaper
//!   than sweeping 3 x 16 bins. The set is a leaf of one or two packets
//!   unless the best split is cheaper by more than the rule's node cost
//!   ([`NODE_COST`], [`LARGE_NODE_COST`]).
//! - **Bookkeeping**: the triangles' boxes live in one array permuted
//!   with the ids (sequential access, no centroid array: a centroid is
//!   `lo + hi`, twice the centre, which orders and bins alike); a child's
//!   box comes from its parent's sweep and its centroids' box from the
//!   partition pass, so no node walks its triangles twice.

use glam::Vec3A;

use super::shape::{CACHED_TRIANGLES, LEAF_PACKETS, LEAF_SIZE, MEDIAN_DEPTH};
use crate::geometry::mesh::TriMesh;
use crate::kernels::node::Aabb;

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

/// SAH bins per axis (a power of two: a bin index is masked).
const BINS: usize = 16;

/// Sets of at most this many triangles (a leaf's most) are split by the
/// exact SAH over their sorted centroids instead of the bins.
const SMALL_SET: usize = LEAF_SIZE * LEAF_PACKETS;

/// A node of the binary build tree.
#[derive(Debug, Clone, Copy)]
pub(super) struct BinNode {
    /// The box of its triangles.
    pub bounds: Aabb,
    /// Leaf: `ids[first..first + count]`; inner: children `first`,
    /// `first + 1` (count 0).
    pub first: u32,
    /// Triangles of a leaf; 0 for an inner node.
    pub count: u32,
}

/// The binary tree over every triangle of `mesh` and the triangle ids in
/// leaf order (each leaf's ids are a range of them).
pub(super) fn binary_tree(mesh: &TriMesh) -> (Vec<BinNode>, Vec<u32>) {
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
    let (mut bounds, mut centres) = (Box3::EMPTY, Box3::EMPTY);
    for b in &boxes {
        bounds = bounds.union(*b);
        centres = centres.grow(b.centroid());
    }
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
    let mut b = Builder {
        boxes,
        ids: (0..n as u32).collect(),
        // A binary tree over n leaves has at most 2 n - 1 nodes.
        tree: Vec::with_capacity(2 * n),
        rule,
    };
    if n > 0 {
        b.tree.push(BinNode {
            bounds: Aabb::EMPTY,
            first: 0,
            count: n as u32,
        });
        b.split(0, bounds, centres, 0);
    }
    (b.tree, b.ids)
}

/// The SAH's leaf rule for one mesh: a split's cost beside its children's
/// packet tests, and the count that is always a leaf.
struct Rule {
    node_cost: f32,
    leaf: usize,
}

/// The build's state: the boxes and ids in their current order, the tree.
struct Builder {
    boxes: Vec<Box3>,
    ids: Vec<u32>,
    tree: Vec<BinNode>,
    rule: Rule,
}

/// A split set: the left count (the left side first in the arrays), the
/// two sides' boxes and their centroids' boxes.
struct Halves {
    left: usize,
    bounds: [Box3; 2],
    centres: [Box3; 2],
}

impl Builder {
    /// Splits binary node `at` (whose range is set; `bounds` and
    /// `centres` are its triangles' boxes and centroids) and its children.
    fn split(&mut self, at: usize, bounds: Box3, centres: Box3, depth: usize) {
        let (first, count) = (self.tree[at].first as usize, self.tree[at].count as usize);
        self.tree[at].bounds = bounds.aabb();
        if count <= self.rule.leaf {
            return;
        }
        if count <= SMALL_SET {
            self.small_subtree(at, first, count, bounds, depth);
            return;
        }
        let halves = {
            let range = first..first + count;
            let plane = if depth < MEDIAN_DEPTH {
                best_plane(&self.boxes[range], &centres)
            } else {
                None
            };
            match plane.and_then(|(_, pl)| self.partition(first, count, &pl)) {
                Some(h) => h,
                None => self.median_partition(first, count, &centres),
            }
        };
        let left = self.tree.len();
        let sides = [
            (first, halves.left),
            (first + halves.left, count - halves.left),
        ];
        for (start, n) in sides {
            self.tree.push(BinNode {
                bounds: Aabb::EMPTY,
                first: start as u32,
                count: n as u32,
            });
        }
        self.tree[at].first = left as u32;
        self.tree[at].count = 0;
        let [lb, rb] = halves.bounds;
        let [lc, rc] = halves.centres;
        self.split(left, lb, lc, depth + 1);
        self.split(left + 1, rb, rc, depth + 1);
    }

    /// Partitions the range at a binned plane; `None` (the range
    /// reordered, still the same set) should a side be empty, which the
    /// choice of the plane between occupied bins rules out.
    fn partition(&mut self, first: usize, count: usize, pl: &Plane) -> Option<Halves> {
        let range = first..first + count;
        let (boxes, ids) = (&mut self.boxes[range.clone()], &mut self.ids[range]);
        let mut centres = [Box3::EMPTY; 2];
        let mut left = 0;
        for i in 0..count {
            let c = boxes[i].centroid();
            if bin_of(c, pl.low, pl.scale)[pl.axis] < pl.plane {
                boxes.swap(left, i);
                ids.swap(left, i);
                centres[0] = centres[0].grow(c);
                left += 1;
            } else {
                centres[1] = centres[1].grow(c);
            }
        }
        (left > 0 && left < count).then_some(Halves {
            left,
            bounds: pl.bounds,
            centres,
        })
    }

    /// Splits the range at the median centroid along the axis of widest
    /// centroid spread (ties by triangle id): half on either side.
    fn median_partition(&mut self, first: usize, count: usize, centres: &Box3) -> Halves {
        let range = first..first + count;
        let axis = (centres.hi - centres.lo).max_position();
        let mut both: Vec<(Box3, u32)> = self.boxes[range.clone()]
            .iter()
            .copied()
            .zip(self.ids[range.clone()].iter().copied())
            .collect();
        let mid = count / 2;
        both.select_nth_unstable_by(mid, |(a, ia), (b, ib)| {
            let (ca, cb) = (a.centroid()[axis], b.centroid()[axis]);
            ca.total_cmp(&cb).then(ia.cmp(ib))
        });
        let mut h = Halves {
            left: mid,
            bounds: [Box3::EMPTY; 2],
            centres: [Box3::EMPTY; 2],
        };
        for (i, (b, id)) in both.into_iter().enumerate() {
            let side = usize::from(i >= mid);
            h.bounds[side] = h.bounds[side].union(b);
            h.centres[side] = h.centres[side].grow(b.centroid());
            self.boxes[first + i] = b;
            self.ids[first + i] = id;
        }
        h
    }

    /// The subtree of binary node `at`, a set of at most [`SMALL_SET`]
    /// triangles at `first..first + n` whose box is `bounds`: copied out
    /// once, its centroids sorted once along each axis; each split keeps
    /// the sides' orders (no sort below it).
    fn small_subtree(&mut self, at: usize, first: usize, n: usize, bounds: Box3, depth: usize) {
        let mut set = SmallSet {
            boxes: [Box3::EMPTY; SMALL_SET],
            ids: [0; SMALL_SET],
            keys: [[0; 3]; SMALL_SET],
        };
        for i in 0..n {
            let b = self.boxes[first + i];
            set.boxes[i] = b;
            set.ids[i] = self.ids[first + i];
            set.keys[i] = b.centroid().to_array().map(ordered_bits);
        }
        let orders = Orders::sorted(&set, n);
        self.small_node(&set, at, &orders, bounds, depth);
    }

    /// Node `at` of a small set's subtree: a leaf of one or two packets,
    /// or the exact SAH's best split when that is cheaper by more than the
    /// rule's node cost.
    fn small_node(&mut self, set: &SmallSet, at: usize, o: &Orders, bounds: Box3, depth: usize) {
        let (first, n) = (self.tree[at].first as usize, o.len);
        self.tree[at].bounds = bounds.aabb();
        let best = if n > self.rule.leaf && depth < MEDIAN_DEPTH {
            small_sweep(set, o)
        } else {
            None
        };
        let Some((_, axis, left)) = best.filter(|&(cost, _, _)| {
            self.rule.node_cost + cost / bounds.half_area() < packets_for(n)
        }) else {
            // A leaf: its ids in any order.
            for (i, &k) in o.by_axis[0][..n].iter().enumerate() {
                self.ids[first + i] = set.ids[k as usize];
            }
            return;
        };
        let mask = o.by_axis[axis][..left]
            .iter()
            .fold(0u32, |m, &k| m | 1 << k);
        let sides = o.split(mask);
        let child = self.tree.len();
        for (start, side) in [(first, &sides[0]), (first + left, &sides[1])] {
            self.tree.push(BinNode {
                bounds: Aabb::EMPTY,
                first: start as u32,
                count: side.len as u32,
            });
        }
        self.tree[at].first = child as u32;
        self.tree[at].count = 0;
        for (k, side) in sides.iter().enumerate() {
            let b = side.by_axis[0][..side.len]
                .iter()
                .fold(Box3::EMPTY, |b, &i| b.union(set.boxes[i as usize]));
            self.small_node(set, child + k, side, b, depth + 1);
        }
    }
}

/// A set of at most [`SMALL_SET`] triangles copied out of the build:
/// boxes, ids and centroids (as [`ordered_bits`]).
struct SmallSet {
    boxes: [Box3; SMALL_SET],
    ids: [u32; SMALL_SET],
    keys: [[u32; 3]; SMALL_SET],
}

/// Part of a [`SmallSet`] (`len` of its indices) in the order of its
/// centroids along each axis (ties by index).
#[derive(Debug, Clone, Copy)]
struct Orders {
    by_axis: [[u8; SMALL_SET]; 3],
    len: usize,
}

impl Orders {
    /// The first `n` of `set`, sorted along each axis.
    fn sorted(set: &SmallSet, n: usize) -> Self {
        let mut o = Orders {
            by_axis: [[0; SMALL_SET]; 3],
            len: n,
        };
        for (axis, order) in o.by_axis.iter_mut().enumerate() {
            let mut keys = [0u64; SMALL_SET];
            for (i, k) in keys[..n].iter_mut().enumerate() {
                *k = u64::from(set.keys[i][axis]) << 32 | i as u64;
            }
            keys[..n].sort_unstable();
            for (o, k) in order.iter_mut().zip(&keys[..n]) {
                *o = *k as u8;
            }
        }
        o
    }

    /// The indices in `mask` and the others, each in the same orders.
    fn split(&self, mask: u32) -> [Orders; 2] {
        let empty = Orders {
            by_axis: [[0; SMALL_SET]; 3],
            len: 0,
        };
        let mut sides = [empty; 2];
        for axis in 0..3 {
            let mut len = [0usize; 2];
            for &k in &self.by_axis[axis][..self.len] {
                let side = usize::from(mask & 1 << k == 0);
                sides[side].by_axis[axis][len[side]] = k;
                len[side] += 1;
            }
            sides[0].len = len[0];
            sides[1].len = len[1];
        }
        sides
    }
}

/// The exact SAH over a small set: every split of its centroids sorted
/// along each axis on which they spread, cost `area * ceil(n / 8)` per
/// side. The cheapest (cost, axis, left count), or `None` when the
/// centroids do not spread. Every binned plane is one of these splits, so
/// its cost is never above the bins'.
fn small_sweep(set: &SmallSet, o: &Orders) -> Option<(f32, usize, usize)> {
    let n = o.len;
    let mut best: Option<(f32, usize, usize)> = None;
    let mut right = [0.0f32; SMALL_SET];
    for (axis, order) in o.by_axis.iter().enumerate() {
        let order = &order[..n];
        if set.keys[order[0] as usize][axis] == set.keys[order[n - 1] as usize][axis] {
            continue;
        }
        let at = |i: usize| set.boxes[order[i] as usize];
        let mut acc = Box3::EMPTY;
        for i in (1..n).rev() {
            acc = acc.union(at(i));
            right[i] = acc.half_area() * packets_for(n - i);
        }
        let mut acc = Box3::EMPTY;
        for (left, &right) in right.iter().enumerate().take(n).skip(1) {
            acc = acc.union(at(left - 1));
            let cost = acc.half_area() * packets_for(left) + right;
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, left));
            }
        }
    }
    best
}

/// The bits of `x` as an unsigned integer in the order of
/// [`f32::total_cmp`], with -0 as +0.
fn ordered_bits(x: f32) -> u32 {
    let b = (x + 0.0).to_bits();
    if b >> 31 == 1 { !b } else { b | 1 << 31 }
}

/// Packet tests a side of `n` triangles costs.
fn packets_for(n: usize) -> f32 {
    n.div_ceil(LEAF_SIZE) as f32
}

/// Adding this to a value in [0, 2^23) rounds it to an integer held in
/// the low bits of the sum's representation.
const ROUND: f32 = 8_388_608.0;

/// The bin of a centroid along each axis: `(c - low) * scale` rounded to
/// the nearest integer in 0 ..= 15 (branch-free, monotonic in `c`, the
/// same for the binning and the partition).
#[inline]
fn bin_of(c: Vec3A, low: Vec3A, scale: Vec3A) -> [usize; 3] {
    let top = Vec3A::splat((BINS - 1) as f32);
    let v = ((c - low) * scale - Vec3A::splat(0.5))
        .max(Vec3A::ZERO)
        .min(top)
        + Vec3A::splat(ROUND);
    v.to_array().map(|x| x.to_bits() as usize & (BINS - 1))
}

/// A binned SAH plane: its axis and bin boundary, the binning (lowest
/// centroid, bins per unit) and the two sides' boxes.
#[derive(Debug, Clone, Copy)]
struct Plane {
    axis: usize,
    plane: usize,
    low: Vec3A,
    scale: Vec3A,
    bounds: [Box3; 2],
}

/// The cheapest of the binned SAH's planes over `boxes` and its cost, or
/// `None` when no plane separates the centroids.
fn best_plane(boxes: &[Box3], centres: &Box3) -> Option<(f32, Plane)> {
    let low = centres.lo;
    let extent = centres.hi - low;
    // Bins per unit along each axis (0 where the centroids do not spread).
    let spread = extent.cmpgt(Vec3A::ZERO);
    let scale = Vec3A::select(spread, Vec3A::splat(BINS as f32) / extent, Vec3A::ZERO);
    // One pass bins all three axes.
    let mut bins = [[Box3::EMPTY; BINS]; 3];
    let mut counts = [[0u32; BINS]; 3];
    for &b in boxes {
        let [x, y, z] = bin_of(b.centroid(), low, scale);
        bins[0][x] = bins[0][x].union(b);
        bins[1][y] = bins[1][y].union(b);
        bins[2][z] = bins[2][z].union(b);
        counts[0][x] += 1;
        counts[1][y] += 1;
        counts[2][z] += 1;
    }
    let mut best: Option<(f32, usize, usize)> = None; // cost, axis, plane
    for (axis, (bins, counts)) in bins.iter().zip(&counts).enumerate() {
        if !spread.test(axis) {
            continue;
        }
        // Right-hand sweeps: area and count of bins plane.. .
        let mut right = [(0.0f32, 0u32); BINS];
        let (mut acc, mut n) = (Box3::EMPTY, 0);
        for i in (1..BINS).rev() {
            acc = acc.union(bins[i]);
            n += counts[i];
            right[i] = (acc.half_area(), n);
        }
        let (mut acc, mut n) = (Box3::EMPTY, 0);
        for plane in 1..BINS {
            acc = acc.union(bins[plane - 1]);
            n += counts[plane - 1];
            let (ra, rn) = right[plane];
            if n == 0 || rn == 0 {
                continue;
            }
            let cost = acc.half_area() * packets_for(n as usize) + ra * packets_for(rn as usize);
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, plane));
            }
        }
    }
    let (cost, axis, plane) = best?;
    let bounds = [union(&bins[axis][..plane]), union(&bins[axis][plane..])];
    let plane = Plane {
        axis,
        plane,
        low,
        scale,
        bounds,
    };
    Some((cost, plane))
}

/// The union of `boxes`.
fn union(boxes: &[Box3]) -> Box3 {
    boxes.iter().fold(Box3::EMPTY, |a, &b| a.union(b))
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

    /// Twice the box's centre (exact but for overflow): orders and bins
    /// like the centre.
    #[inline]
    fn centroid(&self) -> Vec3A {
        self.lo + self.hi
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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// A box of random corners in [-s, s]^3, some of them flat.
    fn random_box(rng: &mut ChaCha8Rng, s: f32) -> Box3 {
        let mut corner = || Vec3A::from_array(std::array::from_fn(|_| rng.random_range(-s..s)));
        let (a, mut b) = (corner(), corner());
        if rng.random_range(0..4) == 0 {
            b.z = a.z;
        }
        Box3 {
            lo: a.min(b),
            hi: a.max(b),
        }
    }

    /// The exact sweep over a small set is never dearer than the bins (any
    /// binned plane is one of its splits), and its halves are the set,
    /// reordered, with their exact boxes.
    #[test]
    fn the_exact_small_split_is_never_dearer_than_the_bins() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for round in 0..2000 {
            let n = 2 + round % (SMALL_SET - 1);
            let spread = [0.01, 1.0, 1000.0][round % 3];
            let boxes: Vec<Box3> = (0..n).map(|_| random_box(&mut rng, spread)).collect();
            let centres = boxes.iter().fold(Box3::EMPTY, |c, b| c.grow(b.centroid()));
            let binned = best_plane(&boxes, &centres).map(|b| b.0);
            let mut set = SmallSet {
                boxes: [Box3::EMPTY; SMALL_SET],
                ids: [0; SMALL_SET],
                keys: [[0; 3]; SMALL_SET],
            };
            for (i, b) in boxes.iter().enumerate() {
                set.boxes[i] = *b;
                set.keys[i] = b.centroid().to_array().map(ordered_bits);
            }
            let orders = Orders::sorted(&set, n);
            let (cost, axis, left) = small_sweep(&set, &orders).expect("random centroids spread");
            assert!(
                cost <= binned.expect("a binned plane"),
                "{n} boxes: {cost} > {binned:?}"
            );
            // The cost is that of the split it names, and each side is
            // sorted along every axis.
            let order = &orders.by_axis[axis][..n];
            let side = |r: &[u8]| union(&r.iter().map(|&i| boxes[i as usize]).collect::<Vec<_>>());
            let (l, r) = (side(&order[..left]), side(&order[left..]));
            let again = l.half_area() * packets_for(left) + r.half_area() * packets_for(n - left);
            assert_eq!(cost, again);
            let mask = order[..left].iter().fold(0u32, |m, &k| m | 1 << k);
            for (s, part) in orders.split(mask).iter().enumerate() {
                assert_eq!(part.len, if s == 0 { left } else { n - left });
                for a in 0..3 {
                    let keys: Vec<u32> = part.by_axis[a][..part.len]
                        .iter()
                        .map(|&k| set.keys[k as usize][a])
                        .collect();
                    assert!(keys.is_sorted(), "{keys:?}");
                }
            }
        }
    }
}
