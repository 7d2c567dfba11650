//! Writing meshes in the formats people open.

pub mod gltf;
pub mod obj;
