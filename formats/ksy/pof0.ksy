meta:
  id: pof0
  title: POF0 relocation table (Sega-style chunk relocation)
  file-extension: pof0
  license: MIT OR Apache-2.0
  ks-version: "0.10"
  endian: be
doc: |
  The relocation table that follows a chunk's data (MCOL, REGN): which
  words of the data are pointers. The game's loader
  (`GARelocateChunkImg(GAChunk*)` in `xcol:binary.obj`) walks it and adds
  the load address to each such word.

  Each entry is the distance from the previous relocated word to the next,
  divided by 4; the first distance is measured from the base. The width of
  an entry is in the top two bits of its first byte: `01` one byte (low 6
  bits), `10` two bytes (low 14 bits, big-endian), `11` four bytes (low 30
  bits, big-endian), `00` padding — the table ends there.

  The base the slots are measured from is open (0x10 — the base of the
  stored pointers — is expected; sylcol also accepts 0 and reports which it
  used): `slot` here is base-relative, the chunk offset is base + slot.

  Worked example: MCOL's header slots 0x54, 0x58, 0x5C, 0x74 from base
  0x10 are distances 0x11, 1, 1, 6 words: `51 41 41 46`.
doc-ref: docs/formats/pof0.md
seq:
  - id: magic
    contents: POF0
    doc: The table's magic; it sits at chunk offset 0x10 + data size.
  - id: length
    type: u4
    doc: |
      Byte length of the encoded table that follows, its zero padding
      included, these 8 framing bytes excluded. A multiple of 4.
  - id: table
    type: entries
    size: length
    doc: The entries, then zero bytes up to `length`.
types:
  entries:
    doc: The encoded entries of one table, up to the first zero byte.
    seq:
      - id: entries
        type: 'entry(_index == 0 ? 0 : entries[_index - 1].slot)'
        repeat: until
        repeat-until: _.is_end or _io.eof
        doc: |
          Entries in order; the last one is the padding byte that ends the
          table (`is_end`) unless the entries fill `length` exactly.
      - id: padding
        size-eos: true
        doc: The rest of the padding (zero in every known file).
  entry:
    doc: One variable-width entry.
    params:
      - id: previous
        type: u4
        doc: The base-relative offset of the previous slot (0 before the first).
    seq:
      - id: first
        type: u1
        doc: The first byte; its top two bits give the width.
      - id: low
        type:
          switch-on: kind
          cases:
            2: u1
            3: b24
        if: kind >= 2
        doc: |
          The rest of a 2-byte entry (one byte) or a 4-byte entry (three
          bytes), most significant first.
      - id: nonzero
        size: 0
        if: not is_end
        valid:
          expr: distance_words > 0
        doc: |
          (No bytes.) A distance of zero would relocate one word twice:
          a table that holds one is invalid.
    instances:
      kind:
        value: first >> 6
        doc: The width code, the top two bits (0 padding, 1, 2, 3).
      is_end:
        value: kind == 0
        doc: "A zero-width byte: padding, the table ends."
      width:
        value: 'kind == 3 ? 4 : kind == 2 ? 2 : 1'
        doc: The entry's size in bytes.
      distance_words:
        value: 'is_end ? 0 : kind == 1 ? (first & 0x3f) : kind == 2 ? ((first & 0x3f) << 8) | low : ((first & 0x3f) << 24) | low'
        doc: The distance from the previous slot, in 4-byte words.
      slot:
        value: previous + distance_words * 4
        doc: The base-relative offset of the relocated word.
