//! `info` of a REGN: the header as far as it is known, the six sections as
//! (pointer, count, span, stride), the open words raw, and every checked
//! assumption with its breaks (docs/formats/regn.md).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::regn::{self, Regn};

use super::vec3_text;

/// The summary of a REGN.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RegnInfo {
    /// The input as named.
    pub path: String,
    /// The object's length.
    pub bytes: usize,
    /// The header's data size (the POF0 table starts at 0x10 + this).
    pub data_size: u64,
    /// The POF0 slot base (0x10 expected).
    pub pof0_base: u32,
    /// The grid box's minimum corner.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub bbox_min: [f32; 3],
    /// The grid box's maximum corner.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub bbox_max: [f32; 3],
    /// The header's extent row.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub extent: [f32; 3],
    /// The cell size at 0x40.
    #[serde(serialize_with = "super::float::vec3")]
    #[schemars(with = "[super::float::FileF32; 3]")]
    pub cell_size: [f32; 3],
    /// The grid at 0x50, when a reading matches the bbox and cell size.
    pub grid: Option<RegnGrid>,
    /// The six u16 counts at 0x60.
    pub counts: [u16; 6],
    /// The six section pointers at 0x70, as stored.
    pub pointers: [u32; 6],
    /// The six sections.
    pub sections: Vec<RegnSection>,
    /// The section whose stride is 12 (the vertices), if exactly one is.
    pub vertex_section: Option<usize>,
    /// Relocated words in the POF0 table.
    pub relocations: usize,
    /// Relocated words inside the 0x88-byte header.
    pub header_slots: Vec<u32>,
    /// The words nothing explains, raw: 0x08, 0x0C, 0x4C, 0x6C.
    pub open_words: [u32; 4],
    /// The 16 bytes at 0x50 (the grid's encoding is open), as hex.
    pub grid_bytes: String,
    /// Every checked assumption (docs/formats/regn.md).
    pub assumptions: Vec<RegnAssumption>,
}

/// How the grid at 0x50 reads.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RegnGrid {
    /// Cells per axis.
    pub dims: [u64; 3],
    /// The reading that matched: `u32[3]`, `u16[3]` or `u8[3]`.
    pub encoding: &'static str,
}

/// One section.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RegnSection {
    /// 0..6.
    pub index: usize,
    /// The stored pointer.
    pub pointer: u32,
    /// Its count.
    pub count: u16,
    /// Where it starts (none when the pointer is not relocated).
    pub offset: Option<u64>,
    /// Bytes to the next section (or the data end).
    pub span: Option<u64>,
    /// span / count, when count divides span.
    pub stride: Option<u64>,
}

/// One assumption and how the file answers it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RegnAssumption {
    /// The assumption in words.
    pub name: &'static str,
    /// Cases tested.
    pub total: u64,
    /// Cases where it holds.
    pub passed: u64,
    /// The first breaks: where, and what is there.
    pub breaks: Vec<RegnBreak>,
}

/// Where an assumption breaks.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RegnBreak {
    /// Byte offset of the word that breaks it.
    pub offset: u64,
    /// What is there instead.
    pub detail: String,
}

impl RegnInfo {
    /// The summary of a decoded REGN of `bytes` bytes.
    pub fn of(path: &str, bytes: usize, r: &Regn) -> Self {
        let h = &r.header;
        let sections: Vec<RegnSection> = (r.sections().iter())
            .map(|s| RegnSection {
                index: s.index,
                pointer: s.pointer,
                count: s.count,
                offset: s.target,
                span: s.span,
                stride: s.stride,
            })
            .collect();
        RegnInfo {
            path: path.to_string(),
            bytes,
            data_size: r.data_size(),
            pof0_base: r.pof0_base,
            bbox_min: h.prefix.bbox_min,
            bbox_max: h.prefix.bbox_max,
            extent: h.prefix.extent,
            cell_size: h.prefix.cell_size,
            grid: regn::grid_reading(r).map(|g| RegnGrid {
                dims: g.dims,
                encoding: g.encoding.as_str(),
            }),
            counts: h.counts,
            pointers: h.pointers,
            sections,
            vertex_section: r.vertex_section().map(|s| s.index),
            relocations: r.slots.len(),
            header_slots: (r.slots.iter().copied())
                .filter(|&s| (s as usize) < regn::HEADER_SIZE)
                .collect(),
            open_words: [
                h.prefix.word_08[0],
                h.prefix.word_08[1],
                h.prefix.word_4c,
                h.word_6c,
            ],
            grid_bytes: h.grid.iter().map(|b| format!("{b:02x}")).collect(),
            assumptions: regn::assumptions(r)
                .into_iter()
                .map(|a| RegnAssumption {
                    name: a.rule.describe(),
                    total: a.cases,
                    passed: a.held,
                    breaks: (a.breaks.into_iter())
                        .map(|b| RegnBreak {
                            offset: b.offset,
                            detail: b.detail,
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The human-readable form.
    pub fn text(&self) -> String {
        let grid = self.grid.as_ref().map_or_else(
            || format!("unreadable (0x50 holds {})", self.grid_bytes),
            |g| {
                format!(
                    "{} x {} x {} ({} at 0x50)",
                    g.dims[0], g.dims[1], g.dims[2], g.encoding
                )
            },
        );
        let mut t = format!(
            "{}: REGN (decoded as far as it is known: docs/formats/regn.md)\n\
             \x20 size          {} bytes; data size {:#x}; POF0 slot base {:#x}, {} relocations\n\
             \x20 bbox          {} .. {}\n\
             \x20 extent        {}\n\
             \x20 cell size     {}\n\
             \x20 grid          {grid}\n\
             \x20 open words    0x08 {:08x} 0x0C {:08x} 0x4C {:08x} 0x6C {:08x}\n\
             \x20 sections      (pointer, count, offset, span, stride)\n",
            self.path,
            self.bytes,
            self.data_size,
            self.pof0_base,
            self.relocations,
            vec3_text(self.bbox_min),
            vec3_text(self.bbox_max),
            vec3_text(self.extent),
            vec3_text(self.cell_size),
            self.open_words[0],
            self.open_words[1],
            self.open_words[2],
            self.open_words[3],
        );
        let opt = |v: Option<u64>, hex: bool| match (v, hex) {
            (Some(v), true) => format!("{v:#x}"),
            (Some(v), false) => v.to_string(),
            (None, _) => "-".into(),
        };
        for s in &self.sections {
            let vertices = if self.vertex_section == Some(s.index) {
                "  (12-byte vertices)"
            } else {
                ""
            };
            let _ = writeln!(
                t,
                "    {}  {:#010x}  {:>6}  {:>8}  {:>8}  {:>6}{vertices}",
                s.index,
                s.pointer,
                s.count,
                opt(s.offset, true),
                opt(s.span, false),
                opt(s.stride, false)
            );
        }
        t.push_str("  assumptions\n");
        for a in &self.assumptions {
            let status = if a.passed == a.total { "ok" } else { "BROKEN" };
            let _ = write!(
                t,
                "    {status:<6} {:<48} {} / {}",
                a.name, a.passed, a.total
            );
            if let Some(b) = a.breaks.first() {
                let _ = write!(t, "  [at {:#x}: {}]", b.offset, b.detail);
            }
            t.push('\n');
        }
        t
    }
}
