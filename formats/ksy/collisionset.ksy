meta:
  id: collisionset
  title: CollisionSet per-part collision-mesh library (Project Sylpheed)
  file-extension: bin
  license: MIT OR Apache-2.0
  ks-version: "0.10"
  encoding: ASCII
doc: |
  `CollisionSet_S01.bin` ... in `hidden/MiscBin.pak`: a bare run of
  variable-length records, no magic, no header, no index. Each record is a
  named triangle mesh; the next record starts where the previous one ends
  (offset + 8 + size), and the walk must end exactly at the end of the
  file.

  Byte order is not stated by the write-ups: the walk decides. This spec
  decides it on the first record: big-endian (the Xbox 360's order) when
  its four framing words are consistent read big-endian, else
  little-endian when they are consistent read little-endian (sylcol walks
  the whole file big-endian first, then little-endian; the two agree on
  every file both read). An empty file is a library of no records.
doc-ref: docs/formats/collisionset.md
seq:
  - id: records
    type: record
    repeat: eos
    doc: The records, in file order.
instances:
  is_le:
    value: '_io.size < 16 ? false : not first_be.frames and first_le.frames'
    doc: Whether the library is little-endian (decided on the first record).
  first_be:
    pos: 0
    type: framing_be
    if: _io.size >= 16
    doc: The first record's framing words read big-endian (a record has at least 16 bytes).
  first_le:
    pos: 0
    type: framing_le
    if: _io.size >= 16
    doc: The first record's framing words read little-endian.
types:
  framing_be:
    doc: |
      Whether the first record frames correctly big-endian: size =
      name_len + 8 + 12 nv + 12 nt, name_len a multiple of 8, all inside
      the file.
    seq:
      - id: size
        type: u4be
        doc: The size word.
      - id: name_len
        type: u4be
        doc: The name length word.
    instances:
      name_fits:
        value: name_len % 8 == 0 and name_len + 16 <= _io.size
        doc: The name and both counts lie inside the file.
      vertex_count:
        pos: 8 + name_len
        type: u4be
        if: name_fits
        doc: The vertex count.
      triangle_count:
        pos: 12 + name_len
        type: u4be
        if: name_fits
        doc: The triangle count.
      frames:
        value: 'name_fits and size + 8 <= _io.size and size == name_len + 8 + 12 * vertex_count + 12 * triangle_count'
        doc: The four words agree.
  framing_le:
    doc: The same test with the words read little-endian.
    seq:
      - id: size
        type: u4le
        doc: The size word.
      - id: name_len
        type: u4le
        doc: The name length word.
    instances:
      name_fits:
        value: name_len % 8 == 0 and name_len + 16 <= _io.size
        doc: The name and both counts lie inside the file.
      vertex_count:
        pos: 8 + name_len
        type: u4le
        if: name_fits
        doc: The vertex count.
      triangle_count:
        pos: 12 + name_len
        type: u4le
        if: name_fits
        doc: The triangle count.
      frames:
        value: 'name_fits and size + 8 <= _io.size and size == name_len + 8 + 12 * vertex_count + 12 * triangle_count'
        doc: The four words agree.
  record:
    doc: One named triangle mesh; it occupies 16 + name_len + 12 nv + 12 nt bytes.
    meta:
      endian:
        switch-on: _root.is_le
        cases:
          true: le
          false: be
    seq:
      - id: size
        type: u4
        doc: Bytes after this record's first 8 = name_len + 8 + 12 vertex_count + 12 triangle_count.
      - id: name_len
        type: u4
        valid:
          expr: _ % 8 == 0 and _ + 8 <= size
        doc: Length of the name field, a multiple of 8 (16, 24 or 32 seen).
      - id: name
        type: strz
        size: name_len
        doc: |
          The name, NUL-padded to name_len (`<GameResourceID>[_<part>]_cmesh`
          or a stage asteroid, e.g. `rou_e101_bdy_cmesh`,
          `S01_Asteroid_cmesh_01a`).
      - id: vertex_count
        type: u4
        doc: Number of vertices.
      - id: triangle_count
        type: u4
        valid:
          expr: size == name_len + 8 + 12 * vertex_count + 12 * _
        doc: Number of triangles; with the vertex count it must give the size word exactly.
      - id: vertices
        type: vec3
        repeat: expr
        repeat-expr: vertex_count
        doc: Vertex positions.
      - id: triangles
        type: triangle
        repeat: expr
        repeat-expr: triangle_count
        doc: Triangles as vertex index triples (u32 here; MCOL uses u16).
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
      triangle:
        doc: Three u32 vertex indices, each below the record's vertex count.
        seq:
          - id: corners
            type: u4
            repeat: expr
            repeat-expr: 3
            valid:
              expr: _ < _parent.vertex_count
            doc: Vertex indices.
