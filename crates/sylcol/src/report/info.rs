//! `info`: what an object is and where its parts lie.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::chunk::Chunk;
use sylcol_format::collisionset::CollisionSet;
use sylcol_format::mcol::Mcol;
use sylcol_format::{AnyError, Object, decode_any};

use super::error::{ErrorReport, InfoError, ObjectError, Unsupported};
use super::idxd::StringTableInfo;
use super::name_sources::NameSources;
use super::regn::RegnInfo;
use super::shared::{ObjectBytes, SharedContent, SharesContent, sharing_line};
use super::{GridSummary, Skipped, vec3_text};
use crate::source::{Item, Objects};

/// One object's summary; `format` says which fields follow.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "format")]
pub enum Info {
    /// A map collision hull.
    #[serde(rename = "MCOL")]
    Mcol(McolInfo),
    /// A part library.
    CollisionSet(CollisionSetInfo),
    /// A REGN object, as far as it is known.
    #[serde(rename = "REGN")]
    Regn(RegnInfo),
    /// A UTF-8 string table.
    #[serde(rename = "IDXD")]
    Idxd(StringTableInfo),
    /// A UTF-16BE string table.
    #[serde(rename = "IXUD")]
    Ixud(StringTableInfo),
}

/// The summary of an MCOL.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct McolInfo {
    /// The input as named.
    pub path: String,
    /// The object's length.
    pub bytes: usize,
    /// The header's data size (the POF0 table starts at 0x10 + this).
    pub data_size: u32,
    /// Where the POF0 table starts.
    pub pof0_offset: u64,
    /// The POF0 slot base (0x10 expected).
    pub pof0_base: u32,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub triangles: usize,
    /// The grid box's minimum corner.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub bbox_min: [f32; 3],
    /// The grid box's maximum corner.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub bbox_max: [f32; 3],
    /// The header's extent row (max - min).
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub extent: [f32; 3],
    /// The grid.
    pub grid: GridSummary,
    /// Relocated words in the POF0 table.
    pub relocations: usize,
    /// Relocated words inside the 0x80-byte header.
    pub header_slots: Vec<u32>,
    /// Where each block starts.
    pub offsets: McolOffsets,
}

/// Byte offsets of an MCOL's blocks.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct McolOffsets {
    /// Triangle spheres.
    pub spheres: u32,
    /// Vertices.
    pub vertices: u32,
    /// Triangles.
    pub triangles: u32,
    /// The cell array.
    pub cells: u32,
    /// The first list record (none for an empty map).
    pub records: Option<u32>,
    /// The first list (none for an empty map).
    pub lists: Option<u32>,
}

/// The summary of a CollisionSet.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CollisionSetInfo {
    /// The input as named.
    pub path: String,
    /// The object's length.
    pub bytes: usize,
    /// `big` or `little`.
    pub endian: &'static str,
    /// Record count.
    pub records: usize,
    /// Vertices over every record.
    pub vertices: usize,
    /// Triangles over every record.
    pub triangles: usize,
    /// Records per name family.
    pub families: Families,
    /// Every record, in file order.
    pub meshes: Vec<MeshInfo>,
}

/// Record counts per name family, keyed by the family as `family` names
/// it (`rou_`, `mob_`, `rob_`, `asteroid`, `other`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Families {
    /// `rou_`.
    #[serde(rename = "rou_")]
    pub rou: usize,
    /// `mob_`.
    #[serde(rename = "mob_")]
    pub mob: usize,
    /// `rob_`.
    #[serde(rename = "rob_")]
    pub rob: usize,
    /// Asteroids.
    pub asteroid: usize,
    /// Any other name.
    pub other: usize,
}

/// One record of a CollisionSet.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MeshInfo {
    /// The record's name.
    pub name: String,
    /// Its family (`rou_`, `mob_`, `rob_`, `asteroid`, `other`).
    pub family: &'static str,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub triangles: usize,
    /// Where the record starts.
    pub offset: u64,
}

/// `info` of one decoded object (`bytes` are the object's own).
pub fn info(path: &str, bytes: &[u8], object: &Object) -> Result<Info, InfoError> {
    Ok(match object {
        Object::Mcol(m) => Info::Mcol(mcol_info(path, bytes, m)?),
        Object::CollisionSet(set) => Info::CollisionSet(collisionset_info(path, bytes.len(), set)),
        Object::Regn(r) => Info::Regn(RegnInfo::of(path, bytes.len(), r)),
        Object::StringTable(t) => {
            let info = StringTableInfo::of(path, bytes.len(), t);
            match t.flavour {
                sylcol_format::idxd::Flavour::Idxd => Info::Idxd(info),
                sylcol_format::idxd::Flavour::Ixud => Info::Ixud(info),
            }
        }
        other => {
            return Err(unsupported(
                path,
                format!("info does not summarise {} objects yet", other.kind()),
            ));
        }
    })
}

