//! The trees behind the BVH columns: per scene, the shape of sylcol's BVH
//! and its expected cost by the surface area heuristic (`Bvh::sah`, in the
//! convention of Embree's own statistics). With the `embree` feature each
//! row is followed by Embree's scene build (robust flag off), so that
//! `EMBREE_CONFIG=verbose=2` prints Embree's statistics for the same mesh
//! right below it (`benches/embree.sh tree` does that and keeps the lines
//! that matter).

use std::io::Write;

use sylcol::query::Bvh;

use crate::scenes::Scene;

/// Prints one row per scene (and, with Embree, its tree's statistics).
pub fn run(scenes: &[Scene]) {
    println!(
        "| scene | triangles | nodes | leaves | packets | depth | KiB | SAH nodes | SAH packets | SAH |"
    );
    println!("|{}", "---|".repeat(10));
    for s in scenes {
        let bvh = Bvh::build(&s.mesh);
        let (stats, sah) = (bvh.stats(), bvh.sah());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.3} |",
            s.name,
            s.mesh.triangles.len(),
            stats.nodes,
            stats.leaves,
            stats.packets,
            stats.depth,
            stats.bytes / 1024,
            sah.nodes,
            sah.packets,
            sah.nodes + sah.packets
        );
        // Embree prints through its own buffer: ours goes out first.
        std::io::stdout().flush().expect("stdout");
        #[cfg(feature = "embree")]
        drop(crate::embree::EmbreeScene::new(&s.mesh, false));
    }
}
