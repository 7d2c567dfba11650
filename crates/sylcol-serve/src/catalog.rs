//! The objects a viewer shows: decoded once, named once, and the only
//! things the API can reach (a request names an object, never a path).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sylcol::TriMesh;
use sylcol::export::gltf::{
    GltfExportError, Layers, Scene, SceneOptions, library_scene, map_scene,
};
use sylcol::export::obj::write_obj;
use sylcol::export::object_name;
use sylcol::export::points::points_scene;
use sylcol::prelude::*;
use sylcol::query::Collider;
use sylcol::report::info::info_of;
use sylcol::report::verify::verify_object;
use sylcol::source::ColliderSpec;
use sylcol::source::spec::{BuildError, PickError, Target, target};
use sylcol::verify::{self, collisionset, flags};
use sylcol_format::{Object as Data, decode_any};

/// The most bytes of objects a catalog holds (each object's bytes once,
/// however many sources share them): twice the budget of one object
/// (`sylcol_format::budget::MAX_OBJECT`), 59 times what a viewer of the
/// sample `MiscBin.pak` holds (its eleven maps and the library once,
/// 2.2 MiB).
pub const MAX_HELD: u64 = 2 * sylcol_format::budget::MAX_OBJECT;

/// One object as the caller read it.
#[derive(Debug, Clone)]
pub struct Source {
    /// How the caller names it (`MiscBin.pak+$DC4B0896.MCOL`).
    pub path: String,
    /// Its bytes, shared with the other sources read from the same
    /// stored stream.
    pub bytes: Arc<Vec<u8>>,
}