fn unsupported(path: &str, detail: String) -> InfoError {
    InfoError::Unsupported(Unsupported {
        path: path.to_string(),
        detail,
    })
}

/// `info` of an object's bytes: decodes whatever it is, then summarises.
pub fn info_of(path: &str, bytes: &[u8]) -> Result<Info, InfoError> {
    let object = decode_any(bytes).map_err(|error| ObjectError {
        path: path.to_string(),
        error,
    })?;
    info(path, bytes, &object)
}

/// The summary of a decoded MCOL (one built from scratch, without a
/// layout, has none: [`InfoError::Unsupported`]).
pub fn mcol_info(path: &str, bytes: &[u8], m: &Mcol) -> Result<McolInfo, InfoError> {
    let Some(layout) = m.layout.as_ref() else {
        return Err(unsupported(
            path,
            "info summarises a decoded MCOL; this one was built and has no layout".into(),
        ));
    };
    let chunk = Chunk::parse(bytes).map_err(|error| ObjectError {
        path: path.to_string(),
        error: AnyError::Invalid {
            kind: sylcol_format::Kind::Mcol,
            error,
        },
    })?;
    let slots = chunk.slots(m.pof0_base);
    Ok(McolInfo {
        path: path.to_string(),
        bytes: bytes.len(),
        data_size: m.header.data_size,
        pof0_offset: chunk.pof0_offset,
        pof0_base: m.pof0_base,
        vertices: m.vertices.len(),
        triangles: m.triangles.len(),
        bbox_min: m.header.prefix.bbox_min,
        bbox_max: m.header.prefix.bbox_max,
        extent: m.header.prefix.extent,
        grid: GridSummary::of(m),
        relocations: slots.len(),
        header_slots: slots.iter().copied().filter(|&s| s < 0x80).collect(),
        offsets: McolOffsets {
            spheres: layout.spheres,
            vertices: layout.vertices,
            triangles: layout.triangles,
            cells: layout.cells,
            records: layout.records.iter().copied().min(),
            lists: layout.lists.iter().copied().min(),
        },
    })
}

/// The summary of a decoded CollisionSet of `bytes` bytes.
pub fn collisionset_info(path: &str, bytes: usize, set: &CollisionSet) -> CollisionSetInfo {
    let f = set.families();
    let meshes = set
        .records
        .iter()
        .zip(set.offsets())
        .map(|(r, offset)| MeshInfo {
            name: r.name(),
            family: r.reading().family.as_str(),
            vertices: r.vertices.len(),
            triangles: r.triangles.len(),
            offset,
        })
        .collect();
    CollisionSetInfo {
        path: path.to_string(),
        bytes,
        endian: set.endian.as_str(),
        records: set.records.len(),
        vertices: set.vertex_count(),
        triangles: set.triangle_count(),
        families: Families {
            rou: f.rou,
            mob: f.mob,
            rob: f.rob,
            asteroid: f.asteroid,
            other: f.other,
        },
        meshes,
    }
}

impl Info {
    /// The format's name (`MCOL`, `CollisionSet`).
    pub fn format(&self) -> &'static str {
        match self {
            Info::Mcol(_) => "MCOL",
            Info::CollisionSet(_) => "CollisionSet",
            Info::Regn(_) => "REGN",
            Info::Idxd(_) => "IDXD",
            Info::Ixud(_) => "IXUD",
        }
    }

    /// The human-readable form (ends with a newline).
    pub fn text(&self) -> String {
        match self {
            Info::Mcol(i) => i.text(),
            Info::CollisionSet(i) => i.text(),
            Info::Regn(i) => i.text(),
            Info::Idxd(i) | Info::Ixud(i) => i.text(self.format()),
        }
    }

    /// One short line of counts, for archive listings.
    fn counts(&self) -> String {
        match self {
            Info::Mcol(i) => format!("{} vertices, {} triangles", i.vertices, i.triangles),
            Info::CollisionSet(i) => format!(
                "{} records, {} vertices, {} triangles",
                i.records, i.vertices, i.triangles
            ),
            Info::Regn(i) => format!("counts {:?}", i.counts),
            Info::Idxd(i) | Info::Ixud(i) => format!(
                "{} records, {} pairs, {} strings",
                i.records.len(),
                i.pairs.len(),
                i.strings.len()
            ),
        }
    }

    /// The input as named.
    pub fn path(&self) -> &str {
        match self {
            Info::Mcol(i) => &i.path,
            Info::CollisionSet(i) => &i.path,
            Info::Regn(i) => &i.path,
            Info::Idxd(i) | Info::Ixud(i) => &i.path,
        }
    }
}

