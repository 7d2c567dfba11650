"""REGN objects and IDXD / IXUD string tables: every one in the samples
loads, its fields equal the CLI's `info --json`, its reports the CLI's
JSON, its arrays the CLI's export, and damaged ones raise like the CLI."""

import struct

import numpy as np
import pytest

import sylcol
from conftest import PAK, TABLES, cli_json, cli_object, cli_verified, entries_with_magic, entry_path, run_cli

REGNS = entries_with_magic(PAK, "REGN")
TABLE_ENTRIES = entries_with_magic(TABLES, "IDXD", "IXUD")


def read_ply_points(path):
    """The points of an ASCII PLY sylcol wrote, as float32 N x 3."""
    lines = path.read_text().splitlines()
    count = next(int(l.split()[2]) for l in lines if l.startswith("element vertex"))
    body = lines[lines.index("end_header") + 1:][:count]
    return np.array([[float(x) for x in l.split()] for l in body], dtype=np.float32).reshape(-1, 3)


@pytest.fixture(scope="module")
def exported_tables(tmp_path_factory):
    out = tmp_path_factory.mktemp("tables")
    run_cli("export", TABLES, "-o", out)
    return out


def test_the_samples_hold_regn_objects_and_both_table_flavours():
    assert len(REGNS) > 0
    assert {sylcol.load(entry_path(TABLES, t)).format for t in TABLE_ENTRIES} == {"IDXD", "IXUD"}


@pytest.mark.parametrize("entry", REGNS)
def test_every_regn_matches_info_and_verify(entry):
    path = entry_path(PAK, entry)
    r = sylcol.load(path)
    assert isinstance(r, sylcol.Regn)
    info = cli_object("info", path)
    assert r.info() == info
    assert r.verify() == cli_verified(path)
    assert r.verify(seed=7) == cli_verified("--seed", "7", path)
    h = r.header
    assert r.counts == h["counts"] == info["counts"] and len(r.counts) == 6
    assert r.pointers == h["pointers"] == info["pointers"]
    assert h["data_size"] == info["data_size"] and r.pof0_base == info["pof0_base"]
    assert h["grid_bytes"].hex() == info["grid_bytes"]
    assert [*h["word_08"], h["word_4c"], h["word_6c"]] == info["open_words"]
    for field in ("bbox_min", "bbox_max", "extent", "cell_size"):
        assert h[field] == info[field], field
    assert np.array_equal(r.bbox, np.array([info["bbox_min"], info["bbox_max"]], dtype=np.float32))
    assert np.array_equal(r.cell_size, np.array(info["cell_size"], dtype=np.float32))
    assert r.grid == tuple(info["grid"]["dims"]) and r.grid_encoding == info["grid"]["encoding"]
    assert [s._asdict() for s in r.sections] == info["sections"]
    assert len(r.relocations) == info["relocations"]
    assert [int(s) for s in r.relocations if s < 0x88] == info["header_slots"]


