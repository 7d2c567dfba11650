meta:
  id: z1
  title: Z1 compressed entry of an IPFB archive
  license: MIT OR Apache-2.0
  ks-version: "0.10"
  endian: be
doc: |
  The stored bytes of a compressed IPFB archive entry (see ipfb.ksy): a
  10-byte head, then a complete zlib stream (`78 DA`, raw deflate, a
  big-endian Adler-32). An entry that does not start with `Z1` is stored
  raw, so a raw entry can never start with `Z1`.
doc-ref: docs/formats/ipfb.md
seq:
  - id: magic
    contents: Z1
    doc: Compressed-entry magic.
  - id: uncompressed_size
    type: u4
    doc: Length of the inflated entry.
  - id: adler32
    type: u4
    doc: Adler-32 of the inflated entry (the zlib trailer holds it again).
  - id: data
    size-eos: true
    process: zlib
    doc: The zlib stream (header, deflate data, Adler-32 trailer), inflated.
instances:
  zlib_header:
    pos: 10
    type: u2
    doc: The zlib header, 0x78DA in the game's archives (levels 7-9, no preset dictionary).
  zlib_trailer:
    pos: _io.size - 4
    type: u4
    doc: The zlib stream's own Adler-32, equal to `adler32`.
