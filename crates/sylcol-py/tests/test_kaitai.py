"""The Kaitai Struct specs (formats/ksy/*.ksy) against sylcol.

The specs are compiled to Python with the Kaitai Struct compiler (npm
`kaitai-struct-compiler`, run on node by formats/ksy/compile.js) and parse
every sample object (MCOL, CollisionSet, REGN, IDXD / IXUD) and every
test fixture with the `kaitaistruct` runtime; each parse is compared field for field with sylcol's decode
through the Python package. Damaged files must fail in both.
"""

import importlib
import os
import shutil
import subprocess
import sys
import zlib

import numpy as np
import pytest

import sylcol
from conftest import FIXTURES, PAK, ROOT, TABLES, entries_with_magic

KSY = ROOT / "formats" / "ksy"
KSC_VERSION = "0.11.0"


def node_modules():
    """The compiler's node_modules: $KAITAI_NODE_MODULES, else
    target/kaitai/node_modules, installed there with npm when missing."""
    if os.environ.get("KAITAI_NODE_MODULES"):
        return os.environ["KAITAI_NODE_MODULES"]
    prefix = ROOT / "target" / "kaitai"
    modules = prefix / "node_modules"
    if not (modules / "kaitai-struct-compiler").exists() or not (modules / "js-yaml").exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is needed to install the Kaitai Struct compiler")
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
             f"kaitai-struct-compiler@{KSC_VERSION}", "js-yaml@4"],
            check=True, capture_output=True,
        )
    return str(modules)


@pytest.fixture(scope="module")
def ksy(tmp_path_factory):
    """The compiled parsers: {"mcol": Mcol, "collisionset": ..., ...}."""
    pytest.importorskip("kaitaistruct")
    out = tmp_path_factory.mktemp("ksy")
    env = dict(os.environ, NODE_PATH=node_modules())
    subprocess.run(["node", str(KSY / "compile.js"), str(out)], env=env, check=True,
                   capture_output=True)
    sys.path.insert(0, str(out))
    try:
        return {
            name: getattr(importlib.import_module(name), cls)
            for name, cls in [("ipfb", "Ipfb"), ("z1", "Z1"), ("pof0", "Pof0"),
                              ("mcol", "Mcol"), ("collisionset", "Collisionset"),
                              ("regn", "Regn"), ("idxd", "Idxd")]
        }
    finally:
        sys.path.remove(str(out))


def parse(cls, data):
    """Parses `data` and reads every instance (Kaitai reads them lazily)."""
    from kaitaistruct import KaitaiStream, BytesIO

    obj = cls(KaitaiStream(BytesIO(data)))
    obj._fetch_instances()
    return obj


def failures():
    """What a Kaitai parser raises on bad input: a failed `contents` or
    `valid` check, a read past the end, a bad zlib stream."""
    from kaitaistruct import KaitaiStructError

    return (KaitaiStructError, EOFError, zlib.error)


def f32(values):
    """float32 bit patterns (so -0.0 and 0.0 differ, as in the file)."""
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def vec3s(items):
    return f32([[v.x, v.y, v.z] for v in items]).reshape(-1, 3)


def sample_maps():
    return [e for e in sylcol.open_archive(PAK) if e.magic == "MCOL"]


def compare_mcol(k, m):
    h = m.header
    assert (k.vertex_count, k.triangle_count) == (m.vertex_count, m.triangle_count)
    assert k.data_size == h["data_size"] and k.word_08 == h["word_08"]
    assert k.word_4c == h["word_4c"] and k.words_60 == h["words_60"] and k.words_78 == h["words_78"]
    assert [k.pad_min, k.pad_max, k.pad_extent] == h["pads"]
    for field in ("bbox_min", "bbox_max", "extent", "cell_size"):
        assert np.array_equal(f32(getattr(k, field)), f32(h[field])), field
    assert [k.grid_x, k.grid_y, k.grid_z, k.grid_w] == h["grid"]
    layout = m.layout
    for block in ("vertices", "triangles", "spheres", "cells"):
        assert getattr(k, f"{block}_ptr") + 0x10 == layout[block], block
    assert np.array_equal(vec3s(k.vertices), m.vertices.view(np.uint32))
    assert np.array_equal(np.array([t.corners for t in k.triangles]).reshape(-1, 3), m.triangles)
    spheres = f32([[s.centre.x, s.centre.y, s.centre.z, s.radius] for s in k.spheres]).reshape(-1, 4)
    assert np.array_equal(spheres, m.spheres.view(np.uint32))
    compare_cells(k, m)
    slots = [e.slot for e in k.pof0.table.entries if not e.is_end]
    assert np.array_equal(np.array(slots, dtype=np.uint32) + m.pof0_base, m.relocations)


