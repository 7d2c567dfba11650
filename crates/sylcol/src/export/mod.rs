//! Writing meshes out for editing.

pub mod gltf;
