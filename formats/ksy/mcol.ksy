meta:
  id: mcol
  title: MCOL map collision hull (Project Sylpheed, Xbox 360)
  file-extension: mcol
  license: MIT OR Apache-2.0
  ks-version: "0.10"
  endian: be
  imports:
    - pof0
doc: |
  A map's collision hull, one per map in `hidden/MiscBin.pak` (entries
  named only by hash, e.g. `$DC4B0896`): a closed triangle mesh, a
  bounding sphere per triangle, and a uniform grid whose cells list the
  triangles that reach into them.

  A POF0 chunk: magic, data size, the data, then the POF0 table. Every
  stored pointer is an offset from chunk offset 0x10, so each block is
  reached at `pos: pointer + 0x10` — this spec follows the pointers and
  assumes no block order. The chain a query walks:
  position -> cell (x + nx (y + ny z)) -> A record {index, count, -> B,
  cell sphere} -> B record {n, -> u16[n]} -> triangles and their spheres.

  Words whose meaning is open (0x08, 0x0C, 0x4C, 0x60-0x6F, 0x78, 0x7C,
  A word 3, B bytes 8-31) are read as raw words and bytes.
doc-ref: docs/formats/mcol.md
seq:
  - id: magic
    contents: MCOL
    doc: Chunk magic.
  - id: data_size
    type: u4
    doc: Length of the data after the 16-byte chunk head; the POF0 table starts at 0x10 + data_size.
  - id: word_08
    type: u4
    repeat: expr
    repeat-expr: 2
    doc: Two words at 0x08 and 0x0C (open; kept by sylcol).
  - id: bbox_min
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Minimum corner of the map box (and of the grid), x y z.
  - id: pad_min
    type: u4
    doc: Pad word at 0x1C, raw bits (1.0 = 0x3F800000 in every known file).
  - id: bbox_max
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Maximum corner of the map box, x y z.
  - id: pad_max
    type: u4
    doc: Pad word at 0x2C, raw bits (1.0 in every known file).
  - id: extent
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: bbox_max - bbox_min, x y z.
  - id: pad_extent
    type: u4
    doc: Pad word at 0x3C, raw bits (0.0 in every known file).
  - id: cell_size
    type: f4
    repeat: expr
    repeat-expr: 3
    doc: Grid cell size per axis (10 000 or 50 000 seen).
  - id: word_4c
    type: u4
    doc: Word at 0x4C after the cell size (open).
  - id: vertex_count
    type: u2
    doc: Number of vertices (u16).
  - id: triangle_count
    type: u2
    doc: Number of triangles (u16), which is also the number of triangle spheres.
  - id: vertices_ptr
    type: u4
    doc: Pointer (offset - 0x10) to the vertices, f32[3] each, padded to 16 bytes. Relocated.
  - id: triangles_ptr
    type: u4
    doc: Pointer to the triangles, u16[3] vertex indices each, padded to 16 bytes. Relocated.
  - id: spheres_ptr
    type: u4
    doc: Pointer to the triangle spheres (0x70 in every known file, so right after the header). Relocated.
  - id: words_60
    type: u4
    repeat: expr
    repeat-expr: 4
    doc: Four words at 0x60 ("mostly zeros"; open).
  - id: grid_x
    type: u1
    doc: Cells along x (nx) = ceil(extent.x / cell_size.x).
  - id: grid_y
    type: u1
    doc: Cells along y (ny).
  - id: grid_z
    type: u1
    doc: Cells along z (nz).
  - id: grid_w
    type: u1
    doc: Fourth grid byte (1 in every known file).
  - id: cells_ptr
    type: u4
    doc: Pointer to the cell array A (nx ny nz records of 32 bytes). Relocated.
  - id: words_78
    type: u4
    repeat: expr
    repeat-expr: 2
    doc: Two words at 0x78 and 0x7C (open).
instances:
  pof0:
    pos: 0x10 + data_size
    type: pof0
    doc: The relocation table listing every pointer word of the data.
  data_end:
    value: 0x10 + data_size
    doc: Chunk offset where the data ends and the POF0 table begins.
  cell_count:
    value: grid_x * grid_y * grid_z
    doc: Number of cell records, nx ny nz.
  spheres:
    pos: spheres_ptr + 0x10
    type: sphere
    repeat: expr
    repeat-expr: triangle_count
    doc: Sphere i bounds triangle i (radius = enclosing radius x 1.0001).
  vertices:
    pos: vertices_ptr + 0x10
    type: vec3
    repeat: expr
    repeat-expr: vertex_count
    doc: Vertex positions.
  triangles:
    pos: triangles_ptr + 0x10
    type: triangle
    repeat: expr
    repeat-expr: triangle_count
    doc: Triangles as vertex index triples.
  cells:
    pos: cells_ptr + 0x10
    type: cell
    repeat: expr
    repeat-expr: cell_count
    doc: The cell array A, dense over the grid, x fastest (cell x + nx (y + ny z)).
types:
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
  sphere:
    doc: A bounding sphere, {centre f32[3], radius f32}.
    seq:
      - id: centre
        type: vec3
        doc: Centre.
      - id: radius
        type: f4
        doc: Radius.
  triangle:
    doc: Three u16 vertex indices, each below the vertex count.
    seq:
      - id: corners
        type: u2
        repeat: expr
        repeat-expr: 3
        valid:
          max: _root.vertex_count - 1
        doc: Vertex indices.
  cell:
    doc: |
      One record of the cell array A (32 bytes). An occupied cell owns
      `count` consecutive list records B starting at its pointer; an empty
      cell has count 0 and no relocation (its bytes are zero in the known
      files, and kept whatever they hold).
    seq:
      - id: x
        type: u1
        doc: The cell's x index (occupied cells).
      - id: y
        type: u1
        doc: The cell's y index.
      - id: z
        type: u1
        doc: The cell's z index.
      - id: w
        type: u1
        doc: 1 in an occupied cell.
      - id: count
        type: u4
        doc: How many consecutive list records B the cell owns (1 in every known file; 0 when empty).
      - id: records_ptr
        type: u4
        doc: Pointer to the cell's first list record B; relocated by POF0 exactly in occupied cells.
      - id: word3
        type: u4
        doc: Word 3 (0 in every known example; open).
      - id: sphere
        type: sphere
        doc: A sphere around the cell's triangles that reaches the cell.
    instances:
      is_occupied:
        value: count != 0
        doc: |
          Whether the cell has a list. The spec's definition is "POF0
          relocates the cell's +8 word"; a Kaitai expression cannot search
          the table, so this spec reads the count, and sylcol's test checks
          on every file that both definitions pick the same cells.
      records:
        io: _root._io
        pos: records_ptr + 0x10
        type: list_record
        repeat: expr
        repeat-expr: count
        if: is_occupied
        doc: The cell's list records B.
  list_record:
    doc: One record of the list array B (32 bytes), one per occupied cell in the known files.
    seq:
      - id: count
        type: u4
        doc: Number of u16 entries in the list.
      - id: list_ptr
        type: u4
        doc: Pointer to the packed u16 list. Relocated.
      - id: tail
        size: 24
        doc: Bytes 8-31 (open).
    instances:
      triangles:
        io: _root._io
        pos: list_ptr + 0x10
        type: list_entry
        repeat: expr
        repeat-expr: count
        doc: The triangles (and spheres) that reach the cell.
  list_entry:
    doc: One u16 triangle index of a cell list.
    seq:
      - id: triangle
        type: u2
        valid:
          max: _root.triangle_count - 1
        doc: Index of a triangle (and of its sphere); below the triangle count.
