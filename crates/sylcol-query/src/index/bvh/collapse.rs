//! The binary build tree collapsed into eight-wide nodes, by the SAH.
//!
//! A wide node may stand for any cut of the binary tree below it with at
//! most [`WIDTH`] pieces, and a subtree of at most `LEAF_SIZE *
//! LEAF_PACKETS` triangles may also become one leaf. Which cut is best is
//! decided bottom-up, once for the whole tree (the dynamic programme of
//! Ylitie, Karras and Laine, "Efficient incoherent ray traversal on GPUs
//! through compressed wide BVHs", 2017): for each binary node and each
//! `i` in 1..=8, the least SAH cost of standing for its subtree with at
//! most `i` roots. A root alone costs the cheaper of a leaf (`area x
//! packets`) and a wide node (`COLLAPSE_NODE_COST x area` plus its best
//! eight roots); two or more roots split `i` between the two children.
//!
//! The greedy collapse it replaced (each node opened its largest-area
//! inner child until it had eight) left nodes of 4.6 used slots on the
//! 4 k sphere and never merged small subtrees back into leaves.

use super::build::BinNode;
use super::shape::{LEAF_PACKETS, LEAF_SIZE};
use crate::geometry::mesh::TriMesh;
use crate::kernels::node::{COUNT_SHIFT, LEAF, Node, WIDTH};
use crate::kernels::packet::{Packet, pack_into};

/// A wide node's box test against a packet's triangle test, in the
/// collapse's SAH. Callgrind, instructions a ray (4 k sphere / d84a95fb /
/// dd89a110 / 16 k sphere): the greedy collapse 958 / 845 / 1 094 /
/// 1 103; 1.0: 950 / 816 / 1 073 / 1 082; 0.5: 951 / 816 / 1 054 /
/// 1 082; 0.25: 951 / 816 / 1 050 / 1 082; 2.0: 970 / 843 / 1 107 /
/// 1 091.
const COLLAPSE_NODE_COST: f32 = 0.5;

/// The collapse's choices for every binary node of `tree`.
struct Plan<'t> {
    /// The binary tree it collapses.
    tree: &'t [BinNode],
    /// The triangle ids under each node: `ids[start..start + count]`.
    range: Vec<(u32, u32)>,
    /// Whether a node standing alone is best a leaf.
    leaf: Vec<bool>,
    /// For node n and at most `i` roots (entry `i - 1`): 0 when n alone
    /// is cheapest, else how many of the roots its left child gets.
    roots_left: Vec<[u8; WIDTH]>,
    /// For an inner node as a wide node: its left child's share of the
    /// eight roots.
    node_left: Vec<u8>,
    /// The least cost of the whole tree (the root standing alone).
    cost: f32,
}

impl Plan<'_> {
    /// Prices every binary node, children before parents.
    fn new(tree: &[BinNode]) -> Plan<'_> {
        let n = tree.len();
        let mut plan = Plan {
            tree,
            range: vec![(0, 0); n],
            leaf: vec![false; n],
            roots_left: vec![[0; WIDTH]; n],
            node_left: vec![0; n],
            cost: 0.0,
        };
        // cost[n][i - 1]: the least cost of n's subtree as at most i
        // roots; roots[n]: the most roots it can have (its leaves, up to
        // eight), so no share is tried that a side cannot use.
        let mut cost = vec![[0f32; WIDTH]; n];
        let mut roots = vec![1usize; n];
        for at in children_first(tree) {
            let area = tree[at].bounds.half_area();
            if tree[at].count > 0 {
                plan.range[at] = (tree[at].first, tree[at].count);
                plan.leaf[at] = true;
                cost[at] = [area * packets(tree[at].count); WIDTH];
                continue;
            }
            let (l, r) = (tree[at].first as usize, tree[at].first as usize + 1);
            plan.range[at] = (
                plan.range[l].0.min(plan.range[r].0),
                plan.range[l].1 + plan.range[r].1,
            );
            roots[at] = (roots[l] + roots[r]).min(WIDTH);
            // split[i - 1]: the best cost and left share of i >= 2 roots.
            let mut split = [(f32::INFINITY, 0u8); WIDTH];
            for i in 2..=roots[at] {
                for k in i.saturating_sub(roots[r]).max(1)..=roots[l].min(i - 1) {
                    let c = cost[l][k - 1] + cost[r][i - k - 1];
                    if c < split[i - 1].0 {
                        split[i - 1] = (c, k as u8);
                    }
                }
            }
            for i in roots[at] + 1..=WIDTH {
                split[i - 1] = split[i - 2];
            }
            let node = COLLAPSE_NODE_COST * area + split[WIDTH - 1].0;
            let count = plan.range[at].1;
            let as_leaf = if count as usize <= LEAF_SIZE * LEAF_PACKETS {
                area * packets(count)
            } else {
                f32::INFINITY
            };
            plan.leaf[at] = as_leaf <= node;
            plan.node_left[at] = split[WIDTH - 1].1;
            cost[at][0] = as_leaf.min(node);
            for i in 2..=WIDTH {
                let fewer = (cost[at][i - 2], plan.roots_left[at][i - 2]);
                let (c, k) = if split[i - 1].0 < fewer.0 {
                    split[i - 1]
                } else {
                    fewer
                };
                cost[at][i - 1] = c;
                plan.roots_left[at][i - 1] = k;
            }
        }
        plan.cost = cost.first().map_or(0.0, |c| c[0]);
        plan
    }

    /// The children of the wide node standing for `at`: `at` itself when
    /// it is best a leaf, else its best eight roots.
    fn children(&self, at: usize) -> Kids {
        let mut kids = Kids {
            slots: [at; WIDTH],
            len: 0,
        };
        if self.leaf[at] {
            kids.len = 1;
            return kids;
        }
        let (left, l) = (self.node_left[at] as usize, self.tree[at].first as usize);
        self.roots(l, left, &mut kids);
        self.roots(l + 1, WIDTH - left, &mut kids);
        kids
    }

    /// Appends the best at most `i` roots standing for `at`'s subtree.
    fn roots(&self, at: usize, i: usize, kids: &mut Kids) {
        match self.roots_left[at][i - 1] as usize {
            0 => {
                kids.slots[kids.len] = at;
                kids.len += 1;
            }
            left => {
                let l = self.tree[at].first as usize;
                self.roots(l, left, kids);
                self.roots(l + 1, i - left, kids);
            }
        }
    }
}

