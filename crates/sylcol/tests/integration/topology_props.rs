//! The fast topology pass against a plain reference (hash map of edges,
//! breadth-first components) on random triangle soups.

use std::collections::{HashMap, HashSet};

use glam::Vec3;
use proptest::prelude::*;
use sylcol::topology::topology;

struct Reference {
    edges: u64,
    by_count: [u64; 3],
    consistent: u64,
    components: u64,
    unreferenced: u64,
}

fn reference(nv: usize, tris: &[[u32; 3]]) -> Reference {
    let mut uses: HashMap<(u32, u32), Vec<bool>> = HashMap::new();
    let mut adj: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut referenced = HashSet::new();
    for t in tris.iter().filter(|t| t.iter().all(|&i| (i as usize) < nv)) {
        for k in 0..3 {
            let (p, q) = (t[k], t[(k + 1) % 3]);
            referenced.insert(p);
            adj.entry(p).or_default().push(q);
            adj.entry(q).or_default().push(p);
            if p != q {
                uses.entry((p.min(q), p.max(q))).or_default().push(p < q);
            }
        }
    }
    let mut by_count = [0u64; 3];
    let mut consistent = 0;
    for dirs in uses.values() {
        by_count[dirs.len().min(3) - 1] += 1;
        if dirs.len() == 2 && dirs[0] != dirs[1] {
            consistent += 1;
        }
    }
    let mut seen = HashSet::new();
    let mut components = 0;
    for &v in &referenced {
        if seen.insert(v) {
            components += 1;
            let mut stack = vec![v];
            while let Some(x) = stack.pop() {
                for &y in adj.get(&x).into_iter().flatten() {
                    if seen.insert(y) {
                        stack.push(y);
                    }
                }
            }
        }
    }
    Reference {
        edges: uses.len() as u64,
        by_count,
        consistent,
        components,
        unreferenced: (nv - referenced.len()) as u64,
    }
}

proptest! {
    #[test]
    fn matches_the_reference(
        nv in 1usize..40,
        raw in prop::collection::vec([0u32..45, 0u32..45, 0u32..45], 0..80),
    ) {
        let vertices: Vec<Vec3> = (0..nv).map(|i| Vec3::new(i as f32, (i * i) as f32, 1.0)).collect();
        let t = topology(&vertices, &raw);
        let r = reference(nv, &raw);
        prop_assert_eq!(t.edges, r.edges);
        prop_assert_eq!(t.boundary_edges, r.by_count[0]);
        prop_assert_eq!(t.edges_shared_by_two, r.by_count[1]);
        prop_assert_eq!(t.nonmanifold_edges, r.by_count[2]);
        prop_assert_eq!(t.consistently_wound_edges, r.consistent);
        prop_assert_eq!(t.components, r.components);
        prop_assert_eq!(t.unreferenced_vertices, r.unreferenced);
        let valid = raw.iter().filter(|x| x.iter().all(|&i| (i as usize) < nv)).count() as u64;
        prop_assert_eq!(t.out_of_range_triangles, raw.len() as u64 - valid);
        prop_assert_eq!(t.euler, (nv as u64 - r.unreferenced) as i64 - r.edges as i64 + valid as i64);
    }
}
