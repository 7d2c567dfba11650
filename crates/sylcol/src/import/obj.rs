//! Wavefront OBJ: the `v` and `f` statements of every object and group.
//!
//! sylcol reads OBJ itself rather than through tobj, for three things a
//! collision mesh needs and tobj does not give: the file's vertex order
//! (tobj renumbers vertices by first use in each object, and repeats a
//! vertex shared by two objects), the real polygons (to triangulate them
//! on their plane, [`super::polygon`]) and the line of each face (for
//! messages).
//!
//! - `v x y z [...]`: one vertex, in file order, used or not; anything past
//!   z (w, vertex colours) is ignored.
//! - `f a b c ...`: one polygon; each corner is `v`, `v/vt`, `v/vt/vn` or
//!   `v//vn`, of which only `v` is read: 1-based, or negative to count back
//!   from the last vertex defined so far.
//! - A line ending in `\` continues on the next; `#` starts a comment;
//!   every other statement (`vt`, `vn`, `o`, `g`, `s`, `usemtl`, `mtllib`,
//!   `l`, `p`, curves) is ignored.

use glam::Vec3;

use super::polygon::Triangulator;
use super::{ImportErrorKind, MeshFormat};
use crate::mesh::TriMesh;

/// One `f` statement: its line and its corners in `corners`.
struct Face {
    line: usize,
    start: usize,
    len: usize,
}

/// Reads all faces of an OBJ file into one mesh.
pub(super) fn read(bytes: &[u8]) -> Result<TriMesh, ImportErrorKind> {
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    let mut corners = Vec::new();
    for (line, text) in logical_lines(bytes) {
        let parse = |detail: String| {
            ImportErrorKind::parse(MeshFormat::Obj, format!("line {line}: {detail}"))
        };
        let mut words = text
            .split(|b: &u8| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        match words.next() {
            Some(b"v") => vertices.push(vertex(words).map_err(parse)?),
            Some(b"f") => {
                let start = corners.len();
                for w in words {
                    corners.push(corner(w, vertices.len()).map_err(parse)?);
                }
                faces.push(Face {
                    line,
                    start,
                    len: corners.len() - start,
                });
            }
            _ => {}
        }
    }
    check_corners(&faces, &corners, vertices.len())?;
    let mut triangles = Vec::with_capacity(faces.len());
    let mut triangulator = Triangulator::default();
    for f in &faces {
        triangulator
            .triangulate(
                &vertices,
                &corners[f.start..f.start + f.len],
                &mut triangles,
            )
            .map_err(|e| ImportErrorKind::Polygon {
                format: MeshFormat::Obj.name(),
                face: format!("face at line {}", f.line),
                source: e,
            })?;
    }
    Ok(TriMesh::new(vertices, triangles))
}

/// Every corner names a vertex the file defines (anywhere in it).
fn check_corners(faces: &[Face], corners: &[u32], vertices: usize) -> Result<(), ImportErrorKind> {
    for f in faces {
        if let Some(&i) = corners[f.start..f.start + f.len]
            .iter()
            .find(|&&i| i as usize >= vertices)
        {
            return Err(ImportErrorKind::parse(
                MeshFormat::Obj,
                format!(
                    "line {}: face vertex {} is out of bounds: the file has {vertices} vertices",
                    f.line,
                    u64::from(i) + 1
                ),
            ));
        }
    }
    Ok(())
}

/// The statements of the file with the line each starts on (1-based),
/// continuation lines joined and comments removed.
fn logical_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Vec<u8>)> + '_ {
    let mut lines = bytes.split(|&b| b == b'\n').enumerate().peekable();
    std::iter::from_fn(move || {
        let (i, first) = lines.next()?;
        let mut text = Vec::new();
        let mut part = first;
        loop {
            let trimmed = part.strip_suffix(b"\r").unwrap_or(part);
            match trimmed.strip_suffix(b"\\") {
                Some(head) if lines.peek().is_some() => {
                    text.extend_from_slice(head);
                    text.push(b' ');
                    part = lines.next().map_or(&[][..], |(_, l)| l);
                }
                _ => {
                    text.extend_from_slice(trimmed);
                    break;
                }
            }
        }
        if let Some(hash) = text.iter().position(|&b| b == b'#') {
            text.truncate(hash);
        }
        Some((i + 1, text))
    })
}

