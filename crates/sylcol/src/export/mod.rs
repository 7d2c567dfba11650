//! Writing meshes in the formats people open.

pub mod obj;
