//! [`Bvh::validate`]: the structural invariants the traversal relies on,
//! checked the way parry checks its own tree.

use super::shape::LEAF_PACKETS;
use super::tree::Bvh;
use super::walk::STACK;
use crate::geometry::mesh::TriMesh;
use crate::kernels::node::{Aabb, COUNT_SHIFT, INDEX_MASK, LEAF, NO_CHILD, Node, WIDTH};
use crate::kernels::packet::LANES;

/// A broken invariant of a [`Bvh`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bvh: {0}")]
pub struct BvhError(pub String);

fn fail<T>(what: String) -> Result<T, BvhError> {
    Err(BvhError(what))
}

impl Bvh {
    /// Checks that every triangle of `mesh` is in exactly one leaf with
    /// its corners as in the mesh, that every child box contains its
    /// node's boxes or its leaf's triangles, that unused slots are empty,
    /// that every node and leaf is reached exactly once, and that the
    /// depth fits the traversal's stack.
    pub fn validate(&self, mesh: &TriMesh) -> Result<(), BvhError> {
        let n = mesh.triangles.len();
        if self.nodes.is_empty() {
            return match (n, self.packets.len()) {
                (0, 0) => Ok(()),
                _ => fail(format!("no nodes over {n} triangles")),
            };
        }
        let mut check = Check {
            bvh: self,
            mesh,
            seen_tri: vec![0u32; n],
            seen_node: vec![false; self.nodes.len()],
            seen_leaf: vec![false; self.packets.len()],
            depth: 0,
        };
        check.node(0, None, 1)?;
        if let Some(t) = check.seen_tri.iter().position(|&c| c != 1) {
            let c = check.seen_tri[t];
            return fail(format!("triangle {t} is in {c} leaves"));
        }
        if let Some(i) = check.seen_node.iter().position(|s| !s) {
            return fail(format!("node {i} is not reached"));
        }
        if let Some(i) = check.seen_leaf.iter().position(|s| !s) {
            return fail(format!("packet {i} is not reached"));
        }
        if check.depth != self.depth() || check.depth * (WIDTH - 1) > STACK {
            let (d, s) = (check.depth, self.depth());
            return fail(format!("depth {d} (recorded {s}) exceeds the stack"));
        }
        Ok(())
    }
}

/// The walk of [`Bvh::validate`].
struct Check<'a> {
    bvh: &'a Bvh,
    mesh: &'a TriMesh,
    seen_tri: Vec<u32>,
    seen_node: Vec<bool>,
    seen_leaf: Vec<bool>,
    depth: usize,
}

impl Check<'_> {
    /// Node `i`, whose parent slot's box is `outer` (none for the root),
    /// at `level`.
    fn node(&mut self, i: usize, outer: Option<Aabb>, level: usize) -> Result<(), BvhError> {
        let Some(node) = self.bvh.nodes.get(i) else {
            return fail(format!("link to node {i} of {}", self.bvh.nodes.len()));
        };
        if std::mem::replace(&mut self.seen_node[i], true) {
            return fail(format!("node {i} is reached twice"));
        }
        self.depth = self.depth.max(level);
        let mut used = 0;
        for slot in 0..WIDTH {
            let b = node.child_box(slot);
            let link = node.child[slot];
            if !links_agree(node, slot) {
                return fail(format!(
                    "node {i} slot {slot}: link {link:#x} against inner {} from node {} \
                     and leaves from {:#x}",
                    node.inner, node.first, node.leaf0
                ));
            }
            if link == NO_CHILD {
                if b != Aabb::EMPTY {
                    return fail(format!("node {i} slot {slot}: unused but not empty"));
                }
                continue;
            }
            used += 1;
            if !(b.lo.cmple(b.hi).all()) {
                return fail(format!("node {i} slot {slot}: empty box {b:?}"));
            }
            if let Some(o) = outer
                && !o.contains(&b)
            {
                return fail(format!("node {i} slot {slot}: box {b:?} outside {o:?}"));
            }
            if link & LEAF != 0 {
                let first = (link & INDEX_MASK) as usize;
                let count = ((link & !LEAF) >> COUNT_SHIFT) as usize + 1;
                if count > LEAF_PACKETS {
                    return fail(format!("node {i} slot {slot}: a leaf of {count} packets"));
                }
                for packet in first..first + count {
                    self.leaf(packet, &b)?;
                }
            } else {
                self.node(link as usize, Some(b), level + 1)?;
            }
        }
        if used == 0 {
            return fail(format!("node {i} has no children"));
        }
        Ok(())
    }

    /// Packet `i` of a leaf, inside the leaf's box `b`.
    fn leaf(&mut self, i: usize, b: &Aabb) -> Result<(), BvhError> {
        let Some(p) = self.bvh.packets.get(i) else {
            return fail(format!("link to packet {i} of {}", self.bvh.packets.len()));
        };
        if std::mem::replace(&mut self.seen_leaf[i], true) {
            return fail(format!("packet {i} is reached twice"));
        }
        let n = self.mesh.triangles.len();
        for lane in 0..LANES {
            let id = p.ids[lane] as usize;
            let corners = p.corners(lane);
            if id == n {
                if corners.iter().any(|c| !c.is_nan()) {
                    return fail(format!("packet {i} lane {lane}: padding with corners"));
                }
                continue;
            }
            if id > n {
                return fail(format!("packet {i} lane {lane}: triangle {id} of {n}"));
            }
            if corners != self.mesh.corners(id) {
                return fail(format!("packet {i} lane {lane}: corners of {id} differ"));
            }
            if !b.contains(&Aabb::of_triangle(&corners)) {
                return fail(format!("packet {i}: triangle {id} outside {b:?}"));
            }
            self.seen_tri[id] += 1;
        }
        Ok(())
    }
}

/// Whether slot `slot`'s link is what the walk computes without reading
/// it: an inner node `first + slot` below [`Node::inner`], a leaf or
/// nothing from there on (a leaf `leaf0 + slot` where [`Node::leaf0`] is
/// set).
fn links_agree(node: &Node, slot: usize) -> bool {
    let link = node.child[slot];
    if slot < node.inner as usize {
        link & LEAF == 0 && link == node.first.wrapping_add(slot as u32)
    } else {
        link == NO_CHILD
            || link & LEAF != 0 && (node.leaf0 == 0 || link == node.leaf0.wrapping_add(slot as u32))
    }
}
