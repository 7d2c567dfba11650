//! tinybvh 1.6.8 (the single header `tiny_bvh.h` carried by the
//! tinybvh-rs 0.1.0-beta.3 crate's source) through the C++ shim
//! `tinybvh_shim.cpp`, compiled by build.rs with `-march=native`: its CPU
//! single-ray layouts over one mesh, each built by its own `Build` (or
//! `BuildHQ`, the spatial-split build) from the mesh's triangles as three
//! corners each, and traced one ray a call (`Intersect`).
//!
//! The shim keeps each scene in a slot of a fixed table and checks the
//! slot and the layout on every call; its entry points take scalars and
//! references to arrays of fixed length only (one triangle of nine f32,
//! one ray of six f32). It refuses pushes after the first build and a
//! second build of a layout, and traces a layout only once its build has
//! finished, so concurrent calls on one slot cannot race with a write;
//! those entry points are declared `safe`. Freeing a slot is the one that
//! is not: a trace running on it from another thread would read freed
//! memory, so it stays `unsafe` and is called once, from
//! [`TinyScene`]'s `Drop`, which owns the slot.

use sylcol::TriMesh;

/// One hit as the shim returns it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Hit {
    /// Distance, 1e30 for a miss.
    t: f32,
    /// Triangle index, `u32::MAX` for a miss.
    prim: u32,
}

unsafe extern "C" {
    safe fn sylcol_tb_new() -> u32;
    safe fn sylcol_tb_push(scene: u32, triangle: &[f32; 9]);
    safe fn sylcol_tb_build(scene: u32, layout: u32) -> u32;
    safe fn sylcol_tb_intersect(scene: u32, layout: u32, ray: &[f32; 6]) -> Hit;
    fn sylcol_tb_free(scene: u32);
}

/// tinybvh's CPU single-ray layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `BVH`: binary, Wald's 32-byte nodes, binned SAH build.
    Bvh,
    /// `BVH` built by `BuildHQ` (spatial splits, SBVH).
    BvhHq,
    /// `BVH_SoA`: binary, child boxes side by side (SSE).
    Soa,
    /// `BVH4_CPU`: four-wide nodes, four-triangle leaves (SSE).
    Bvh4,
    /// `BVH8_CPU`: eight-wide nodes, four-triangle leaves (AVX2).
    Bvh8,
    /// `BVH8_CPU` over a `BuildHQ` tree.
    Bvh8Hq,
}

impl Layout {
    /// Every layout, in the shim's numbering.
    pub const ALL: [Layout; 6] = [
        Layout::Bvh,
        Layout::BvhHq,
        Layout::Soa,
        Layout::Bvh4,
        Layout::Bvh8,
        Layout::Bvh8Hq,
    ];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Bvh => "tinybvh BVH",
            Layout::BvhHq => "tinybvh BVH HQ",
            Layout::Soa => "tinybvh BVH_SoA",
            Layout::Bvh4 => "tinybvh BVH4_CPU",
            Layout::Bvh8 => "tinybvh BVH8_CPU",
            Layout::Bvh8Hq => "tinybvh BVH8_CPU HQ",
        }
    }

    fn code(self) -> u32 {
        Layout::ALL.iter().position(|&l| l == self).expect("listed") as u32
    }
}

/// A mesh with every tinybvh layout built over it.
pub struct TinyScene {
    slot: u32,
}

impl TinyScene {
    /// Copies the mesh's triangles and builds every layout; an error for a
    /// mesh of fewer than two triangles or when the shim's table is full.
    pub fn new(mesh: &TriMesh) -> Result<Self, String> {
        let slot = sylcol_tb_new();
        if slot == u32::MAX {
            return Err("the tinybvh shim's table of scenes is full".into());
        }
        let scene = TinyScene { slot };
        for t in 0..mesh.triangles.len() {
            let c = mesh.corners(t);
            let tri = std::array::from_fn(|k| c[k / 3][k % 3]);
            sylcol_tb_push(slot, &tri);
        }
        for l in Layout::ALL {
            match sylcol_tb_build(slot, l.code()) {
                0 => {}
                2 => return Err(format!("{}: fewer than two triangles", l.name())),
                e => return Err(format!("{}: build failed ({e})", l.name())),
            }
        }
        Ok(scene)
    }

    /// (t, triangle) of the nearest hit of `ray` (origin, direction)
    /// through `layout`, or (+inf, `u32::MAX`).
    pub fn cast(&self, layout: Layout, ray: &[f32; 6]) -> (f32, u32) {
        let hit = sylcol_tb_intersect(self.slot, layout.code(), ray);
        if hit.t < 1e30 {
            (hit.t, hit.prim)
        } else {
            (f32::INFINITY, u32::MAX)
        }
    }
}

impl Drop for TinyScene {
    fn drop(&mut self) {
        // SAFETY: the slot is this value's alone (made by `new`, never
        // copied out), and `drop` has it exclusively: no trace on it runs.
        unsafe { sylcol_tb_free(self.slot) }
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, TinyScene};
    use glam::Vec3;
    use sylcol::TriMesh;

    /// A `n` x `n` grid of unit squares (two triangles each) in z = 0.
    fn grid(n: u32) -> TriMesh {
        let v = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| Vec3::new(i as f32, j as f32, 0.0)))
            .collect();
        let at = |i: u32, j: u32| i * (n + 1) + j;
        let t = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .flat_map(|(i, j)| {
                [
                    [at(i, j), at(i + 1, j), at(i, j + 1)],
                    [at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)],
                ]
            })
            .collect();
        TriMesh::new(v, t)
    }

    /// The rays tinybvh-rs 0.1.0-beta.3 got wrong (benches/queries.md,
    /// "tinybvh"): straight down through every cell, two direction
    /// components zero. Every layout through the shim hits each at t = 1,
    /// on the cell's first triangle.
    #[test]
    fn every_layout_hits_axis_aligned_rays_on_a_grid() {
        let n = 40;
        let scene = TinyScene::new(&grid(n)).expect("builds");
        for l in Layout::ALL {
            for i in 0..n {
                for j in 0..n {
                    let ray = [i as f32 + 0.25, j as f32 + 0.25, 1.0, 0.0, 0.0, -1.0];
                    let (t, id) = scene.cast(l, &ray);
                    assert!((t - 1.0).abs() < 1e-6, "{}: cell {i},{j}: t {t}", l.name());
                    assert_eq!(id, 2 * (i * n + j), "{}: cell {i},{j}", l.name());
                }
            }
            let away = [0.5, 0.5, 1.0, 0.0, 0.0, 1.0];
            assert_eq!(
                scene.cast(l, &away),
                (f32::INFINITY, u32::MAX),
                "{}",
                l.name()
            );
        }
    }

    #[test]
    fn a_single_triangle_is_refused_and_scenes_free_their_slots() {
        let one = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
        let err = TinyScene::new(&one).err().expect("refused");
        assert!(err.contains("fewer than two triangles"), "{err}");
        // More scenes than the shim's 64 slots, one at a time: each drop
        // frees its slot.
        for _ in 0..100 {
            drop(TinyScene::new(&grid(2)).expect("builds"));
        }
    }
}