impl McolInfo {
    /// The human-readable form.
    pub fn text(&self) -> String {
        let hex = |o: Option<u32>| o.map_or("-".to_string(), |o| format!("{o:#x}"));
        let slots: Vec<String> = self
            .header_slots
            .iter()
            .map(|s| format!("{s:#x}"))
            .collect();
        let (g, o) = (&self.grid, &self.offsets);
        format!(
            "{}: MCOL (map collision hull)\n\
             \x20 size          {} bytes; data size {:#x}; POF0 at {:#x}, slot base {:#x}\n\
             \x20 mesh          {} vertices, {} triangles\n\
             \x20 bbox          {} .. {}\n\
             \x20 extent        {}\n\
             \x20 grid          {} x {} x {} = {} cells of {}\n\
             \x20 occupied      {} cells, {} list entries\n\
             \x20 relocations   {} (header slots {})\n\
             \x20 blocks        spheres {:#x}, vertices {:#x}, triangles {:#x}, cells {:#x}, records {}, lists {}\n",
            self.path,
            self.bytes,
            self.data_size,
            self.pof0_offset,
            self.pof0_base,
            self.vertices,
            self.triangles,
            vec3_text(self.bbox_min),
            vec3_text(self.bbox_max),
            vec3_text(self.extent),
            g.dims[0],
            g.dims[1],
            g.dims[2],
            g.cells,
            vec3_text(g.cell_size),
            g.occupied_cells,
            g.list_entries,
            self.relocations,
            slots.join(" "),
            o.spheres,
            o.vertices,
            o.triangles,
            o.cells,
            hex(o.records),
            hex(o.lists),
        )
    }
}

impl CollisionSetInfo {
    /// The human-readable form.
    pub fn text(&self) -> String {
        let f = &self.families;
        let mut text = format!(
            "{}: CollisionSet (per-part collision library), {}-endian\n\
             \x20 size          {} bytes\n\
             \x20 records       {} (rou_ {}, mob_ {}, rob_ {}, asteroid {}, other {})\n\
             \x20 mesh          {} vertices, {} triangles\n\n\
             \x20   offset  vertices  triangles  name\n",
            self.path,
            self.endian,
            self.bytes,
            self.records,
            f.rou,
            f.mob,
            f.rob,
            f.asteroid,
            f.other,
            self.vertices,
            self.triangles,
        );
        for m in &self.meshes {
            let _ = writeln!(
                text,
                "  {:#8x}  {:>8}  {:>9}  {}",
                m.offset,
                m.vertices,
                m.triangles,
                // A record name is the file's bytes: one line, escaped.
                sylcol_format::text::escape(&m.name)
            );
        }
        text
    }
}

/// One object of an `info` report: its summary, and the other objects of
/// the report whose bytes are the same.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct InfoEntry {
    /// The object's summary.
    #[serde(flatten)]
    pub info: Info,
    /// The `path` of every other object of the report with identical
    /// bytes (SHA-256 of the object's content), in index order; empty
    /// when none.
    pub shares_content_with: Vec<String>,
}

impl SharesContent for InfoEntry {
    fn entry_path(&self) -> &str {
        self.info.path()
    }
    fn shares_content_with(&mut self) -> &mut Vec<String> {
        &mut self.shares_content_with
    }
}

/// What `info --json` prints, one shape for every input: the objects of
/// the input (one for a file or `ARCHIVE.pak+ENTRY`, every entry sylcol
/// decodes for a whole archive), the entries of other formats, and every
/// failure.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct InfoDocument {
    /// The input as named: a file, `ARCHIVE.pak+ENTRY`, a whole archive,
    /// or `-`.
    pub path: String,
    /// `IPFB` for a whole archive, else the object's format.
    pub format: String,
    /// The decoded objects, in index order (copies included).
    pub objects: Vec<InfoEntry>,
    /// Entries of formats sylcol does not decode.
    pub skipped: Vec<Skipped>,
    /// Entries (or index rows) that could not be read or decoded.
    pub errors: Vec<ErrorReport>,
    /// Which objects share their content.
    #[serde(skip)]
    shared: SharedContent,
    /// Where the entry names of each archive opened came from.
    pub names: Vec<NameSources>,
}

