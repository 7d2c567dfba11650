meta:
  id: regn
  title: REGN map region object (Project Sylpheed, Xbox 360), as far as it is known
  file-extension: rgn
  license: MIT OR Apache-2.0
  ks-version: "0.11"
  endian: be
  imports:
    - pof0
doc: |
  The other object of each map in `hidden/MiscBin.pak` (eleven REGN beside
  eleven MCOL; likely a tetrahedral navigation region). Only what the
  write-ups state is read by name; every open field is raw.

  Known: a POF0 chunk like MCOL (magic, data size, data, then the POF0
  table at 0x10 + data size; stored pointers are offsets from chunk
  0x10); MCOL's header prefix (bbox min / max / extent as f32[4] at 0x10 /
  0x20 / 0x30, the cell size at 0x40); the grid dimensions at 0x50; six
  u16 counts at 0x60; six section pointers at 0x70, all relocated; the
  sections form a chain cell -> item -> refs -> geometry (tetrahedra,
  12-byte vertices).

  Derived (sylcol's reading, docs/formats/regn.md): section i is
  (pointer i, count i); it starts at pointer + 0x10 and spans to the next
  higher section start (or the data end); its stride is span / count when
  that divides. Which section is which is open: no section is named here.
  The vertex section is the one section of stride 12, read as f32[3].

  Open: the encoding of the grid bytes at 0x50 (u32[3], u16[3] or u8[3]
  are all offered), the words at 0x08, 0x0C, 0x4C, 0x6C, the bytes between
  0x88 and the first section, every record layout inside the sections.
doc-ref: docs/formats/regn.md
seq:
  - id: magic
    contents: REGN
    doc: Chunk magic.
  - id: data_size
    type: u4
    doc: Length of the data after the 16-byte chunk head; the POF0 table starts at 0x10 + data_size.
  - id: word_08
    type: u4
    repeat: expr
    repeat-expr: 2
    doc: Two words at 0x08 and 0x0C (open; raw).
  - id: bbox_min
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Minimum corner of the region's box, x y z (MCOL's convention).
  - id: pad_min
    type: u4
    doc: Pad word at 0x1C, raw bits (1.0 = 0x3F800000 expected; sylcol checks it).
  - id: bbox_max
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Maximum corner of the box, x y z.
  - id: pad_max
    type: u4
    doc: Pad word at 0x2C, raw bits (1.0 expected).
  - id: extent
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: bbox_max - bbox_min, x y z.
  - id: pad_extent
    type: u4
    doc: Pad word at 0x3C, raw bits (0.0 expected).
  - id: cell_size
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Grid cell size per axis.
  - id: word_4c
    type: u4
    doc: Word at 0x4C (open; raw).
  - id: grid_bytes
    size: 16
    doc: |
      The grid dimensions and whatever follows them, 0x50-0x5F. Their
      encoding is open: `grid_u4`, `grid_u2` and `grid_u1` give the three
      readings sylcol tries (the one that equals ceil(extent / cell) wins).
  - id: counts
    type: u2
    repeat: expr
    repeat-expr: 6
    doc: The six u16 counts at 0x60; count i goes with pointer i.
  - id: word_6c
    type: u4
    doc: Word at 0x6C (open; raw).
  - id: pointers
    type: u4
    repeat: expr
    repeat-expr: 6
    valid:
      min: 0x78
      max: data_size
    doc: |
      The six section pointers at 0x70 (offset - 0x10), each relocated by
      POF0. A section starts after the 0x88-byte header and inside the
      data, which the `valid` range says.
