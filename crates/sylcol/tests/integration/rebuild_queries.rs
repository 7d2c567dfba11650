//! Query answers survive a round trip through a modder's tools: every
//! sample map is exported as OBJ and as glTF, imported back, and built on
//! the original's grid (what `sylcol build mcol --grid-from` does); 10 000
//! random queries per map — a ray, an inside test and a closest point each
//! — must answer exactly as on the original file.

use std::path::Path;
use std::sync::OnceLock;

use glam::Vec3;
use proptest::prelude::*;
use sylcol::TriMesh;
use sylcol::build::mcol::{McolBuildOptions, build_mcol};
use sylcol::export::gltf::to_gltf;
use sylcol::export::obj::write_obj;
use sylcol::format::ipfb::Archive;
use sylcol::format::mcol::{self, Mcol};
use sylcol::import::{ImportOptions, MeshFormat, import_bytes};
use sylcol::prelude::*;
use sylcol::query::{Collider, Ray};

/// A sample map: the original collider, the two rebuilt ones, its box.
struct Map {
    name: String,
    original: Collider,
    rebuilt: [(&'static str, Collider); 2],
    lo: Vec3,
    hi: Vec3,
}

/// Every MCOL of the sample archive.
pub(crate) fn sample_maps() -> Vec<Mcol> {
    let pak = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/MiscBin.pak");
    let archive = Archive::open(&pak).unwrap();
    archive
        .entries()
        .iter()
        .map(|e| archive.read_entry(&archive.probe(e).unwrap()).unwrap())
        .filter(|bytes| bytes.starts_with(b"MCOL"))
        .map(|bytes| mcol::decode(&bytes).unwrap())
        .collect()
}

/// The mesh written as `format` and read back, built on `original`'s grid.
fn rebuilt(original: &Mcol, format: MeshFormat) -> Collider {
    let mesh = TriMesh::from_mcol(original);
    let bytes = match format {
        MeshFormat::Obj => {
            let mut out = Vec::new();
            write_obj(&mut out, &mesh, "map").unwrap();
            out
        }
        _ => to_gltf(&mesh, "map").unwrap(),
    };
    let back = import_bytes(&bytes, format, None, &ImportOptions::default()).unwrap();
    let h = &original.header;
    let options = McolBuildOptions {
        bbox: Some((h.prefix.bbox_min, h.prefix.bbox_max)),
        cell: Some(h.prefix.cell_size[0]),
    };
    Collider::from_mcol(&build_mcol(&back, &options).unwrap()).unwrap()
}

fn maps() -> &'static [Map] {
    static MAPS: OnceLock<Vec<Map>> = OnceLock::new();
    MAPS.get_or_init(|| {
        let maps: Vec<Map> = sample_maps()
            .iter()
            .enumerate()
            .map(|(i, m)| Map {
                name: format!("sample map {i} ({} triangles)", m.triangles.len()),
                original: Collider::from_mcol(m).unwrap(),
                rebuilt: [
                    ("OBJ", rebuilt(m, MeshFormat::Obj)),
                    ("glTF", rebuilt(m, MeshFormat::Gltf)),
                ],
                lo: Vec3::from_array(m.header.prefix.bbox_min),
                hi: Vec3::from_array(m.header.prefix.bbox_max),
            })
            .collect();
        assert_eq!(maps.len(), 11, "the sample archive holds eleven maps");
        maps
    })
}

/// A point of the map's box grown by a tenth on every side, from fractions.
fn at(m: &Map, f: [f32; 3]) -> Vec3 {
    let grow = (m.hi - m.lo) * 0.1;
    (m.lo - grow) + (m.hi - m.lo + 2.0 * grow) * Vec3::from_array(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn queries_answer_the_same_on_the_rebuilt_map(
        origin in prop::array::uniform3(0.0f32..1.0),
        dir in prop::array::uniform3(-1.0f32..1.0),
        point in prop::array::uniform3(0.0f32..1.0),
    ) {
        let dir = Vec3::from_array(dir);
        prop_assume!(dir.length_squared() > 1e-6);
        for m in maps() {
            let ray = Ray::new(at(m, origin), dir);
            let p = at(m, point);
            let want = (
                m.original.cast_ray(&ray, f32::INFINITY).unwrap(),
                m.original.contains_point(p).unwrap(),
                m.original.closest_point(p).unwrap(),
            );
            for (via, c) in &m.rebuilt {
                let got = (
                    c.cast_ray(&ray, f32::INFINITY).unwrap(),
                    c.contains_point(p).unwrap(),
                    c.closest_point(p).unwrap(),
                );
                prop_assert_eq!(&got, &want, "{} rebuilt via {}", m.name, via);
            }
        }
    }
}