impl InfoDocument {
    /// The report of one object.
    pub fn object(path: &str, bytes: &[u8]) -> Result<Self, InfoError> {
        let info = info_of(path, bytes)?;
        let mut doc = InfoDocument::new(path, info.format());
        doc.add(info, bytes);
        Ok(doc)
    }

    /// An empty report for the whole archive `path`.
    pub fn archive(path: &str) -> Self {
        InfoDocument::new(path, "IPFB")
    }

    fn new(path: &str, format: &str) -> Self {
        InfoDocument {
            path: path.to_string(),
            format: format.to_string(),
            objects: Vec::new(),
            skipped: Vec::new(),
            errors: Vec::new(),
            shared: SharedContent::default(),
            names: Vec::new(),
        }
    }

    /// Whether the input is a whole archive.
    fn is_archive(&self) -> bool {
        self.format == "IPFB"
    }

    /// Adds every object of the FILE argument `path` ([`crate::source::Opener::objects`]):
    /// an archive's index problems, then each entry (decoded, skipped, or
    /// the error that kept it from being read), as `sylcol info` reports it.
    pub fn push_objects(&mut self, path: &str, objects: Objects) {
        if let Some(archive) = objects.archive() {
            self.errors
                .extend(super::pak::index_problems(path, archive));
        }
        for item in objects {
            match item {
                Ok(Item::Whole(input)) => self.push(&input.name, &input.bytes),
                Ok(Item::Other(e)) => self.push_undecoded(e),
                Err(e) => self.errors.push(e.report()),
            }
        }
    }

    /// Adds one entry: decoded, skipped (no format matched and its magic
    /// names none sylcol knows), or an error (a known format, broken).
    pub fn push(&mut self, path: &str, bytes: &(impl ObjectBytes + ?Sized)) {
        match info_of(path, bytes.bytes()) {
            Ok(info) => self.add(info, bytes),
            Err(InfoError::Object(e)) => self.push_undecoded(e),
            Err(e) => self.errors.push(ErrorReport::from_error(&e)),
        }
    }

    fn add(&mut self, info: Info, bytes: &(impl ObjectBytes + ?Sized)) {
        let entry = InfoEntry {
            info,
            shares_content_with: Vec::new(),
        };
        let digest = self.shared.digest_of(bytes);
        self.shared.link(&mut self.objects, entry, digest);
    }

    /// Adds an entry that did not decode: skipped when no format matched,
    /// else an error. (An entry the CLI sniffed and never read whole comes
    /// here directly, with the error decoding it would have given.)
    pub fn push_undecoded(&mut self, e: ObjectError) {
        match e {
            ObjectError {
                path,
                error: sylcol_format::AnyError::Unrecognised { magic, .. },
            } => self.skipped.push(Skipped {
                path,
                reason: "not a format sylcol decodes".into(),
                magic,
            }),
            e => self.errors.push(ErrorReport::from_error(&e)),
        }
    }

    /// The human-readable form (errors go to standard error separately):
    /// one object's summary, or a line per archive entry, entries with the
    /// same bytes once.
    pub fn text(&self) -> String {
        match self.objects.as_slice() {
            [one] if !self.is_archive() => one.info.text(),
            _ => self.archive_text(),
        }
    }

    fn archive_text(&self) -> String {
        let mut t = format!(
            "{}: IPFB archive, {} decoded, {} of other formats, {} failed\n",
            self.path,
            self.objects.len(),
            self.skipped.len(),
            self.errors.len()
        );
        let entry = |p: &str| p.rsplit_once('+').map_or(p, |(_, e)| e).to_string();
        for (i, o) in self.objects.iter().enumerate() {
            if self.shared.is_copy(i) {
                continue;
            }
            let info = &o.info;
            let _ = writeln!(
                t,
                "  {:<32} {:<13} {}",
                entry(info.path()),
                info.format(),
                info.counts()
            );
            if !o.shares_content_with.is_empty() {
                let mut names = vec![info.path()];
                names.extend(o.shares_content_with.iter().map(String::as_str));
                let _ = writeln!(t, "    {}", sharing_line(&names));
            }
        }
        for s in &self.skipped {
            let _ = writeln!(
                t,
                "  {:<32} not decoded (magic {})",
                entry(&s.path),
                s.magic.as_deref().unwrap_or("not printable")
            );
        }
        t
    }
}
