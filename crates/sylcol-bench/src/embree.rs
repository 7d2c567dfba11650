//! Embree 3 through the `embree3` crate (safe bindings to Embree 3.13.5,
//! linked against Debian's libembree-dev): one scene per mesh, built with
//! `RTC_BUILD_QUALITY_HIGH` on a device of one build thread, robust flag
//! off or on; runs of rays through `rtcIntersect1` (`Scene::intersect`) or
//! `rtcIntersect8` (`Scene::intersect8`). `EMBREE_CONFIG` in the
//! environment adds to the device's configuration (`max_isa=avx2` holds
//! Embree to its AVX2 kernels; `verbose=2` prints each tree's statistics).

use embree3::{
    BufferUsage, BuildQuality, Config, Device, Format, FrequencyLevel, GeometryKind, Hit, Hit8,
    IntersectContext, Isa, Ray, Ray8, RayHit, RayHit8, Scene, SceneFlags, ValidMask, ValidMaskN,
};
use glam::{BVec4A, Vec4, Vec4Swizzles};
use sylcol::TriMesh;

/// Embree's "no geometry" id (`RTC_INVALID_GEOMETRY_ID`).
const INVALID: u32 = u32::MAX;

/// A committed Embree scene over one mesh (it holds its device).
pub struct EmbreeScene {
    scene: Scene<'static>,
}

impl EmbreeScene {
    /// Builds the scene; `robust` sets `RTC_SCENE_FLAG_ROBUST`.
    ///
    /// Built on a thread of its own: the crate turns on flush-to-zero and
    /// denormals-are-zero on the thread that makes a device, which would
    /// change the float arithmetic of every method timed after it on the
    /// harness's thread.
    pub fn new(mesh: &TriMesh, robust: bool) -> Self {
        std::thread::scope(|s| s.spawn(|| Self::build(mesh, robust)).join())
            .expect("Embree's scene build panicked")
    }

    fn build(mesh: &TriMesh, robust: bool) -> Self {
        let device = Device::with_config(device_config()).expect("Embree's device");
        let mut g = device
            .create_geometry(GeometryKind::TRIANGLE)
            .expect("Embree's triangle geometry");
        g.set_build_quality(BuildQuality::HIGH);
        let verts: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.to_array()).collect();
        g.set_new_buffer::<[f32; 3]>(BufferUsage::VERTEX, 0, Format::FLOAT3, 12, verts.len())
            .expect("Embree's vertex buffer")
            .copy_from_slice(&verts);
        let n = mesh.triangles.len();
        g.set_new_buffer::<[u32; 3]>(BufferUsage::INDEX, 0, Format::UINT3, 12, n)
            .expect("Embree's index buffer")
            .copy_from_slice(&mesh.triangles);
        let g = g.commit();
        let mut scene = device.create_scene().expect("Embree's scene");
        scene.set_build_quality(BuildQuality::HIGH);
        scene.set_flags(if robust {
            SceneFlags::ROBUST
        } else {
            SceneFlags::NONE
        });
        scene.attach_geometry(&g);
        scene.commit();
        let error = device.get_error();
        assert!(
            error == embree3::Error::NONE,
            "Embree could not build the scene: {error:?}"
        );
        EmbreeScene { scene }
    }

    /// Casts `rays` (origin xyz, direction xyz; one `rtcIntersect1` each, or packets of eight with
    /// `rtcIntersect8`) into `t` (+inf for a miss) and `id` (u32::MAX).
    pub fn intersect(&self, rays: &[[f32; 6]], packets: bool, t: &mut [f32], id: &mut [u32]) {
        assert!(t.len() == rays.len() && id.len() == rays.len());
        if packets {
            self.intersect8(rays, t, id);
        } else {
            self.intersect1(rays, t, id);
        }
    }

    fn intersect1(&self, rays: &[[f32; 6]], t: &mut [f32], id: &mut [u32]) {
        let mut ctx = IntersectContext::incoherent();
        // Opaque to the optimiser, which would otherwise see that lane w
        // is zero and store the lanes one by one again.
        let xyz = std::hint::black_box(BVec4A::new(true, true, true, false));
        for ((r, t), id) in rays.iter().zip(t).zip(id) {
            // Origin and tnear, direction and time, each made as one
            // 16-byte vector: Embree reads each with one 16-byte load, and
            // a load that spans several stores still on their way to the
            // cache waits for them all (field by field, the compiler
            // stored them as 8 + 4 + 4 bytes: 3-15 % more per ray).
            let o = Vec4::select(xyz, Vec4::from_slice(&r[0..4]), Vec4::ZERO).to_array();
            let d = Vec4::from_slice(&r[2..6]).yzwx();
            let d = Vec4::select(xyz, d, Vec4::ZERO).to_array();
            let mut rh = RayHit {
                ray: Ray {
                    org_x: o[0],
                    org_y: o[1],
                    org_z: o[2],
                    tnear: o[3],
                    dir_x: d[0],
                    dir_y: d[1],
                    dir_z: d[2],
                    time: d[3],
                    tfar: f32::INFINITY,
                    mask: u32::MAX,
                    id: 0,
                    flags: 0,
                },
                hit: Hit::default(),
            };
            self.scene.intersect(&mut ctx, &mut rh);
            (*t, *id) = answer(rh.hit.geomID, rh.ray.tfar, rh.hit.primID);
        }
    }

    /// Packets of eight (the last one masked, its idle lanes copies of
    /// its first ray).
    fn intersect8(&self, rays: &[[f32; 6]], t: &mut [f32], id: &mut [u32]) {
        let mut ctx = IntersectContext::incoherent();
        for ((rays, t), id) in rays.chunks(8).zip(t.chunks_mut(8)).zip(id.chunks_mut(8)) {
            let r = |k: usize, f: usize| rays[if k < rays.len() { k } else { 0 }][f];
            let row = |f: usize| std::array::from_fn(|k| r(k, f));
            let mut rh = RayHit8 {
                ray: Ray8 {
                    org_x: row(0),
                    org_y: row(1),
                    org_z: row(2),
                    tnear: [0.0; 8],
                    dir_x: row(3),
                    dir_y: row(4),
                    dir_z: row(5),
                    time: [0.0; 8],
                    tfar: [f32::INFINITY; 8],
                    mask: [u32::MAX; 8],
                    id: std::array::from_fn(|k| k as u32),
                    flags: [0; 8],
                },
                hit: Hit8 {
                    Ng_x: [0.0; 8],
                    Ng_y: [0.0; 8],
                    Ng_z: [0.0; 8],
                    u: [0.0; 8],
                    v: [0.0; 8],
                    primID: [INVALID; 8],
                    geomID: [INVALID; 8],
                    instID: [[INVALID; 8]],
                },
            };
            let valid = ValidMaskN::new(std::array::from_fn(|k| {
                if k < rays.len() {
                    ValidMask::Valid
                } else {
                    ValidMask::Invalid
                }
            }));
            self.scene.intersect8(&mut ctx, &mut rh, &valid);
            for k in 0..rays.len() {
                (t[k], id[k]) = answer(rh.hit.geomID[k], rh.ray.tfar[k], rh.hit.primID[k]);
            }
        }
    }
}

