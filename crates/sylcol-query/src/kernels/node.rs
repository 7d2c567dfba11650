//! A BVH node as the kernels read it: eight child boxes in rows of eight
//! f32 (one AVX register a row) and eight child links, cache-line aligned;
//! and the box of f32 corners the BVH is built from.

use glam::Vec3;

/// Children per node.
pub const WIDTH: usize = 8;

/// A leaf link holds its packet count less one from this bit (two bits)
/// and the index of its first packet below.
pub const COUNT_SHIFT: u32 = 29;

/// The packet index bits of a leaf link.
pub const INDEX_MASK: u32 = (1 << COUNT_SHIFT) - 1;

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
    /// `Bvh::validate` checks that `child` agrees).
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
    pub fn empty() -> Self {
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
    pub fn half_area(&self) -> f32 {
        let e = (self.hi - self.lo).max(Vec3::ZERO);
        e.x * e.y + e.y * e.z + e.z * e.x
    }
}
