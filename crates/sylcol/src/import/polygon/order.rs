//! The sweep's status: the edges crossing the sweep line, bottom to top,
//! as a splay tree over the edge numbers (Sleator and Tarjan: amortised
//! O(log n) an operation, whatever the order of the operations).
//!
//! Only `insert` compares, through the caller's closure, on the way down
//! from the root; removing an edge and finding its neighbours follow the
//! links of its own node. So a comparison that is not a total order (the
//! edges already cross) can misplace an edge, but never loops or panics.

/// No node.
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    left: u32,
    right: u32,
    parent: u32,
}

const LONE: Node = Node {
    left: NIL,
    right: NIL,
    parent: NIL,
};

/// An ordered set of the numbers `0..n`, each at most once.
#[derive(Debug)]
pub(super) struct Status {
    nodes: Vec<Node>,
    root: u32,
}

impl Status {
    /// An empty status for the numbers `0..n`.
    pub(super) fn new(n: usize) -> Self {
        Status {
            nodes: vec![LONE; n],
            root: NIL,
        }
    }

    /// Inserts `x` (not in the set), below every member `y` for which
    /// `below(y)` holds on the way down from the root, above the others.
    pub(super) fn insert(&mut self, x: u32, mut below: impl FnMut(u32) -> bool) {
        self.nodes[x as usize] = LONE;
        let mut y = self.root;
        if y == NIL {
            self.root = x;
            return;
        }
        loop {
            let go_left = below(y);
            let next = if go_left {
                self.node(y).left
            } else {
                self.node(y).right
            };
            if next == NIL {
                if go_left {
                    self.nodes[y as usize].left = x;
                } else {
                    self.nodes[y as usize].right = x;
                }
                self.nodes[x as usize].parent = y;
                break;
            }
            y = next;
        }
        self.splay(x);
    }

    /// Removes `x` (a member).
    pub(super) fn remove(&mut self, x: u32) {
        self.splay(x);
        let Node { left, right, .. } = self.node(x);
        self.nodes[x as usize] = LONE;
        for child in [left, right] {
            if child != NIL {
                self.nodes[child as usize].parent = NIL;
            }
        }
        if left == NIL {
            self.root = right;
            return;
        }
        // The largest of the lower part becomes its root, with no right
        // child: the upper part hangs there.
        let top = self.extreme(left, true);
        self.splay(top);
        self.nodes[top as usize].right = right;
        if right != NIL {
            self.nodes[right as usize].parent = top;
        }
        self.root = top;
    }

    /// The member just below `x` (a member).
    pub(super) fn below(&mut self, x: u32) -> Option<u32> {
        self.neighbour(x, true)
    }

    /// The member just above `x` (a member).
    pub(super) fn above(&mut self, x: u32) -> Option<u32> {
        self.neighbour(x, false)
    }

    fn neighbour(&mut self, x: u32, lower: bool) -> Option<u32> {
        self.splay(x);
        let side = if lower {
            self.node(x).left
        } else {
            self.node(x).right
        };
        if side == NIL {
            return None;
        }
        let n = self.extreme(side, lower);
        self.splay(n);
        Some(n)
    }

    /// The last (`last`) or first node of the subtree under `y`.
    fn extreme(&self, mut y: u32, last: bool) -> u32 {
        loop {
            let next = if last {
                self.node(y).right
            } else {
                self.node(y).left
            };
            if next == NIL {
                return y;
            }
            y = next;
        }
    }

    #[inline]
    fn node(&self, x: u32) -> Node {
        self.nodes[x as usize]
    }

    /// Rotates `x` above its parent.
    fn rotate(&mut self, x: u32) {
        let p = self.node(x).parent;
        let g = self.node(p).parent;
        if self.node(p).left == x {
            let b = self.node(x).right;
            self.nodes[p as usize].left = b;
            if b != NIL {
                self.nodes[b as usize].parent = p;
            }
            self.nodes[x as usize].right = p;
        } else {
            let b = self.node(x).left;
            self.nodes[p as usize].right = b;
            if b != NIL {
                self.nodes[b as usize].parent = p;
            }
            self.nodes[x as usize].left = p;
        }
        self.nodes[p as usize].parent = x;
        self.nodes[x as usize].parent = g;
        if g == NIL {
            self.root = x;
        } else if self.node(g).left == p {
            self.nodes[g as usize].left = x;
        } else {
            self.nodes[g as usize].right = x;
        }
    }

    /// Brings `x` to the root of its tree.
    fn splay(&mut self, x: u32) {
        loop {
            let p = self.node(x).parent;
            if p == NIL {
                return;
            }
            let g = self.node(p).parent;
            if g != NIL {
                let zig_zig = (self.node(g).left == p) == (self.node(p).left == x);
                self.rotate(if zig_zig { p } else { x });
            }
            self.rotate(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Random inserts (by a key the closure compares) and removals agree
    /// with a sorted vector, neighbours included.
    #[test]
    fn agrees_with_a_sorted_vector() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 400;
        let keys: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
        // Ties between keys go by number, so the order is total.
        let less = |a: u32, b: u32| (keys[a as usize], a) < (keys[b as usize], b);
        let mut status = Status::new(n);
        let mut model: Vec<u32> = Vec::new();
        for _ in 0..20_000 {
            let x = rng.random_range(0..n as u32);
            match model.iter().position(|&y| y == x) {
                Some(i) => {
                    status.remove(x);
                    model.remove(i);
                }
                None => {
                    status.insert(x, |y| less(x, y));
                    let i = model.partition_point(|&y| less(y, x));
                    model.insert(i, x);
                }
            }
            if model.is_empty() {
                continue;
            }
            let y = model[rng.random_range(0..model.len())];
            let i = model.iter().position(|&z| z == y).unwrap();
            assert_eq!(status.below(y), i.checked_sub(1).map(|j| model[j]));
            assert_eq!(status.above(y), model.get(i + 1).copied());
        }
    }
}