/// The tree's nodes, every child before its parent.
fn children_first(tree: &[BinNode]) -> Vec<usize> {
    let mut order = Vec::with_capacity(tree.len());
    let mut todo = vec![0usize];
    while let Some(at) = todo.pop() {
        order.push(at);
        if tree[at].count == 0 {
            let first = tree[at].first as usize;
            todo.extend([first, first + 1]);
        }
    }
    order.reverse();
    order
}

/// Packet tests a leaf of `count` triangles costs.
fn packets(count: u32) -> f32 {
    (count as usize).div_ceil(LEAF_SIZE) as f32
}

/// Up to [`WIDTH`] binary nodes of one wide node (no allocation).
struct Kids {
    slots: [usize; WIDTH],
    len: usize,
}

impl Kids {
    fn as_mut_slice(&mut self) -> &mut [usize] {
        &mut self.slots[..self.len]
    }
}

/// The eight-wide nodes (the root is node 0) over their packets, and the
/// levels of nodes from the root to the deepest leaf.
pub(super) struct Collapsed {
    pub nodes: Vec<Node>,
    pub packets: Vec<Packet>,
    pub depth: usize,
}

/// The eight-wide hierarchy from the binary tree (ids in leaf order: a
/// subtree's triangles are one range of them).
pub(super) fn collapse(tree: &[BinNode], ids: &[u32], mesh: &TriMesh) -> Collapsed {
    let pad = mesh.triangles.len() as u32;
    let mut bvh = Collapsed {
        nodes: Vec::with_capacity(tree.len() / 4 + 1),
        packets: Vec::with_capacity(tree.len() / 2 + 1),
        depth: 0,
    };
    if tree.is_empty() {
        return bvh;
    }
    let plan = Plan::new(tree);
    bvh.nodes.push(Node::empty());
    let mut todo = vec![(0usize, 0usize, 1usize)]; // binary node, wide node, level
    while let Some((bin, wide, level)) = todo.pop() {
        bvh.depth = bvh.depth.max(level);
        let mut node = Node::empty();
        // Inner children first, in the nodes pushed next, in slot order
        // (`Node::inner`); a stable sort of at most eight.
        let mut kids = plan.children(bin);
        let kids = kids.as_mut_slice();
        kids.sort_by_key(|&k| plan.leaf[k]);
        node.inner = kids.iter().filter(|&&k| !plan.leaf[k]).count() as u32;
        node.first = bvh.nodes.len() as u32;
        for (slot, &k) in kids.iter().enumerate() {
            let b = tree[k].bounds;
            for axis in 0..3 {
                node.bounds[axis][slot] = b.lo[axis];
                node.bounds[3 + axis][slot] = b.hi[axis];
            }
            node.child[slot] = if plan.leaf[k] {
                let (first, count) = (plan.range[k].0 as usize, plan.range[k].1 as usize);
                let start = bvh.packets.len();
                pack_into(&mut bvh.packets, &ids[first..first + count], pad, |t| {
                    mesh.corners(t as usize)
                });
                let more = ((bvh.packets.len() - start) as u32 - 1) << COUNT_SHIFT;
                LEAF | more | start as u32
            } else {
                bvh.nodes.push(Node::empty());
                let index = bvh.nodes.len() - 1;
                todo.push((k, index, level + 1));
                index as u32
            };
        }
        node.leaf0 = single_leaves(&node, kids.len());
        bvh.nodes[wide] = node;
    }
    bvh
}