/// A ray's answer: (t, primitive id), or (+inf, u32::MAX) for a miss.
#[inline]
fn answer(geom: u32, tfar: f32, prim: u32) -> (f32, u32) {
    if geom == INVALID {
        (f32::INFINITY, u32::MAX)
    } else {
        (tfar, prim)
    }
}

/// What `EMBREE_CONFIG` adds to the device's configuration (empty when
/// unset).
pub fn config() -> String {
    std::env::var("EMBREE_CONFIG").unwrap_or_default()
}

/// The device's configuration: one build thread, no affinity, then each
/// `key=value` of `EMBREE_CONFIG` (the crate builds Embree's
/// configuration string from fields, so each key it has a field for is
/// read here; any other key stops the harness).
fn device_config() -> Config {
    let mut c = Config {
        threads: 1,
        set_affinity: false,
        ..Config::default()
    };
    for item in config().split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = item
            .split_once('=')
            .unwrap_or_else(|| panic!("EMBREE_CONFIG: {item:?} is not key=value"));
        let (key, value) = (key.trim(), value.trim());
        let number = || -> u32 {
            (value.parse())
                .unwrap_or_else(|_| panic!("EMBREE_CONFIG: {key}={value} is not a number"))
        };
        match key {
            "threads" => c.threads = number(),
            "user_threads" => c.user_threads = number(),
            "verbose" => c.verbose = number(),
            "set_affinity" => c.set_affinity = number() != 0,
            "start_threads" => c.start_threads = number() != 0,
            "hugepages" => c.hugepages = number() != 0,
            "isa" => c.isa = Some(isa(value)),
            "max_isa" => c.max_isa = isa(value),
            "frequency_level" => c.frequency_level = Some(frequency_level(value)),
            _ => panic!(
                "EMBREE_CONFIG: {key} is not a setting the embree3 crate passes on \
                 (threads, user_threads, verbose, set_affinity, start_threads, hugepages, \
                 isa, max_isa, frequency_level)"
            ),
        }
    }
    c
}

/// An ISA as Embree names it.
fn isa(name: &str) -> Isa {
    match name {
        "sse2" => Isa::Sse2,
        "sse4.2" => Isa::Sse4_2,
        "avx" => Isa::Avx,
        "avx2" => Isa::Avx2,
        "avx512" | "avx512skx" => Isa::Avx512,
        _ => panic!("EMBREE_CONFIG: unknown ISA {name} (sse2, sse4.2, avx, avx2, avx512)"),
    }
}

/// A frequency level as Embree names it.
fn frequency_level(name: &str) -> FrequencyLevel {
    match name {
        "simd128" => FrequencyLevel::Simd128,
        "simd256" => FrequencyLevel::Simd256,
        "simd512" => FrequencyLevel::Simd512,
        _ => panic!("EMBREE_CONFIG: unknown frequency level {name} (simd128, simd256, simd512)"),
    }
}
