//! Stanford PLY (ASCII or binary) through ply-rs-bw: the `vertex` element's
//! x, y, z and the `face` element's `vertex_indices` (or `vertex_index`),
//! each face a polygon cut into triangles on its plane ([`super::polygon`]).

use glam::Vec3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{DefaultElement, Encoding, Property, PropertyType, ScalarType};

use super::polygon::Triangulator;
use super::types::{ImportErrorKind, ImportOptions, MeshFormat, Tally};
use crate::mesh::TriMesh;

/// Reads the vertices and faces of a PLY file. Counts over
/// `options.limit` are refused before any polygon is triangulated.
pub(super) fn read(bytes: &[u8], options: &ImportOptions) -> Result<TriMesh, ImportErrorKind> {
    check_counts(bytes)?;
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut std::io::Cursor::new(bytes))
        .map_err(|e| ImportErrorKind::parse(MeshFormat::Ply, e))?;
    let unsupported = |d: String| ImportErrorKind::unsupported(MeshFormat::Ply, d);
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or_else(|| unsupported("no `vertex` element".into()))?;
    let mut mesh = TriMesh::default();
    for (i, v) in vertices.iter().enumerate() {
        let coord = |axis: &str| {
            v.get(axis)
                .and_then(Property::to_f32_lossy)
                .ok_or_else(|| unsupported(format!("vertex {i} has no scalar property `{axis}`")))
        };
        mesh.vertices
            .push(Vec3::new(coord("x")?, coord("y")?, coord("z")?));
    }
    let faces = ply.payload.get("face").map_or(&[][..], |f| &f[..]);
    let mut tally = Tally::new(options);
    tally.vertices = mesh.vertices.len();
    for f in faces {
        let list = f.get("vertex_indices").or_else(|| f.get("vertex_index"));
        tally.polygon(list.map_or(0, list_len));
    }
    tally.check()?;
    let mut polygon = Vec::new();
    let mut triangulator = Triangulator::default();
    for (i, f) in faces.iter().enumerate() {
        let list = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .ok_or_else(|| unsupported(format!("face {i} has no `vertex_indices` list")))?;
        polygon.clear();
        polygon.extend(list.to_u32_list().ok_or_else(|| {
            unsupported(format!(
                "face {i}: `vertex_indices` is not a list of non-negative integers"
            ))
        })?);
        triangulator
            .triangulate(&mesh.vertices, &polygon, &mut mesh.triangles)
            .map_err(|source| ImportErrorKind::Polygon {
                format: MeshFormat::Ply.name(),
                face: format!("face {i}"),
                source,
            })?;
    }
    Ok(mesh)
}

/// The length of a list property (0 for a scalar).
fn list_len(p: &Property) -> usize {
    match p {
        Property::ListChar(v) => v.len(),
        Property::ListUChar(v) => v.len(),
        Property::ListShort(v) => v.len(),
        Property::ListUShort(v) => v.len(),
        Property::ListInt(v) => v.len(),
        Property::ListUInt(v) => v.len(),
        Property::ListFloat(v) => v.len(),
        Property::ListDouble(v) => v.len(),
        _ => 0,
    }
}

/// Refuses a header whose element counts cannot fit in the bytes after
/// it, before the parser loops (and allocates) over them: every element
/// takes at least one byte in ASCII (its line) and at least its scalars
/// and list lengths in binary. Without this, `element vertex 800000000`
/// with no properties makes the binary parser build 800 million empty
/// elements from no bytes at all.
fn check_counts(bytes: &[u8]) -> Result<(), ImportErrorKind> {
    let mut reader = Reader::new(std::io::Cursor::new(bytes));
    let header = Parser::<DefaultElement>::new()
        .read_header(&mut reader)
        .map_err(|e| ImportErrorKind::parse(MeshFormat::Ply, e))?;
    let header_len = reader.get_ref().position();
    let mut left = bytes.len() as u64 - header_len.min(bytes.len() as u64);
    for element in header.elements.values() {
        let least = match header.encoding {
            Encoding::Ascii => 1,
            Encoding::BinaryBigEndian | Encoding::BinaryLittleEndian => element
                .properties
                .values()
                .map(|p| match &p.data_type {
                    PropertyType::Scalar(t) | PropertyType::List(t, _) => scalar_size(t),
                })
                .sum::<u64>()
                .max(1),
        };
        let needed = (element.count as u64).saturating_mul(least);
        if needed > left {
            return Err(ImportErrorKind::parse(
                MeshFormat::Ply,
                format!(
                    "element `{}` declares {} items of at least {least} bytes each, \
                     but only {left} bytes follow (the header ends at byte {header_len})",
                    element.name, element.count
                ),
            ));
        }
        left -= needed;
    }
    Ok(())
}

/// Bytes of one binary scalar.
fn scalar_size(t: &ScalarType) -> u64 {
    match t {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}
