meta:
  id: idxd
  title: IDXD / IXUD string table (Project Sylpheed, Xbox 360)
  file-extension: tbl
  license: MIT OR Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  The game's string tables: 32-bit hashes mapped to strings. Two flavours
  share one layout and differ in how strings are stored, which the magic
  says (this one spec reads both):

  - `IDXD`: UTF-8 strings, each ended by one zero byte; a string offset
    counts bytes.
  - `IXUD`: UTF-16 big-endian strings, each ended by one zero code unit
    (two zero bytes); a string offset counts 2-byte code units.

  Layout (public: the ProjectSylpheed unpacker's description): magic, n1,
  n1 records {hash, string offset, p1, p2}, n2, n2 pairs {hash, offset 1,
  offset 2}, the pool size, the pool of terminated strings. All words are
  big-endian u32. A string offset counts from the pool's start;
  0xFFFFFFFF means no string. Derived: a valid offset starts a string (the
  pool's first unit or the unit after a terminator), and the file is
  exactly 16 + 16 n1 + 12 n2 + pool bytes long.

  Open: what p1, p2 and the pairs' hash mean (raw words here); in IXUD,
  whether the pool size counts bytes or units — this spec, like sylcol,
  takes the reading that ends the table exactly at the end of the file
  (see `pool_len`).
doc-ref: docs/formats/idxd.md
seq:
  - id: magic
    type: str
    size: 4
    encoding: ASCII
    valid:
      any-of: ['"IDXD"', '"IXUD"']
    doc: '`IDXD` (UTF-8 strings) or `IXUD` (UTF-16BE strings).'
  - id: record_count
    type: u4
    doc: n1, the number of records of the first kind.
  - id: records
    type: record
    repeat: expr
    repeat-expr: record_count
    doc: The records of the first kind (16 bytes each), in file order.
  - id: pair_count
    type: u4
    doc: n2, the number of records of the second kind.
  - id: pairs
    type: pair
    repeat: expr
    repeat-expr: pair_count
    doc: The records of the second kind (12 bytes each), in file order.
  - id: pool_size
    type: u4
    doc: |
      The pool's size: bytes in IDXD; in IXUD bytes or 2-byte units (open;
      `pool_len` is the length this spec reads).
  - id: pool
    size: pool_len
    type: pool
    doc: The string pool, `pool_len` bytes.
instances:
  is_utf16:
    value: magic == "IXUD"
    doc: Whether strings are UTF-16BE (IXUD) rather than UTF-8 (IDXD).
  unit:
    value: 'is_utf16 ? 2 : 1'
    doc: Bytes per string-offset unit (and per terminator).
  pool_offset:
    value: 16 + 16 * record_count + 12 * pair_count
    doc: File offset of the pool's first byte.
  pool_remaining:
    value: _io.size - pool_offset
    doc: Bytes from the pool's start to the end of the file.
  pool_len:
    value: |
      not is_utf16 ? pool_size
      : (pool_size % 2 == 0 and pool_size == pool_remaining) ? pool_size
      : (pool_size * 2 == pool_remaining) ? pool_size * 2
      : (pool_size % 2 == 0 and pool_size <= pool_remaining) ? pool_size
      : pool_size * 2
    doc: |
      The pool's length in bytes. IDXD: the pool size. IXUD: the reading
      (bytes, then 2-byte units) under which the table ends exactly at the
      end of the file; when neither does, bytes if that fits (an odd
      byte count cannot hold whole units), else units.
  pool_size_in_units:
    value: is_utf16 and pool_len != pool_size
    doc: Whether the pool size word was read as 2-byte units (IXUD only).
types:
  record:
    doc: A record of the first kind.
    seq:
      - id: hash
        type: u4
        doc: The hash (MakeEntryID of the string in the known tables; not a rule).
      - id: string
        type: u4
        doc: Offset of the record's string in the pool, in units; 0xFFFFFFFF for none.
      - id: p1
        type: u4
        doc: Third word (open; raw).
      - id: p2
        type: u4
        doc: Fourth word (open; raw).
    instances:
      has_string:
        value: string != 0xFFFFFFFF
        doc: Whether the record names a string.
      text:
        io: _root.pool._io
        pos: string * _root.unit
        type:
          switch-on: _root.is_utf16
          cases:
            false: utf8_ref
            true: utf16_ref
        if: has_string
        doc: The string at the offset (an offset at or past the pool's end, or in an unterminated tail, fails the parse).
  pair:
    doc: A record of the second kind.
    seq:
      - id: hash
        type: u4
        doc: The hash word (meaning open).
      - id: first
        type: u4
        doc: First string offset in units; 0xFFFFFFFF for none.
      - id: second
        type: u4
        doc: Second string offset in units; 0xFFFFFFFF for none.
    instances:
      first_text:
        io: _root.pool._io
        pos: first * _root.unit
        type:
          switch-on: _root.is_utf16
          cases:
            false: utf8_ref
            true: utf16_ref
        if: first != 0xFFFFFFFF
        doc: The first string.
      second_text:
        io: _root.pool._io
        pos: second * _root.unit
        type:
          switch-on: _root.is_utf16
          cases:
            false: utf8_ref
            true: utf16_ref
        if: second != 0xFFFFFFFF
        doc: The second string.
  pool:
    doc: |
      The strings one after another, each with its terminator. Strings no
      record addresses, and empty strings (two terminators in a row), are
      part of the pool too.
    seq:
      - id: strings
        type:
          switch-on: _root.is_utf16
          cases:
            false: utf8_string
            true: utf16_string
        repeat: eos
        doc: Every string of the pool, in pool order.
  utf8_string:
    doc: An IDXD string, UTF-8, ended by one zero byte.
    seq:
      - id: value
        type: strz
        encoding: UTF-8
        eos-error: false
        doc: The text (a last string without terminator ends at the pool's end).
  utf16_string:
    doc: An IXUD string, UTF-16BE, ended by one zero code unit.
    seq:
      - id: value
        type: strz
        encoding: UTF-16BE
        eos-error: false
        doc: The text (a last string without terminator ends at the pool's end).
  utf8_ref:
    doc: An IDXD string a record or pair addresses; it must end inside the pool.
    seq:
      - id: value
        type: strz
        encoding: UTF-8
        doc: The text, up to its terminator.
  utf16_ref:
    doc: An IXUD string a record or pair addresses; it must end inside the pool.
    seq:
      - id: value
        type: strz
        encoding: UTF-16BE
        doc: The text, up to its terminator.
