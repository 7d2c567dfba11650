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
//! - The file is read a line at a time; a statement longer than
//!   [`MAX_STATEMENT`] is refused at its line.

use std::io::{BufRead, Read};

use glam::Vec3;

use super::polygon::Triangulator;
use super::types::{ImportErrorKind, ImportOptions, MeshFormat, Tally};
use crate::mesh::TriMesh;

/// The longest statement read (a line, or lines joined by `\`): 4 MiB.
/// A face of 200 000 corners written `v/vt/vn` takes about 3.9 MB (an
/// MCOL holds faces of at most 65 537); a longer line is refused at its
/// line number, never held whole.
pub const MAX_STATEMENT: usize = 4 << 20;

/// One `f` statement: its line and its corners in `corners`.
struct Face {
    line: usize,
    start: usize,
    len: usize,
}

/// Reads all faces of an OBJ file into one mesh, a statement at a time.
/// Counts over `options.limit` are refused before any polygon is
/// triangulated (and nothing more is kept once they are over).
pub(super) fn read(
    input: impl BufRead,
    options: &ImportOptions,
) -> Result<TriMesh, ImportErrorKind> {
    let mut tally = Tally::new(options);
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    let mut corners = Vec::new();
    let mut statements = Statements::new(input);
    while let Some((line, text)) = statements.next()? {
        let parse = |detail: String| {
            ImportErrorKind::parse(MeshFormat::Obj, format!("line {line}: {detail}"))
        };
        let mut words = text
            .split(|b: &u8| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        match words.next() {
            Some(b"v") => {
                let v = vertex(words).map_err(parse)?;
                if tally.vertex() {
                    vertices.push(v);
                }
            }
            Some(b"f") => {
                let start = corners.len();
                for w in words {
                    corners.push(corner(w, tally.vertices).map_err(parse)?);
                }
                let len = corners.len() - start;
                if tally.polygon(len) {
                    faces.push(Face { line, start, len });
                } else {
                    corners.truncate(start);
                }
            }
            _ => {}
        }
    }
    tally.check()?;
    check_corners(&faces, &corners, vertices.len())?;
    let mut triangles = Vec::with_capacity(tally.triangles);
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

/// The statements of a file, read a line at a time into a buffer of at
/// most [`MAX_STATEMENT`] bytes.
struct Statements<R> {
    input: R,
    /// Lines read so far.
    line: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Statements<R> {
    fn new(input: R) -> Self {
        Statements {
            input,
            line: 0,
            buf: Vec::new(),
        }
    }

    /// The next statement with the line it starts on (1-based),
    /// continuation lines joined and its comment removed; `None` at the
    /// end of the file.
    fn next(&mut self) -> Result<Option<(usize, Vec<u8>)>, ImportErrorKind> {
        let mut text = Vec::new();
        let mut start = None;
        loop {
            let room = MAX_STATEMENT.saturating_sub(text.len());
            self.buf.clear();
            let read = (&mut self.input)
                .take(room as u64 + 1)
                .read_until(b'\n', &mut self.buf)?;
            if read == 0 {
                // The end of the file (after a continuation: nothing more
                // to join).
                break;
            }
            self.line += 1;
            start.get_or_insert(self.line);
            let (part, ended) = match self.buf.strip_suffix(b"\n") {
                Some(part) => (part, true),
                None if self.buf.len() > room => return Err(self.too_long()),
                None => (&self.buf[..], false),
            };
            let part = part.strip_suffix(b"\r").unwrap_or(part);
            match part.strip_suffix(b"\\") {
                // A line ending in `\` continues on the next, if any.
                Some(head) if ended => {
                    text.extend_from_slice(head);
                    text.push(b' ');
                }
                _ => {
                    text.extend_from_slice(part);
                    break;
                }
            }
        }
        let Some(start) = start else {
            return Ok(None);
        };
        if let Some(hash) = text.iter().position(|&b| b == b'#') {
            text.truncate(hash);
        }
        Ok(Some((start, text)))
    }

    fn too_long(&self) -> ImportErrorKind {
        ImportErrorKind::parse(
            MeshFormat::Obj,
            format!(
                "line {}: the statement runs past {MAX_STATEMENT} bytes ({} MiB), \
                 the longest sylcol reads",
                self.line,
                MAX_STATEMENT >> 20
            ),
        )
    }
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
        let mut statements = Statements::new(text.as_bytes());
        std::iter::from_fn(|| statements.next().unwrap())
            .map(|(n, t)| (n, String::from_utf8(t).unwrap()))
            .collect()
    }

    fn read(bytes: &[u8]) -> Result<TriMesh, ImportErrorKind> {
        super::read(bytes, &ImportOptions::default())
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

    #[test]
    fn an_over_long_statement_is_refused_at_its_line() {
        let mut text = b"v 0 0 0\n#".to_vec();
        text.resize(text.len() + MAX_STATEMENT - 1, b'x');
        // A comment line of exactly the longest length is read.
        assert_eq!(read(&text).unwrap().vertices.len(), 1);
        text.extend_from_slice(b"x\nv 1 1 1\n");
        let e = read(&text).unwrap_err().to_string();
        assert!(
            e.contains("line 2: the statement runs past 4194304 bytes (4 MiB)"),
            "{e}"
        );
        // Continuation lines count together: the third passes the limit.
        let third = "f".to_string() + &" 1".repeat(MAX_STATEMENT / 6) + " \\\n";
        let e = read(format!("v 0 0 0\n{third}{third}{third}").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4: the statement runs past"), "{e}");
    }
}