/// The x, y, z of a `v` statement.
fn vertex<'a>(mut words: impl Iterator<Item = &'a [u8]>) -> Result<Vec3, String> {
    let mut xyz = [0f32; 3];
    for (axis, c) in ["x", "y", "z"].iter().zip(&mut xyz) {
        let w = words
            .next()
            .ok_or_else(|| format!("a vertex needs x, y and z; {axis} is missing"))?;
        *c = std::str::from_utf8(w)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| {
                format!(
                    "vertex {axis} {:?} is not a number",
                    String::from_utf8_lossy(w)
                )
            })?;
    }
    Ok(Vec3::from_array(xyz))
}

/// The 0-based vertex index of one face corner; `defined` vertices precede it.
fn corner(word: &[u8], defined: usize) -> Result<u32, String> {
    let v = word.split(|&b| b == b'/').next().unwrap_or(word);
    let text = String::from_utf8_lossy(v);
    let i: i64 = text.parse().map_err(|_| {
        format!(
            "face corner {:?} is not a vertex number",
            String::from_utf8_lossy(word)
        )
    })?;
    let index = match i {
        0 => return Err("face corner 0: OBJ vertex numbers start at 1".into()),
        i if i > 0 => i - 1,
        i => defined as i64 + i,
    };
    if index < 0 {
        return Err(format!(
            "face corner {i} counts back past the first vertex ({defined} defined so far)"
        ));
    }
    u32::try_from(index).map_err(|_| format!("face corner {i} is past any vertex count"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(usize, String)> {
        logical_lines(text.as_bytes())
            .map(|(n, t)| (n, String::from_utf8(t).unwrap()))
            .collect()
    }

    #[test]
    fn statements_with_continuations_and_comments() {
        assert_eq!(
            lines("v 1 2 3 # c\r\nf 1 \\\n 2 3\n# only\nv 4"),
            vec![
                (1, "v 1 2 3 ".into()),
                (2, "f 1   2 3".into()),
                (4, "".into()),
                (5, "v 4".into())
            ]
        );
    }

    #[test]
    fn corners_absolute_relative_and_with_slashes() {
        assert_eq!(corner(b"3", 5), Ok(2));
        assert_eq!(corner(b"3/1/2", 5), Ok(2));
        assert_eq!(corner(b"4//9", 5), Ok(3));
        assert_eq!(corner(b"-1", 5), Ok(4));
        assert_eq!(corner(b"-5/2", 5), Ok(0));
        assert!(corner(b"-6", 5).unwrap_err().contains("counts back"));
        assert!(corner(b"0", 5).unwrap_err().contains("start at 1"));
        assert!(
            corner(b"x/1", 5)
                .unwrap_err()
                .contains("not a vertex number")
        );
    }

    #[test]
    fn keeps_file_vertex_order_and_unused_vertices() {
        // Faces use the vertices backwards, vertex 5 not at all; two
        // objects share vertex 1 (one vertex, not two).
        let text = "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 9 9 9\n\
                    f 4 3 2\no b\nf -5 -3 -4\n";
        let m = read(text.as_bytes()).unwrap();
        assert_eq!(m.vertices.len(), 5);
        assert_eq!(m.vertices[1], Vec3::X);
        assert_eq!(m.vertices[4], Vec3::splat(9.0));
        assert_eq!(m.triangles, vec![[3, 2, 1], [0, 2, 1]]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = read(b"v 0 0 0\nv 1 0\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("z is missing"), "{e}");
        let e = read(b"v 0 0 0\nf 1 2 x\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("\"x\""), "{e}");
        let e = read(b"v 0 0 0\nf 1 3 -1\nv 1 1 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2") && e.contains("vertex 3 is out of bounds"),
            "{e}"
        );
        let e = read(b"v 0 0 0\nf 1 2 x\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("\"x\""), "{e}");
        let e = read(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 1\n\n\nf 1 2 4 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("face at line 7") && e.contains("not planar"),
            "{e}"
        );
    }
}