impl Source {
    /// A source named `path` holding `bytes`.
    pub fn new(path: impl Into<String>, bytes: impl Into<Arc<Vec<u8>>>) -> Source {
        Source {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// A decoded object of the catalog.
#[derive(Debug)]
pub struct Object {
    /// Its name in the API (`$DC4B0896`, `CollisionSet_S01`).
    pub name: String,
    /// The source it was read from.
    pub source: Source,
    /// Other sources with the same bytes (the disc's eighteen library copies).
    pub aliases: Vec<String>,
    /// The decoded object (an MCOL map, a CollisionSet library, or a
    /// REGN with a vertex section, shown as its points).
    pub data: Data,
    /// What `info --json` says of it.
    pub info: Value,
}

/// Why a source is not in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The source.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// A built collider's object (its index) and library record, if a part.
type ColliderKey = (usize, Option<usize>);

/// The objects being shown, and the colliders built for queries so far.
#[derive(Debug, Default)]
pub struct Catalog {
    objects: Vec<Object>,
    colliders: Mutex<HashMap<ColliderKey, Arc<Collider>>>,
    /// The bytes of the objects held (at most [`MAX_HELD`]).
    held: u64,
}

impl Catalog {
    /// Decodes `sources`: maps, libraries and REGN point clouds are kept (a source whose
    /// bytes repeat an earlier one becomes its alias), everything else is
    /// returned as skipped with the reason. Names are made unique with
    /// `~2`, `~3`... (See [`Catalog::add`].)
    pub fn new(sources: Vec<Source>) -> (Catalog, Vec<Skipped>) {
        let mut catalog = Catalog::default();
        let skipped = sources
            .into_iter()
            .filter_map(|source| catalog.add(source).err())
            .collect();
        (catalog, skipped)
    }

    /// Adds one source, so that a caller reading many never holds more
    /// than the catalog keeps: an alias of an earlier object with the same
    /// bytes (shared, or equal); else a map, a library or a REGN with a
    /// vertex section (its points), decoded and kept while all objects'
    /// bytes stay within [`MAX_HELD`]; else skipped, with the reason.
    pub fn add(&mut self, source: Source) -> Result<(), Skipped> {
        let same = |o: &&mut Object| {
            Arc::ptr_eq(&o.source.bytes, &source.bytes) || o.source.bytes == source.bytes
        };
        if let Some(first) = self.objects.iter_mut().find(same) {
            first.aliases.push(source.path);
            return Ok(());
        }
        let skip = |path: String, reason: String| Err(Skipped { path, reason });
        let size = source.bytes.len() as u64;
        if self.held + size > MAX_HELD {
            let reason = format!(
                "not shown: {size} bytes, and the {} bytes of the objects before it leave less room than that within the {} MiB a viewer holds",
                self.held,
                MAX_HELD >> 20
            );
            return skip(source.path, reason);
        }
        let data = match decode_any(&source.bytes) {
            Ok(d @ (Data::Mcol(_) | Data::CollisionSet(_))) => d,
            Ok(Data::Regn(r)) if r.vertices().is_some_and(|v| !v.is_empty()) => Data::Regn(r),
            Ok(Data::Regn(_)) => {
                return skip(
                    source.path,
                    "a REGN without one vertex section (no section of stride 12, or several): no points to show (sylcol verify says why)".into(),
                );
            }
            Ok(_) => {
                return skip(
                    source.path,
                    "not an MCOL map, a CollisionSet library or a REGN".into(),
                );
            }
            Err(e) => return skip(source.path, e.to_string()),
        };
        let info = info_of(&source.path, &source.bytes)
            .ok()
            .and_then(|i| serde_json::to_value(i).ok())
            .unwrap_or_default();
        let base = object_name(&source.path);
        let mut name = base.clone();
        let mut k = 1;
        while self.objects.iter().any(|o| o.name == name) {
            k += 1;
            name = format!("{base}~{k}");
        }
        self.held += size;
        self.objects.push(Object {
            name,
            source,
            aliases: Vec::new(),
            data,
            info,
        });
        Ok(())
    }

    /// Every object, in the order given.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// The object named `name`: by its name first, else by the name of
    /// one of its aliases (`CollisionSet_S01` for the library listed as
    /// `CollisionSet_Tutorial`), as `object_name` makes it from the path.
    pub fn get(&self, name: &str) -> Option<&Object> {
        self.objects.iter().find(|o| o.name == name).or_else(|| {
            self.objects
                .iter()
                .find(|o| o.aliases.iter().any(|a| object_name(a) == name))
        })
    }

    /// The collider of map `object`, or of part `mesh` of a library
    /// (built on first use, then kept): the library's own choice of the
    /// part ([`target`]: `rou_e101_bdy` and `rou_e101_bdy_cmesh` are one
    /// part, found as `sylcol query --mesh` finds it) and collider
    /// ([`ColliderSpec`], the defaults of `sylcol query`).
    pub fn collider(
        &self,
        object: &Object,
        mesh: Option<&str>,
    ) -> Result<Arc<Collider>, ColliderError> {
        let index = self
            .objects
            .iter()
            .position(|o| std::ptr::eq(o, object))
            .ok_or(ColliderError::Foreign)?;
        let target = target(&object.name, &object.data, mesh)?;
        let record = match (&object.data, target) {
            (Data::CollisionSet(set), Target::Part(r)) => {
                set.records.iter().position(|x| std::ptr::eq(x, r))
            }
            _ => None,
        };
        let key = (index, record);
        let mut cache = self.colliders.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cache.get(&key) {
            return Ok(c.clone());
        }
        let path = match mesh {
            Some(mesh) => format!("{}+{mesh}", object.name),
            None => object.name.clone(),
        };
        let built = Arc::new(ColliderSpec::default().collider(&path, target)?);
        cache.insert(key, built.clone());
        Ok(built)
    }
}

/// Why an object offers no collider.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ColliderError {
    /// The object is not one of this catalog's.
    #[error("not an object of this catalog")]
    Foreign,
    /// No map, or no such part ([`PickError`], worded for the API's
    /// `"mesh"` field).
    #[error("{}", pick_text(.0))]
    Pick(#[from] PickError),
    /// The mesh is not one a collider takes.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// A [`PickError`] in the API's words (its field is `"mesh"`).
fn pick_text(e: &PickError) -> String {
    match e {
        PickError::MapHasNoParts { path, mesh } => {
            format!("{path} is a map; \"mesh\": {mesh:?} picks a library part")
        }
        PickError::NoPartNamed { path, records } => {
            format!("{path} is a library of {records} parts: name one with \"mesh\"")
        }
        PickError::NoSuchPart {
            path,
            mesh,
            records,
        } => {
            format!("{path} has no part named {mesh:?} (nor {mesh}_cmesh) among {records} records")
        }
        PickError::NothingToQuery { path } => format!("{path} has no collision mesh to query"),
    }
}

impl Object {
    /// `map`, `library` or `points` (a REGN's vertex section).
    pub fn kind(&self) -> &'static str {
        match self.data {
            Data::Mcol(_) => "map",
            Data::CollisionSet(_) => "library",
            Data::Regn(_) => "points",
            _ => "other",
        }
    }

    /// The `GET /api/objects` entry: name, kind, source, aliases, parts
    /// (a library's record names), points (a REGN's count) and what
    /// `info --json` says.
    pub fn summary(&self) -> Value {
        let mut v = json!({
            "name": self.name,
            "kind": self.kind(),
            "path": self.source.path,
            "aliases": self.aliases,
            "info": self.info,
        });
        if let Data::CollisionSet(set) = &self.data {
            v["parts"] = json!(set.records.iter().map(|r| r.name()).collect::<Vec<_>>());
        }
        if let Data::Regn(r) = &self.data {
            v["points"] = json!(r.vertices().map_or(0, |p| p.len()));
        }
        v
    }

    /// The object's glTF scene with `layers` (a library takes hull and
    /// failures only; a REGN is its one `points` layer).
    pub fn scene(&self, layers: Layers) -> Result<Scene, GltfExportError> {
        let opts = SceneOptions {
            layers,
            scale: 1.0,
            extras: Some(self.info.clone()),
        };
        match &self.data {
            Data::Mcol(m) => map_scene(&self.name, m, &opts),
            Data::CollisionSet(set) => library_scene(&self.name, set, &opts),
            Data::Regn(r) => {
                let points = r.vertices().unwrap_or_default();
                points_scene(&points, &self.name, &opts)
                    .map_err(|e| GltfExportError::Layer(format!("{}: {e}", self.name)))
            }
            _ => Err(GltfExportError::Layer(format!(
                "{}: no mesh to export",
                self.name
            ))),
        }
    }

    /// The object as OBJ text, as `sylcol export` writes it: a map's hull,
    /// or part `mesh` of a library (`--mesh`).
    pub fn obj(&self, mesh: Option<&str>) -> Result<Vec<u8>, String> {
        let (mesh, name) = match (&self.data, mesh) {
            (Data::Mcol(m), None) => (TriMesh::from_mcol(m), self.name.clone()),
            (Data::CollisionSet(set), Some(part)) => {
                let r = set.get(part).ok_or_else(|| {
                    format!(
                        "{}: no mesh named {part:?} among {} records",
                        self.name,
                        set.records.len()
                    )
                })?;
                (TriMesh::from_collision_record(r), r.name())
            }
            (Data::CollisionSet(set), None) => {
                return Err(format!(
                    "{} is a library of {} parts: name one with ?mesh=",
                    self.name,
                    set.records.len()
                ));
            }
            (Data::Regn(_), _) => {
                return Err(format!(
                    "{} is a REGN: points, no mesh to write as OBJ (sylcol export writes them as PLY)",
                    self.name
                ));
            }
            _ => return Err(format!("{}: no single mesh to write as OBJ", self.name)),
        };
        let mut out = Vec::new();
        write_obj(&mut out, &mesh, &name).map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// The layers the object has: all five for a map, hull and failures
    /// for a library.
    pub fn layers(&self) -> Layers {
        match self.data {
            Data::Mcol(_) => Layers::all(),
            Data::CollisionSet(_) => Layers::parse("hull,failures").unwrap_or_default(),
            _ => Layers::HULL,
        }
    }

    /// What `verify --json` says of the object (its `objects` row over
    /// the same sources: `shares_content_with` names the aliases), plus
    /// `name` and `flagged`: the triangles and cells (a library: the
    /// parts) the failing checks count against.
    pub fn verify(&self) -> Value {
        let seed = verify::DEFAULT_SEED;
        let bytes = &self.source.bytes;
        let report = verify_object(&self.source.path, bytes, &self.data, None, seed);
        let mut v = serde_json::to_value(report).unwrap_or_default();
        let flagged = match &self.data {
            Data::Mcol(m) => serde_json::to_value(flags::mcol_flags(m)).unwrap_or_default(),
            Data::CollisionSet(set) => {
                let bad: Vec<Value> = set
                    .records
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| !TriMesh::from_collision_record(r).indices_in_range())
                    .map(|(i, r)| json!({ "record": i, "name": r.name(), "checks": [collisionset::names::INDICES.id] }))
                    .collect();
                json!({ "parts": bad })
            }
            _ => json!({}),
        };
        v["shares_content_with"] = json!(self.aliases);
        v["name"] = json!(self.name);
        v["flagged"] = flagged;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let dir = env!("CARGO_MANIFEST_DIR");
        std::fs::read(format!("{dir}/../../tests/fixtures/{name}")).unwrap()
    }

    #[test]
    fn shared_bytes_are_one_object_and_count_once() {
        let twin = Arc::new(fixture("twin.mcol"));
        let mut c = Catalog::default();
        for path in ["a+$1", "a+$2", "a+$3"] {
            c.add(Source::new(path, twin.clone())).unwrap();
        }
        assert_eq!(c.objects().len(), 1);
        assert_eq!(c.objects()[0].aliases, ["a+$2", "a+$3"]);
        assert_eq!(c.held, twin.len() as u64);
    }

    #[test]
    fn no_more_than_max_held_is_kept() {
        let mut c = Catalog::default();
        c.add(Source::new("twin.mcol", fixture("twin.mcol")))
            .unwrap();
        c.held = MAX_HELD - 100;
        let skipped = c.add(Source::new("box.mcol", fixture("box.mcol")));
        let reason = skipped.unwrap_err().reason;
        assert!(
            reason.contains("within the 128 MiB a viewer holds"),
            "{reason}"
        );
        assert_eq!(c.objects().len(), 1);
        // An alias of what is held costs nothing.
        c.add(Source::new("copy.mcol", fixture("twin.mcol")))
            .unwrap();
    }

    #[test]
    fn a_regn_is_shown_as_its_points() {
        let bytes = fixture("twin.regn");
        let Ok(Data::Regn(r)) = decode_any(&bytes) else {
            panic!("twin.regn is a REGN");
        };
        let points = r.vertices().unwrap();
        let (c, skipped) = Catalog::new(vec![Source::new("a/twin.regn", bytes)]);
        assert_eq!(skipped, []);
        let o = &c.objects()[0];
        assert_eq!(o.kind(), "points");
        assert_eq!(o.summary()["points"], points.len());
        assert_eq!(o.summary()["info"]["format"], "REGN");
        let glb = o.scene(o.layers()).unwrap().to_glb().unwrap();
        assert_eq!(&glb[..4], b"glTF");
        assert!(o.obj(None).unwrap_err().contains("is a REGN"));
        assert!(
            o.verify()["checks"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        );
    }
}
