//! A whole archive as one glTF scene: a root node named after the
//! archive, and under it a node per object, each as its own export makes
//! it — a map with its layers, a library with its parts, a REGN's vertex
//! section as a point cloud. Every object keeps its file's coordinates;
//! the display scale sits on the archive's root. Objects with the same
//! bytes are added once; `extras.sylcol_entries` on an object's node
//! names every entry it stands for.

use serde_json::{Value, json};
use sylcol_format::collisionset::CollisionSet;
use sylcol_format::mcol::Mcol;

use super::gltf_doc::{Doc, GltfExportError, Ix};
use super::layers::SceneOptions;
use super::library_gltf::library_node;
use super::map_gltf::map_node;
use super::points::{PointsError, points_node};
use super::scene::{Scene, root_node};

/// The `extras` key naming every archive entry an object's node stands for.
pub const ENTRIES_KEY: &str = "sylcol_entries";

/// An archive's scene being assembled, an object at a time.
#[derive(Debug, Default)]
pub struct ArchiveScene {
    doc: Doc,
    objects: Vec<Ix>,
}

impl ArchiveScene {
    /// An empty scene.
    pub fn new() -> Self {
        ArchiveScene::default()
    }

    /// Whether no object was added.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Adds map `name` with the layers of `opts` (its scale is ignored:
    /// the archive's root carries it).
    pub fn add_map(
        &mut self,
        name: &str,
        mcol: &Mcol,
        opts: &SceneOptions,
    ) -> Result<ObjectNode, GltfExportError> {
        let node = map_node(&mut self.doc, name, mcol, &unscaled(opts))?;
        Ok(self.push(node))
    }

    /// Adds library `name`, a child node per part (as [`super::gltf::library_scene`]).
    pub fn add_library(
        &mut self,
        name: &str,
        set: &CollisionSet,
        opts: &SceneOptions,
    ) -> Result<ObjectNode, GltfExportError> {
        let node = library_node(&mut self.doc, name, set, &unscaled(opts))?;
        Ok(self.push(node))
    }

    /// Adds `points` (a REGN's vertex section) as a point cloud `name`,
    /// with `extras` on its node.
    pub fn add_points(
        &mut self,
        name: &str,
        points: &[[f32; 3]],
        extras: Option<Value>,
    ) -> Result<ObjectNode, PointsError> {
        let node = points_node(&mut self.doc, points, name)?;
        if let Some(e) = extras.filter(Value::is_object) {
            self.doc.nodes_mut(node)["extras"] = e;
        }
        Ok(self.push(node))
    }

    fn push(&mut self, node: Ix) -> ObjectNode {
        self.objects.push(node);
        ObjectNode(node)
    }

    /// Records that `node` stands for the archive entries `entries`.
    pub fn set_entries(&mut self, node: ObjectNode, entries: &[String]) {
        let n = self.doc.nodes_mut(node.0);
        if !n.get("extras").is_some_and(Value::is_object) {
            n["extras"] = json!({});
        }
        n["extras"][ENTRIES_KEY] = json!(entries);
    }

    /// The finished scene: a root node `name` (the archive) with the
    /// display scale of `opts`, every object below it.
    pub fn finish(mut self, name: &str, opts: &SceneOptions) -> Scene {
        let extras = json!({ "format": "IPFB", "objects": self.objects.len() });
        let root = root_node(&mut self.doc, name, opts, Some(extras));
        self.doc.set_children(root, &self.objects);
        Scene::new(self.doc, vec![root])
    }
}

/// An object's node in an [`ArchiveScene`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectNode(Ix);

fn unscaled(opts: &SceneOptions) -> SceneOptions {
    SceneOptions {
        scale: 1.0,
        ..opts.clone()
    }
}
