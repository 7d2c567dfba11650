//! Writing meshes in the formats people open.

pub mod gltf;
mod gltf_doc;
mod layers;
mod library_gltf;
mod map_gltf;
pub mod obj;
mod scene;
