//! What a glTF scene shows: the layers (`--layers hull,cells,...`), the
//! display scale and the `extras` of the object's root node.

use serde_json::Value;

/// One layer of an exported scene; each is its own node, hidden or shown
/// on its own in Blender or the viewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The collision mesh, translucent.
    Hull,
    /// A map's occupied grid cells as wire boxes coloured by list length.
    Cells,
    /// A map's cell-record bounding spheres.
    CellSpheres,
    /// A map's per-triangle bounding spheres.
    TriSpheres,
    /// The triangles and cells a failing `verify` check counts against, red.
    Failures,
}

impl Layer {
    /// Every layer, in drawing order.
    pub const ALL: [Layer; 5] = [
        Layer::Hull,
        Layer::Cells,
        Layer::CellSpheres,
        Layer::TriSpheres,
        Layer::Failures,
    ];

    /// The layer's name on the command line, in node names and extras.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Hull => "hull",
            Layer::Cells => "cells",
            Layer::CellSpheres => "cell-spheres",
            Layer::TriSpheres => "tri-spheres",
            Layer::Failures => "failures",
        }
    }

    /// The layer a name means.
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether only maps have this layer (a CollisionSet stores no grid
    /// and no spheres).
    pub fn map_only(self) -> bool {
        matches!(self, Layer::Cells | Layer::CellSpheres | Layer::TriSpheres)
    }
}

/// A set of layers. `all` is kept as such: it means every layer that
/// applies to the object exported (a library: hull and failures), where
/// a map's layer named for a library is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers(u8);

/// The bit of [`Layers`] that says `all` was asked for.
const EVERY: u8 = 1 << 7;

impl Layers {
    /// Only the hull (the default).
    pub const HULL: Layers = Layers(1);

    /// Every layer that applies to the object.
    pub fn all() -> Layers {
        Layers(((1 << Layer::ALL.len()) - 1) | EVERY)
    }

    /// The layers of the set that a library has (hull, failures): with
    /// `all`, the map's layers dropped; else an error naming the first
    /// map's layer asked for.
    pub fn for_library(self) -> Result<Layers, String> {
        let every = self.0 & EVERY != 0;
        let mut kept = Layers::none();
        for layer in self.iter() {
            if !layer.map_only() {
                kept = kept.with(layer);
            } else if !every {
                return Err(format!(
                    "the {} layer is a map's: a CollisionSet stores no grid and no spheres (layers here: hull, failures, or all)",
                    layer.name()
                ));
            }
        }
        Ok(kept)
    }

    /// No layer.
    pub fn none() -> Layers {
        Layers(0)
    }

    /// Whether `layer` is in the set.
    pub fn has(self, layer: Layer) -> bool {
        self.0 & (1 << layer as u8) != 0
    }

    /// The set with `layer` added.
    pub fn with(self, layer: Layer) -> Layers {
        Layers(self.0 | (1 << layer as u8))
    }

    /// The layers in the set, in drawing order.
    pub fn iter(self) -> impl Iterator<Item = Layer> {
        Layer::ALL.into_iter().filter(move |&l| self.has(l))
    }

    /// Parses `hull,cells,...` (`all` for every layer that applies to
    /// the object). Errors name the unknown word and the known ones.
    pub fn parse(list: &str) -> Result<Layers, String> {
        let mut set = Layers::none();
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if word == "all" {
                set = Layers::all();
                continue;
            }
            let layer = Layer::from_name(word).ok_or_else(|| {
                format!("unknown layer {word:?} (layers: hull, cells, cell-spheres, tri-spheres, failures, all)")
            })?;
            set = set.with(layer);
        }
        if set == Layers::none() {
            return Err(
                "no layer named (layers: hull, cells, cell-spheres, tri-spheres, failures, all)"
                    .into(),
            );
        }
        Ok(set)
    }
}

impl Default for Layers {
    fn default() -> Self {
        Layers::HULL
    }
}

/// How to export one object as a glTF scene.
#[derive(Debug, Clone)]
pub struct SceneOptions {
    /// The layers to write.
    pub layers: Layers,
    /// A uniform display scale on the root node (1 = none). Axes stay the
    /// file's own; the geometry underneath keeps its exact coordinates.
    pub scale: f32,
    /// The root node's `extras`: what `info --json` says of the object.
    /// For a CollisionSet its `meshes` entries go onto the part nodes.
    pub extras: Option<Value>,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            layers: Layers::HULL,
            scale: 1.0,
            extras: None,
        }
    }
}

/// The `extras` key that marks a debug layer's node (its value is the
/// layer name). Importers skip such nodes and everything under them.
pub const LAYER_KEY: &str = "sylcol_layer";

/// The `extras` key holding a CollisionSet part's record index.
pub const RECORD_KEY: &str = "sylcol_record";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_lists_parse() {
        let l = Layers::parse("hull, tri-spheres").unwrap();
        assert!(l.has(Layer::Hull) && l.has(Layer::TriSpheres) && !l.has(Layer::Cells));
        assert_eq!(Layers::parse("all").unwrap(), Layers::all());
        assert_eq!(Layers::all().iter().count(), 5);
        let e = Layers::parse("hull,walls").unwrap_err();
        assert!(e.contains("\"walls\""), "{e}");
        assert!(Layers::parse(",").is_err());
    }
}