@pytest.mark.parametrize("entry", REGNS)
def test_every_regn_section_is_its_span(entry):
    r = sylcol.load(entry_path(PAK, entry))
    data = r.to_bytes()
    for s in r.sections:
        assert isinstance(s, sylcol.Section)
        assert s.pointer == r.pointers[s.index] and s.count == r.counts[s.index]
        assert s.offset == s.pointer + 0x10
        b = r.section_bytes(s.index)
        assert b == data[s.offset:s.offset + s.span]
        assert s.stride == (s.span // s.count if s.count and s.span % s.count == 0 else None)
    with pytest.raises(IndexError):
        r.section_bytes(6)


def test_regn_vertices_equal_the_cli_export(regions, exported):
    for name, r in regions.items():
        v = r.vertices
        s = r.sections[r.vertex_section]
        assert s.stride == 12
        assert v.dtype == np.float32 and v.shape == (s.count, 3)
        assert np.array_equal(v, read_ply_points(exported / f"{name}.ply")), name
        stored = np.frombuffer(r.section_bytes(s.index), dtype=">f4").reshape(-1, 3)
        assert np.array_equal(v.view(np.uint32), stored.astype(np.float32).view(np.uint32))
        assert (v >= r.bbox[0]).all() and (v <= r.bbox[1]).all()


def test_regn_vertices_are_a_read_only_array_made_once(regions):
    r = next(iter(regions.values()))
    a, b = r.vertices, r.vertices
    assert a is b and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    with pytest.raises(ValueError):
        a.flags.writeable = True


def test_a_regn_without_a_twelve_byte_section_has_no_vertices(regions):
    r = next(iter(regions.values()))
    data = bytearray(r.to_bytes())
    s = r.sections[r.vertex_section]
    # One element more in the count: the span no longer divides, stride None.
    struct.pack_into(">H", data, 0x60 + 2 * s.index, s.count + 1)
    d = sylcol.load(bytes(data))
    assert d.vertex_section is None and d.vertices is None
    assert d.sections[s.index].stride is None
    assert d.to_bytes() == bytes(data)
    assert d.verify()["ok"] is False


@pytest.mark.parametrize("entry", TABLE_ENTRIES)
def test_every_table_matches_info_and_verify(entry):
    path = entry_path(TABLES, entry)
    t = sylcol.load(path)
    assert isinstance(t, sylcol.StringTable)
    info = cli_object("info", path)
    assert t.info() == info
    assert t.verify() == cli_verified(path)
    assert t.format == info["format"] == entry.split(".")[-1]
    assert t.unit == (1 if t.format == "IDXD" else 2)
    assert t.pool_size_unit == info["pool_size_unit"] and t.pool_offset == info["pool_offset"]
    assert len(t.pool_bytes) == info["pool_bytes"] and len(t.trailer) == info["trailer_bytes"]
    assert t.strings == {s["offset"]: s["text"] for s in info["strings"]}
    assert list(t.strings) == [s["offset"] for s in info["strings"]]
    none = 0xFFFFFFFF
    records = t.records
    assert len(t) == len(records) == len(info["records"])
    for r, j, text in zip(records, info["records"], t.texts):
        assert f"{r['hash']:08X}" == j["hash"]
        assert (None if r["string"] == none else int(r["string"])) == j["string"]
        assert (int(r["p1"]), int(r["p2"])) == (j["p1"], j["p2"])
        assert text == j["text"] == t.text(int(r["string"]))
    assert len(t.pairs) == len(info["pairs"])
    for p, j in zip(t.pairs, info["pairs"]):
        assert f"{p['hash']:08X}" == j["hash"]
        assert t.text(int(p["first"])) == j["first_text"]
        assert t.text(int(p["second"])) == j["second_text"]


@pytest.mark.parametrize("entry", TABLE_ENTRIES)
def test_table_text_is_the_cli_export(entry, exported_tables):
    t = sylcol.load(entry_path(TABLES, entry))
    assert t.to_text() == (exported_tables / f"{entry}.txt").read_text()


def test_table_lookups_of_offsets_that_start_no_string():
    t = sylcol.load(entry_path(TABLES, TABLE_ENTRIES[0]))
    assert t.text(0xFFFFFFFF) is None
    assert t.text(len(t.pool_bytes)) is None
    first, second = list(t.strings)[:2]
    assert second - first > 1 and t.text(first + 1) is None


def damaged(data, offset, value):
    b = bytearray(data)
    b[offset:offset + len(value)] = value
    return bytes(b)


def assert_raises_like_the_cli(tmp_path, data, name):
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(data, path=name)
    f = tmp_path / name
    f.write_bytes(data)
    code, _, err = run_cli("--json", "info", f, check=False)
    assert code == 2
    import json

    cli = json.loads(err.splitlines()[0])["error"]
    assert (e.value.offset, e.value.kind) == (cli["offset"], cli["kind"])
    assert e.value.message.replace(name, str(f)) == cli["message"]
    return e.value


def regn_damages():
    data = sylcol.open_archive(PAK)[REGNS[0]].read()
    return {
        "data size": (damaged(data, 4, struct.pack(">I", 0x7FFFFFF0)), 4),
        "truncated header": (data[:0x40], None),
        "pof0 magic": (damaged(data, 0x10 + int.from_bytes(data[4:8], "big"), b"POFX"), None),
    }


@pytest.mark.parametrize("damage", list(regn_damages()))
def test_damaged_regn_raises_like_the_cli(tmp_path, damage):
    data, offset = regn_damages()[damage]
    err = assert_raises_like_the_cli(tmp_path, data, "damaged.regn")
    assert err.path == "damaged.regn" and err.offset is not None
    if offset is not None:
        assert err.offset == offset


def table_damages():
    data = sylcol.open_archive(TABLES)[TABLE_ENTRIES[0]].read()
    n1 = int.from_bytes(data[4:8], "big")
    size_at = 8 + 16 * n1 + 4 + 12 * int.from_bytes(data[8 + 16 * n1:12 + 16 * n1], "big")
    return {
        "record count": (damaged(data, 4, struct.pack(">I", 0x10000000)), 4),
        "pool size": (damaged(data, size_at, struct.pack(">I", 0x7FFFFFF0)), size_at),
        "truncated": (data[:6], 0),
    }


@pytest.mark.parametrize("damage", list(table_damages()))
def test_damaged_table_raises_like_the_cli(tmp_path, damage):
    data, offset = table_damages()[damage]
    err = assert_raises_like_the_cli(tmp_path, data, "damaged.tbl")
    assert err.offset == offset


def test_a_table_offset_off_a_string_start_loads_and_fails_verify():
    data = sylcol.open_archive(TABLES)[TABLE_ENTRIES[0]].read()
    t = sylcol.load(data)
    first, second = list(t.strings)[:2]
    bad = damaged(data, 12, struct.pack(">I", second - 1))  # record 0's string word
    d = sylcol.load(bad)
    assert d.records["string"][0] == second - 1 and d.texts[0] is None
    assert d.to_bytes() == bad
    assert d.verify()["ok"] is False
