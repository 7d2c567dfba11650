//! The edge machinery every topology pass shares: half-edges bucketed by
//! their lower vertex, the counts they classify into, and a union-find
//! over vertices (below [`super`]'s summary and [`super::faults`]).

use glam::Vec3;

/// The three directed edges of a triangle.
#[inline]
pub(super) fn half_edges(&[a, b, c]: &[u32; 3]) -> [(u32, u32); 3] {
    [(a, b), (b, c), (c, a)]
}

/// A repeated index, or three corners on one line (zero cross product,
/// computed in f64 from the f32 inputs). The indices must be in range.
pub fn is_degenerate(vertices: &[Vec3], t: &[u32; 3]) -> bool {
    let [a, b, c] = *t;
    if a == b || b == c || a == c {
        return true;
    }
    let p = vertices[a as usize].as_dvec3();
    let q = vertices[b as usize].as_dvec3();
    let r = vertices[c as usize].as_dvec3();
    (q - p).cross(r - p) == glam::DVec3::ZERO
}

/// Half-edges grouped by their lower vertex: bucket `v` holds, for every
/// half-edge whose lower end is `v`, `higher << 1 | reversed`.
pub(super) struct EdgeBuckets {
    start: Vec<u32>,
    keys: Vec<u32>,
}

/// Edge counts by how many triangles share each edge.
#[derive(Default)]
pub(super) struct EdgeCounts {
    pub(super) edges: u64,
    pub(super) shared_by_two: u64,
    pub(super) boundary: u64,
    pub(super) nonmanifold: u64,
    pub(super) consistent: u64,
}

impl EdgeBuckets {
    /// Scatters the half-edges into buckets whose sizes `counts[v + 1]`
    /// the caller has counted.
    pub(super) fn fill<'a>(
        mut start: Vec<u32>,
        triangles: impl Iterator<Item = &'a [u32; 3]>,
    ) -> Self {
        let nv = start.len() - 1;
        for v in 0..nv {
            start[v + 1] += start[v];
        }
        let mut cursor = start.clone();
        let mut keys = vec![0u32; start[nv] as usize];
        for t in triangles {
            for (p, q) in half_edges(t) {
                if p != q {
                    let lo = p.min(q) as usize;
                    keys[cursor[lo] as usize] = (p.max(q) << 1) | u32::from(p > q);
                    cursor[lo] += 1;
                }
            }
        }
        EdgeBuckets { start, keys }
    }

    /// Calls `f(lower, bucket)` for every vertex in order, `bucket` holding
    /// one key per half-edge whose lower end it is, `higher << 1 |
    /// reversed`, sorted: the runs of equal `higher` are its edges.
    pub(super) fn for_each_bucket(&mut self, mut f: impl FnMut(u32, &[u32])) {
        for (v, w) in self.start.windows(2).enumerate() {
            let bucket = &mut self.keys[w[0] as usize..w[1] as usize];
            insertion_sort(bucket);
            f(v as u32, bucket);
        }
    }

    /// Counts edges by how many triangles share them, joining the two ends
    /// of every edge in `sets`.
    pub(super) fn classify(mut self, sets: &mut UnionFind) -> EdgeCounts {
        let mut counts = EdgeCounts::default();
        self.for_each_bucket(|v, bucket| {
            // The root of `v`, kept current across its bucket's unions.
            let mut root = sets.find(v);
            for run in bucket.chunk_by(|x, y| x >> 1 == y >> 1) {
                let other = sets.find(run[0] >> 1);
                root = sets.link(root, other);
                counts.edges += 1;
                match run.len() {
                    1 => counts.boundary += 1,
                    2 => {
                        counts.shared_by_two += 1;
                        if (run[0] ^ run[1]) & 1 == 1 {
                            counts.consistent += 1;
                        }
                    }
                    _ => counts.nonmanifold += 1,
                }
            }
        });
        counts
    }
}

/// Buckets hold a few entries (six on a regular mesh's average vertex), where
/// insertion sort beats the general sort; long buckets fall back to it.
fn insertion_sort(s: &mut [u32]) {
    if s.len() > 24 {
        s.sort_unstable();
        return;
    }
    for i in 1..s.len() {
        let x = s[i];
        let mut j = i;
        while j > 0 && s[j - 1] > x {
            s[j] = s[j - 1];
            j -= 1;
        }
        s[j] = x;
    }
}

/// Disjoint sets over vertex ids: union by rank, path halving.
pub(super) struct UnionFind {
    parent: Vec<u32>,
    rank: Vec<u8>,
}

impl UnionFind {
    pub(super) fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            rank: vec![0; n],
        }
    }

    pub(super) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Joins the sets of roots `ra` and `rb`; returns the joint root.
    pub(super) fn link(&mut self, ra: u32, rb: u32) -> u32 {
        if ra == rb {
            return ra;
        }
        let (ka, kb) = (self.rank[ra as usize], self.rank[rb as usize]);
        if ka < kb {
            self.parent[ra as usize] = rb;
            rb
        } else {
            self.parent[rb as usize] = ra;
            if ka == kb {
                self.rank[ra as usize] += 1;
            }
            ra
        }
    }
}
