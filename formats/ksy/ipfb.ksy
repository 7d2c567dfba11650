meta:
  id: ipfb
  title: IPFB archive index (Project Sylpheed .pak)
  file-extension: pak
  license: MIT OR Apache-2.0
  ks-version: "0.10"
  endian: be
doc: |
  The index of an IPFB archive (the game's `MiscBin.pak`, in the disc's
  `hidden` folder): a header and one
  12-byte record per entry, sorted by unsigned name hash (the game
  binary-searches them). The entries' bytes are in part files next to the
  index, `<base>.p00`, `<base>.p01`, ... (part = location >> 28), each
  entry starting on a 2048-byte boundary; a stored entry that starts with
  `Z1` is compressed (see z1.ksy). Names are not stored, only their
  MakeEntryID hash: lower-case the name; v2 = v3 = 0; for each byte c:
  v3 += c, v2 = (v2 << 8) + c (32-bit), and if v2 & 0xFF800000 then
  v2 %= 0xFFF9D7; the hash is v2 | (v3 << 24).
doc-ref: docs/formats/ipfb.md
seq:
  - id: magic
    contents: IPFB
    doc: Index magic.
  - id: entry_count
    type: u4
    doc: Number of entries (readers also stop at a zero hash).
  - id: alignment
    type: u4
    doc: Alignment of entries inside a part (0x800).
  - id: part_size
    type: u4
    doc: Part size limit (0x10000000), the reason a location's top 4 bits are its part number.
  - id: entries
    type: entry
    repeat: expr
    repeat-expr: entry_count
    doc: The entries, sorted by unsigned hash.
types:
  entry:
    doc: Where one entry's stored bytes lie.
    seq:
      - id: name_hash
        type: u4
        doc: MakeEntryID of the entry's inner path (0 ends the table).
      - id: location
        type: u4
        doc: Part number (top 4 bits) and byte offset in that part (low 28 bits).
      - id: stored_size
        type: u4
        doc: Bytes stored in the part (the compressed size for a Z1 entry).
    instances:
      part:
        value: location >> 28
        doc: The part file number (`<base>.pNN`, two digits).
      offset:
        value: location & 0x0fffffff
        doc: Byte offset in the part file.
      is_end:
        value: name_hash == 0
        doc: A zero hash ends the table.
