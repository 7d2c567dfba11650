//! Wavefront OBJ: vertices and triangles in file order, every float written
//! as the shortest text that parses back to the same f32.

use std::io::{self, Write};

use crate::mesh::TriMesh;

/// Writes `mesh` as an OBJ object named `name`.
pub fn write_obj<W: Write>(w: &mut W, mesh: &TriMesh, name: &str) -> io::Result<()> {
    writeln!(w, "# written by sylcol {}", env!("CARGO_PKG_VERSION"))?;
    writeln!(
        w,
        "# {} vertices, {} triangles",
        mesh.vertices.len(),
        mesh.triangles.len()
    )?;
    writeln!(w, "o {}", name.replace(char::is_whitespace, "_"))?;
    for v in &mesh.vertices {
        // `{}` on f32 prints the shortest decimal that round-trips.
        writeln!(w, "v {} {} {}", v.x, v.y, v.z)?;
    }
    for t in &mesh.triangles {
        writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn floats_round_trip() {
        let odd = [
            0.1f32,
            -250000.0,
            1.0e-30,
            3.4028235e38,
            f32::MIN_POSITIVE,
            16777217.0,
        ];
        let mesh = TriMesh::new(
            odd.iter().map(|&x| Vec3::new(x, -x, x / 3.0)).collect(),
            vec![[0, 1, 2], [3, 4, 5]],
        );
        let mut out = Vec::new();
        write_obj(&mut out, &mesh, "odd mesh").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("o odd_mesh"));
        let back: Vec<Vec3> = text
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let p: Vec<f32> = l.split(' ').map(|s| s.parse().unwrap()).collect();
                Vec3::new(p[0], p[1], p[2])
            })
            .collect();
        assert_eq!(back, mesh.vertices);
        assert!(text.ends_with("f 4 5 6\n"));
    }
}
