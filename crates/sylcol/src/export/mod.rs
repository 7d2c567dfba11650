//! Writing meshes in the formats people open.

mod archive_gltf;
pub mod gltf;
mod gltf_doc;
mod layers;
mod library_gltf;
mod map_gltf;
pub mod obj;
pub mod points;
mod scene;

/// The name an object gets in exported scenes and in the viewer: the last
/// component of its path or archive entry, up to the first dot
/// (`MiscBin.pak+$DC4B0896.MCOL` -> `$DC4B0896`).
pub fn object_name(path: &str) -> String {
    let last = path.rsplit(['/', '\\', '+']).next().unwrap_or(path);
    last.split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(last)
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn object_names() {
        assert_eq!(
            super::object_name("x/MiscBin.pak+$DC4B0896.MCOL"),
            "$DC4B0896"
        );
        assert_eq!(
            super::object_name("a\\CollisionSet_S01.bin"),
            "CollisionSet_S01"
        );
        assert_eq!(super::object_name(".hidden"), ".hidden");
    }
}