def compare_cells(k, m):
    cells, records, lists = m.cells, m.records, m.lists
    assert len(k.cells) == len(cells) == k.cell_count
    reached = set()
    for i, c in enumerate(k.cells):
        s = cells[i]
        assert [c.x, c.y, c.z, c.w] == list(s["index"])
        assert (c.count, c.records_ptr, c.word3) == (s["count"], s["link"], s["word3"])
        sphere = [c.sphere.centre.x, c.sphere.centre.y, c.sphere.centre.z, c.sphere.radius]
        assert np.array_equal(f32(sphere), s["sphere"].view(np.uint32))
        # The spec's "count != 0" picks the cells POF0 relocates.
        assert c.is_occupied == (s["record"] >= 0), i
        if not c.is_occupied:
            continue
        for j, r in enumerate(c.records):
            b = s["record"] + j
            reached.add(b)
            assert (r.count, r.list_ptr) == (records["count"][b], records["list"][b])
            assert r.tail == bytes(records["tail"][b])
            assert [t.triangle for t in r.triangles] == list(lists[b])
    assert reached == set(range(len(records)))


def compare_library(k, lib):
    assert len(k.records) == len(lib)
    assert k.is_le == (lib.endian == "little")
    for r, mesh in zip(k.records, lib.meshes):
        assert r.name == mesh.name
        assert (r.vertex_count, r.triangle_count) == (mesh.vertex_count, mesh.triangle_count)
        assert r.name_len == len(mesh.name_field)
        assert np.array_equal(vec3s(r.vertices), mesh.vertices.view(np.uint32)), mesh.name
        assert np.array_equal(np.array([t.corners for t in r.triangles]).reshape(-1, 3), mesh.triangles)


def test_the_index_matches_the_archive(ksy):
    k = parse(ksy["ipfb"], PAK.read_bytes())
    archive = sylcol.open_archive(PAK)
    assert k.entry_count == len(archive) == len(k.entries)
    assert (k.alignment, k.part_size) == (0x800, 0x10000000)
    for ke, e in zip(k.entries, archive):
        assert (ke.name_hash, ke.part, ke.offset, ke.stored_size) == (e.hash, e.part, e.offset, e.stored_size)
        assert not ke.is_end


def test_every_z1_entry_inflates_to_sylcols_bytes(ksy):
    part = (PAK.parent / "MiscBin.p00").read_bytes()
    for e in sylcol.open_archive(PAK):
        assert e.compressed
        z = parse(ksy["z1"], part[e.offset:e.offset + e.stored_size])
        data = e.read()
        assert z.uncompressed_size == e.size == len(z.data)
        assert z.data == data
        assert z.adler32 == z.zlib_trailer == zlib.adler32(data)
        assert z.zlib_header == 0x78DA


@pytest.mark.parametrize("entry", [e.display for e in sample_maps()])
def test_every_sample_map_matches_field_for_field(ksy, entry):
    data = sylcol.open_archive(PAK)[entry].read()
    compare_mcol(parse(ksy["mcol"], data), sylcol.load(data))


@pytest.mark.parametrize("fixture", ["box.mcol", "twin.mcol", "quirks.mcol"])
def test_every_fixture_matches_field_for_field(ksy, fixture):
    data = (FIXTURES / fixture).read_bytes()
    compare_mcol(parse(ksy["mcol"], data), sylcol.load(data))


def test_the_pof0_spec_alone_decodes_the_worked_example(ksy):
    # docs/formats/pof0.md: 51 41 41 46, then +0x1000 (84 00), +0x40000 (C0 01 00 00).
    table = bytes([0x51, 0x41, 0x41, 0x46, 0x84, 0x00, 0xC0, 0x01, 0x00, 0x00, 0, 0])
    k = parse(ksy["pof0"], b"POF0" + len(table).to_bytes(4, "big") + table)
    slots = [e.slot for e in k.table.entries if not e.is_end]
    assert slots == [0x44, 0x48, 0x4C, 0x64, 0x1064, 0x41064]
    assert [e.width for e in k.table.entries] == [1, 1, 1, 1, 2, 4, 1]


def test_the_sample_library_matches_field_for_field(ksy):
    data = sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read()
    compare_library(parse(ksy["collisionset"], data), sylcol.load(data))


def test_a_little_endian_library_matches(ksy):
    lib = sylcol.load(sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read())
    meshes = {name: (m.vertices, m.triangles) for name, m in list(lib.items())[:12]}
    data = sylcol.build_collisionset(meshes, endian="little")
    compare_library(parse(ksy["collisionset"], data), sylcol.load(data))
    # An empty file: the spec reads no record, sylcol refuses it (a
    # library holds at least one; formats/ksy/README.md).
    assert len(parse(ksy["collisionset"], b"").records) == 0
    with pytest.raises(sylcol.DecodeError, match="empty: 0 bytes"):
        sylcol.load(b"")


