//! TEMPORARY (issue 34): the former Embree FFI, kept for one commit to
//! compare with the `embree3` crate (`sylcol-bench embree-vs-shim`).
//!
//! Embree 3 through the C shim (`embree_shim.c`): one scene per mesh,
//! built with `RTC_BUILD_QUALITY_HIGH` on a device of one build thread,
//! robust flag off or on; runs of rays through `rtcIntersect1` or
//! `rtcIntersect8`. `EMBREE_CONFIG` in the environment is appended to the
//! device's configuration (`max_isa=avx2` holds Embree to its AVX2
//! kernels; `verbose=2` prints each tree's statistics).

use std::ffi::{CString, c_void};

use sylcol::TriMesh;

use crate::embree::config;

unsafe extern "C" {
    fn sylcol_embree_new(
        verts: *const f32,
        nv: usize,
        tris: *const u32,
        nt: usize,
        robust: i32,
        config: *const std::ffi::c_char,
    ) -> *mut c_void;
    fn sylcol_embree_free(scene: *mut c_void);
    fn sylcol_embree_intersect1(
        scene: *mut c_void,
        rays: *const f32,
        n: usize,
        t: *mut f32,
        id: *mut u32,
    );
    fn sylcol_embree_intersect8(
        scene: *mut c_void,
        rays: *const f32,
        n: usize,
        t: *mut f32,
        id: *mut u32,
    );
}

/// A committed Embree scene over one mesh.
pub struct ShimScene {
    ptr: *mut c_void,
}

// SAFETY: a committed Embree scene may be traced from any number of
// threads at once (Embree's documented contract for rtcIntersect*); the
// shim never mutates it after the commit.
unsafe impl Send for ShimScene {}
// SAFETY: as above.
unsafe impl Sync for ShimScene {}

impl ShimScene {
    /// Builds the scene; `robust` sets `RTC_SCENE_FLAG_ROBUST`.
    pub fn new(mesh: &TriMesh, robust: bool) -> Self {
        let verts: Vec<f32> = mesh.vertices.iter().flat_map(|v| v.to_array()).collect();
        let tris: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
        let config = config();
        assert!(
            config.len() <= 400,
            "EMBREE_CONFIG is longer than 400 bytes"
        );
        let config = CString::new(config).expect("EMBREE_CONFIG holds no NUL byte");
        // SAFETY: the pointers and counts describe the two vectors above,
        // which outlive the call (the shim copies them); `config` is a C
        // string that outlives it too.
        let ptr = unsafe {
            sylcol_embree_new(
                verts.as_ptr(),
                mesh.vertices.len(),
                tris.as_ptr(),
                mesh.triangles.len(),
                i32::from(robust),
                config.as_ptr(),
            )
        };
        assert!(!ptr.is_null(), "Embree could not build the scene");
        ShimScene { ptr }
    }

    /// Casts `rays` (origin xyz, direction xyz; one `rtcIntersect1` each, or packets of eight with
    /// `rtcIntersect8`) into `t` (+inf for a miss) and `id` (u32::MAX).
    pub fn intersect(&self, rays: &[[f32; 6]], packets: bool, t: &mut [f32], id: &mut [u32]) {
        assert!(t.len() == rays.len() && id.len() == rays.len());
        let flat = rays.as_ptr().cast::<f32>();
        // SAFETY: `rays` is 6 n contiguous f32; the outputs hold n elements
        // each; the scene is committed.
        unsafe {
            if packets {
                sylcol_embree_intersect8(
                    self.ptr,
                    flat,
                    rays.len(),
                    t.as_mut_ptr(),
                    id.as_mut_ptr(),
                )
            } else {
                sylcol_embree_intersect1(
                    self.ptr,
                    flat,
                    rays.len(),
                    t.as_mut_ptr(),
                    id.as_mut_ptr(),
                )
            }
        }
    }
}

impl Drop for ShimScene {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `sylcol_embree_new` and is freed once.
        unsafe { sylcol_embree_free(self.ptr) }
    }
}

/// `sylcol-bench embree-vs-shim`: per scene, Embree through the shim and
/// through the crate, `rtcIntersect1` and `rtcIntersect8`, robust flag off
/// and on, timed in interleaved rounds; ns per ray and the rays whose
/// answers (t and primitive id) differ by a single bit.
pub fn compare(scenes: &[crate::scenes::Scene], rounds: usize) {
    use crate::embree::EmbreeScene;
    use crate::methods::Answers;
    use crate::timing::{CHUNK, interleaved};
    println!(
        "| scene | triangles | rays | robust | packets | shim ns/ray | crate ns/ray | crate/shim | hits shim / crate | answers differing |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for s in scenes {
        for robust in [false, true] {
            let shim = ShimScene::new(&s.mesh, robust);
            let krate = EmbreeScene::new(&s.mesh, robust);
            for packets in [false, true] {
                let n = s.flat.len();
                let mut out = [Answers::new(n), Answers::new(n)];
                let best = interleaved(2, n, rounds, CHUNK, |m, range| {
                    let (t, id) = (&mut out[m].t[range.clone()], &mut out[m].id[range.clone()]);
                    let rays = &s.flat[range];
                    if m == 0 {
                        shim.intersect(rays, packets, t, id);
                    } else {
                        krate.intersect(rays, packets, t, id);
                    }
                });
                let differ = (0..n)
                    .filter(|&k| {
                        out[0].t[k].to_bits() != out[1].t[k].to_bits()
                            || out[0].id[k] != out[1].id[k]
                    })
                    .count();
                println!(
                    "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.3} | {} / {} | {} |",
                    s.name,
                    s.mesh.triangles.len(),
                    n,
                    if robust { "on" } else { "off" },
                    if packets {
                        "rtcIntersect8"
                    } else {
                        "rtcIntersect1"
                    },
                    best[0],
                    best[1],
                    best[1] / best[0],
                    out[0].hits(),
                    out[1].hits(),
                    differ,
                );
            }
        }
    }
}