/// [`Node::leaf0`] for a node whose slots `inner..used` hold its leaves:
/// the link of slot 0 were it a leaf, when every leaf is one packet and
/// they follow each other in slot order (the collapse packs them so);
/// else 0.
fn single_leaves(node: &Node, used: usize) -> u32 {
    let inner = node.inner as usize;
    if inner >= used {
        return 0;
    }
    let leaf0 = node.child[inner].wrapping_sub(node.inner);
    let single = |s: usize| node.child[s] >> COUNT_SHIFT == LEAF >> COUNT_SHIFT;
    let in_turn = (inner..used).all(|s| single(s) && node.child[s] == leaf0.wrapping_add(s as u32));
    if in_turn { leaf0 } else { 0 }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::build::binary_tree;
    use super::super::tree::Bvh;
    use super::*;
    use crate::fixtures::{cuboid, icosphere, merged, uv_sphere};

    /// The SAH cost of a built hierarchy, in the plan's terms: a wide
    /// node's box test per node (weighted by its box's area, the root's
    /// by the whole mesh's), a packet test per packet of a leaf.
    /// [`Bvh::sah`] counts the same tests relative to the root's area.
    fn built_cost(bvh: &Bvh, root_area: f32) -> f32 {
        let sah = bvh.sah();
        let cost = f64::from(COLLAPSE_NODE_COST) * sah.nodes + sah.packets;
        (f64::from(root_area) * cost) as f32
    }

    /// The hierarchy built is the one the plan priced (the same cost, up
    /// to the order of the f32 sums), and no dearer than the greedy
    /// collapse it replaced (each node opening its largest-area inner
    /// child until it has eight), priced the same way.
    #[test]
    fn the_collapse_builds_what_the_plan_priced_and_beats_the_greedy_one() {
        let meshes = [
            icosphere(Vec3::new(0.3, -0.2, 0.1), 5.0, 3),
            uv_sphere(Vec3::ZERO, 6.0, 64, 32),
            merged(
                &cuboid(Vec3::splat(-7.0), Vec3::splat(-1.0)),
                &icosphere(Vec3::splat(3.0), 4.0, 4),
            ),
        ];
        for mesh in &meshes {
            let (tree, ids) = binary_tree(mesh);
            let plan = Plan::new(&tree);
            // The same tree `collapse(&tree, &ids, mesh)` gives (the
            // build is deterministic), as the `Bvh` it becomes.
            let bvh = Bvh::build(mesh);
            let _ = ids;
            bvh.validate(mesh).unwrap();
            let root_area = tree[0].bounds.half_area();
            let built = built_cost(&bvh, root_area);
            assert!(
                (built - plan.cost).abs() <= 1e-4 * plan.cost,
                "{built} != {}",
                plan.cost
            );
            let greedy = greedy_cost(&tree, 0);
            assert!(plan.cost <= greedy, "{} > greedy {greedy}", plan.cost);
            assert!(
                plan.cost < 0.99 * greedy,
                "{} against greedy {greedy}",
                plan.cost
            );
        }
    }

    /// The greedy collapse's cost for the wide node standing for `at`.
    fn greedy_cost(tree: &[BinNode], at: usize) -> f32 {
        let area = tree[at].bounds.half_area();
        if tree[at].count > 0 {
            return area * packets(tree[at].count);
        }
        let first = tree[at].first as usize;
        let mut kids = vec![first, first + 1];
        while kids.len() < WIDTH {
            let inner = kids
                .iter()
                .enumerate()
                .filter(|(_, k)| tree[**k].count == 0);
            let widest = inner.max_by(|a, b| {
                let (x, y) = (tree[*a.1].bounds, tree[*b.1].bounds);
                x.half_area().total_cmp(&y.half_area())
            });
            let Some((i, &k)) = widest else { break };
            let f = tree[k].first as usize;
            kids.swap_remove(i);
            kids.extend([f, f + 1]);
        }
        let children: f32 = kids
            .iter()
            .map(|&k| {
                if tree[k].count > 0 {
                    tree[k].bounds.half_area() * packets(tree[k].count)
                } else {
                    greedy_cost(tree, k)
                }
            })
            .sum();
        COLLAPSE_NODE_COST * area + children
    }
}