instances:
  pof0:
    pos: 0x10 + data_size
    type: pof0
    doc: The relocation table listing every pointer word of the data.
  data_end:
    value: 0x10 + data_size
    doc: Chunk offset where the data ends and the POF0 table begins.
  grid_u4:
    pos: 0x50
    type: u4
    repeat: expr
    repeat-expr: 3
    doc: The grid bytes read as u32[3] (one reading of an open encoding).
  grid_u2:
    pos: 0x50
    type: u2
    repeat: expr
    repeat-expr: 3
    doc: The grid bytes read as u16[3].
  grid_u1:
    pos: 0x50
    type: u1
    repeat: expr
    repeat-expr: 3
    doc: The grid bytes read as u8[3].
  sections:
    pos: 0
    type: section(_index)
    repeat: expr
    repeat-expr: 6
    doc: The six sections, as the header places them.
  twelve_byte_sections:
    value: |
      (sections[0].is_twelve ? 1 : 0) + (sections[1].is_twelve ? 1 : 0)
      + (sections[2].is_twelve ? 1 : 0) + (sections[3].is_twelve ? 1 : 0)
      + (sections[4].is_twelve ? 1 : 0) + (sections[5].is_twelve ? 1 : 0)
    doc: How many sections have stride 12 (the vertex section is defined when exactly one has).
types:
  section:
    doc: |
      Section `index`: (pointer, count) of the header, its start, span and
      stride. Reads no bytes where it is declared; its contents are the
      `data` and `vertices` instances.
    params:
      - id: index
        type: u1
        doc: 0..5, which pointer and count.
    instances:
      pointer:
        value: _root.pointers[index]
        doc: The stored pointer (offset - 0x10).
      count:
        value: _root.counts[index]
        doc: The u16 count.
      offset:
        value: pointer + 0x10
        doc: Chunk offset of the section's first byte.
      next_0:
        value: '_root.pointers[0] > pointer ? _root.pointers[0] + 0x10 : _root.data_end'
        doc: Section 0's start if it lies above this one, else the data end.
      next_1:
        value: '_root.pointers[1] > pointer ? _root.pointers[1] + 0x10 : _root.data_end'
        doc: The same for section 1.
      next_2:
        value: '_root.pointers[2] > pointer ? _root.pointers[2] + 0x10 : _root.data_end'
        doc: The same for section 2.
      next_3:
        value: '_root.pointers[3] > pointer ? _root.pointers[3] + 0x10 : _root.data_end'
        doc: The same for section 3.
      next_4:
        value: '_root.pointers[4] > pointer ? _root.pointers[4] + 0x10 : _root.data_end'
        doc: The same for section 4.
      next_5:
        value: '_root.pointers[5] > pointer ? _root.pointers[5] + 0x10 : _root.data_end'
        doc: The same for section 5.
      next_01:
        value: 'next_0 < next_1 ? next_0 : next_1'
        doc: The nearer of next_0 and next_1.
      next_23:
        value: 'next_2 < next_3 ? next_2 : next_3'
        doc: The nearer of next_2 and next_3.
      next_45:
        value: 'next_4 < next_5 ? next_4 : next_5'
        doc: The nearer of next_4 and next_5.
      next_0123:
        value: 'next_01 < next_23 ? next_01 : next_23'
        doc: The nearer of next_01 and next_23.
      end:
        value: 'next_0123 < next_45 ? next_0123 : next_45'
        doc: Where the section ends — the next higher section start, or the data end.
      span:
        value: end - offset
        doc: The section's length in bytes (sections sharing a start share a span).
      divides:
        value: 'count == 0 ? span == 0 : span % count == 0'
        doc: Whether the count divides the span (a zero count divides only an empty span).
      stride:
        value: span / count
        if: divides and count != 0
        doc: Bytes per element, span / count, when the count divides the span.
      is_twelve:
        value: divides and count != 0 and span == 12 * count
        doc: Whether the stride is 12 (the write-ups' 12-byte vertices).
      is_vertex_section:
        value: is_twelve and _root.twelve_byte_sections == 1
        doc: Whether this is the vertex section (the only one of stride 12).
      data:
        io: _root._io
        pos: offset
        size: span
        doc: The section's bytes (record layouts open).
      vertices:
        io: _root._io
        pos: offset
        type: vec3
        repeat: expr
        repeat-expr: count
        if: is_vertex_section
        doc: The vertex section's elements, f32[3] each.
  vec3:
    doc: A point, f32 x y z.
    seq:
      - id: x
        type: f4
        doc: x.
      - id: y
        type: f4
        doc: y.
      - id: z
        type: f4
        doc: z.