def damaged_maps():
    twin = (FIXTURES / "twin.mcol").read_bytes()
    m = sylcol.load(twin)
    tri = m.layout["triangles"]
    first_list = int(m.layout["lists"].min())
    pof0 = 0x10 + m.header["data_size"]

    def put(offset, value):
        b = bytearray(twin)
        b[offset:offset + len(value)] = value
        return bytes(b)

    return {
        "magic": put(0, b"MCOX"),
        "truncated": twin[: len(twin) // 2],
        "pof0 magic": put(pof0, b"POFX"),
        "vertex index": put(tri + 4, (m.vertex_count).to_bytes(2, "big")),
        "list entry": put(first_list, (m.triangle_count + 7).to_bytes(2, "big")),
        "cell pointer": put(m.layout["cells"] + 32 * int(np.flatnonzero(m.cells["record"] >= 0)[0]) + 8,
                            (0x7FFF0000).to_bytes(4, "big")),
    }


def damaged_libraries():
    lib = sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read()
    second = sylcol.load(lib).meshes[1]
    b = bytearray(lib)
    b[second.offset + 3] ^= 0x04  # the second record's size word
    c = bytearray(lib)
    c[second.offset + 12 + len(second.name_field) + 3] ^= 0x01  # its triangle count
    return {"size word": bytes(b), "triangle count": bytes(c), "truncated": lib[:-5],
            "trailing": lib + b"\0" * 9}


DAMAGED = [("mcol", name) for name in damaged_maps()] + [("collisionset", name) for name in damaged_libraries()]


@pytest.mark.parametrize("spec, damage", DAMAGED)
def test_a_damaged_file_fails_in_both(ksy, spec, damage):
    data = (damaged_maps() if spec == "mcol" else damaged_libraries())[damage]
    with pytest.raises(sylcol.DecodeError):
        sylcol.load(data)
    with pytest.raises(failures()):
        parse(ksy[spec], data)


def test_a_damaged_z1_entry_fails_in_both(ksy, scratch):
    archive = sylcol.open_archive(scratch / "MiscBin.pak")
    e = archive["$DC4B0896"]
    part = bytearray((scratch / "MiscBin.p00").read_bytes())
    part[e.offset + 200] ^= 0xFF
    (scratch / "MiscBin.p00").write_bytes(bytes(part))
    with pytest.raises(sylcol.DecodeError):
        e.read()
    with pytest.raises(failures()):
        parse(ksy["z1"], bytes(part[e.offset:e.offset + e.stored_size]))


# REGN and IDXD / IXUD (issue 14's formats).

REGN_FIXTURES = ["twin.regn", "quirks.regn"]
TABLE_FIXTURES = ["names.idxd", "names.ixud", "bytes.ixud"]


def sample_bytes(pak, magics):
    archive = sylcol.open_archive(pak)
    return {name: archive[name].read() for name in entries_with_magic(pak, *magics)}


def compare_regn(k, r):
    h = r.header
    assert k.data_size == h["data_size"] and k.word_08 == h["word_08"]
    assert (k.word_4c, k.word_6c) == (h["word_4c"], h["word_6c"])
    assert [k.pad_min, k.pad_max, k.pad_extent] == h["pads"]
    for field in ("bbox_min", "bbox_max", "extent", "cell_size"):
        assert np.array_equal(f32(getattr(k, field)), f32(h[field])), field
    assert k.grid_bytes == h["grid_bytes"]
    assert k.counts == r.counts and k.pointers == r.pointers
    if r.grid is not None:
        reading = {"u32[3]": k.grid_u4, "u16[3]": k.grid_u2, "u8[3]": k.grid_u1}[r.grid_encoding]
        assert tuple(reading) == r.grid
    slots = [e.slot for e in k.pof0.table.entries if not e.is_end]
    assert np.array_equal(np.array(slots, dtype=np.uint32) + r.pof0_base, r.relocations)
    placed = [s for s in r.sections if s.offset is not None]
    for s in placed:
        assert k.sections[s.index].offset == s.offset, s.index
    if len(placed) < 6:
        # The spec places every section (the known layout relocates all six
        # pointers); sylcol ignores an unrelocated one, which moves its
        # neighbour's end. Only the starts compare on such a file.
        return
    for ks, s in zip(k.sections, r.sections):
        assert (ks.index, ks.pointer, ks.count) == (s.index, s.pointer, s.count)
        assert ks.span == s.span and ks.stride == s.stride, s.index
        assert ks.data == r.section_bytes(s.index)
        assert ks.is_vertex_section == (s.index == r.vertex_section)
    if r.vertex_section is None:
        assert k.twelve_byte_sections != 1
    else:
        points = k.sections[r.vertex_section].vertices
        assert np.array_equal(vec3s(points), r.vertices.view(np.uint32))


@pytest.mark.parametrize("entry", entries_with_magic(PAK, "REGN"))
def test_every_sample_regn_matches_field_for_field(ksy, entry):
    data = sample_bytes(PAK, ["REGN"])[entry]
    compare_regn(parse(ksy["regn"], data), sylcol.load(data))


@pytest.mark.parametrize("fixture", REGN_FIXTURES)
def test_every_regn_fixture_matches_field_for_field(ksy, fixture):
    data = (FIXTURES / fixture).read_bytes()
    compare_regn(parse(ksy["regn"], data), sylcol.load(data))


def compare_table(k, t):
    assert k.magic == t.format and k.unit == t.unit
    assert k.pool_size_in_units == (t.pool_size_unit == "units")
    assert k.pool_offset == t.pool_offset and k.pool_len == len(t.pool_bytes)
    records = t.records
    assert k.record_count == len(records) == len(k.records)
    for kr, r, text in zip(k.records, records, t.texts):
        assert (kr.hash, kr.string, kr.p1, kr.p2) == tuple(int(x) for x in r)
        if text is not None:
            assert kr.text.value == text
        assert kr.has_string == (r["string"] != 0xFFFFFFFF)
    assert k.pair_count == len(t.pairs) == len(k.pairs)
    for kp, p in zip(k.pairs, t.pairs):
        assert (kp.hash, kp.first, kp.second) == tuple(int(x) for x in p)
        for text, offset in ((kp.first_text, p["first"]), (kp.second_text, p["second"])):
            assert (text.value if text else None) == t.text(int(offset))
    assert [s.value for s in k.pool.strings] == list(t.strings.values())


@pytest.mark.parametrize("entry", entries_with_magic(TABLES, "IDXD", "IXUD"))
def test_every_sample_table_matches_field_for_field(ksy, entry):
    data = sample_bytes(TABLES, ["IDXD", "IXUD"])[entry]
    compare_table(parse(ksy["idxd"], data), sylcol.load(data))


@pytest.mark.parametrize("fixture", TABLE_FIXTURES)
def test_every_table_fixture_matches_field_for_field(ksy, fixture):
    data = (FIXTURES / fixture).read_bytes()
    compare_table(parse(ksy["idxd"], data), sylcol.load(data))


def put(data, offset, value):
    b = bytearray(data)
    b[offset:offset + len(value)] = value
    return bytes(b)


def damaged_regns():
    regn = (FIXTURES / "twin.regn").read_bytes()
    pof0 = 0x10 + int.from_bytes(regn[4:8], "big")
    return {
        "magic": put(regn, 0, b"REGX"),
        "truncated": regn[: len(regn) // 2],
        "data size": put(regn, 4, (len(regn)).to_bytes(4, "big")),
        "pof0 magic": put(regn, pof0, b"POFX"),
        "pointer into the header": put(regn, 0x74, (0x20).to_bytes(4, "big")),
    }


def damaged_tables():
    table = (FIXTURES / "names.idxd").read_bytes()
    wide = (FIXTURES / "names.ixud").read_bytes()
    n1 = int.from_bytes(table[4:8], "big")
    n2 = int.from_bytes(table[8 + 16 * n1:12 + 16 * n1], "big")
    size_at = 12 + 16 * n1 + 12 * n2
    return {
        "magic": put(table, 0, b"IDXX"),
        "record count": put(table, 4, (n1 + 1000).to_bytes(4, "big")),
        "pool size": put(table, size_at, (len(table)).to_bytes(4, "big")),
        "truncated": table[:size_at + 2],
        "utf-16 pool size": put(wide, size_at, (len(wide)).to_bytes(4, "big")),
    }


DAMAGED_NEW = [("regn", name) for name in damaged_regns()] + [("idxd", name) for name in damaged_tables()]


@pytest.mark.parametrize("spec, damage", DAMAGED_NEW)
def test_a_damaged_regn_or_table_fails_in_both(ksy, spec, damage):
    data = (damaged_regns() if spec == "regn" else damaged_tables())[damage]
    with pytest.raises(sylcol.DecodeError):
        sylcol.load(data)
    with pytest.raises(failures()):
        parse(ksy[spec], data)


def test_a_table_offset_past_its_pool_fails_verify_and_the_spec(ksy):
    # damaged.idxd decodes (sylcol keeps every word), but a pair offset
    # past the pool fails `verify`, and the spec's string read fails.
    data = (FIXTURES / "damaged.idxd").read_bytes()
    t = sylcol.load(data)
    assert t.to_bytes() == data and t.verify()["ok"] is False
    with pytest.raises(failures()):
        parse(ksy["idxd"], data)
