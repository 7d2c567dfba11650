"""Damaged inputs raise Python exceptions that say where, never crash."""

import json
import struct

import pytest

import sylcol
from conftest import FIXTURES, PAK, cli_json, listing, run_cli


@pytest.fixture(scope="module")
def twin():
    return (FIXTURES / "twin.mcol").read_bytes()


@pytest.fixture(scope="module")
def library_bytes():
    return sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read()


def damaged(data, offset, value):
    b = bytearray(data)
    b[offset:offset + len(value)] = value
    return bytes(b)


def cli_error(tmp_path, data):
    """The CLI's JSON error for `info` of these bytes."""
    f = tmp_path / "damaged.bin"
    f.write_bytes(data)
    code, _, err = run_cli("--json", "info", f, check=False)
    assert code == 2
    import json

    return json.loads(err.splitlines()[0])["error"], str(f)


@pytest.mark.parametrize(
    "where, value, what",
    [
        (0, b"MCOX", "not MCOL"),  # magic
        (4, struct.pack(">I", 0x7FFFFFF0), "data size"),  # POF0 beyond the end
        (0x54, struct.pack(">I", 0x7FFFFFF0), "pointer"),  # vertex pointer out of the data
        (0x70, b"\x09", "grid"),  # grid bytes disagree with the box
    ],
)
def test_damaged_maps_raise_decode_error_like_the_cli(tmp_path, twin, where, value, what):
    data = damaged(twin, where, value)
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(data, path="twin-damaged.mcol")
    err = e.value
    assert err.path == "twin-damaged.mcol" and isinstance(err, ValueError)
    cli, path = cli_error(tmp_path, data)
    assert (err.offset, err.kind) == (cli["offset"], cli["kind"])
    assert err.message.replace("twin-damaged.mcol", path) == cli["message"]


def test_a_truncated_map_raises(twin):
    for cut in (7, 0x7F, len(twin) // 2, len(twin) - 1):
        with pytest.raises(sylcol.DecodeError) as e:
            sylcol.load(twin[:cut])
        assert e.value.offset is not None and e.value.offset <= len(twin)


def test_a_triangle_index_out_of_range_names_its_offset(twin):
    m = sylcol.load(twin)
    at = m.layout["triangles"] + 2  # triangle 0, second corner
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(damaged(twin, at, struct.pack(">H", 999)))
    assert e.value.offset == at and e.value.kind == "invalid"


def test_a_desynchronised_library_names_the_record(library_bytes):
    lib = sylcol.load(library_bytes)
    second = lib.meshes[1].offset
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(damaged(library_bytes, second, struct.pack(">I", 12345)))
    assert e.value.offset == second and e.value.kind == "invalid"
    assert "record 1" in e.value.message
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(library_bytes[:-3])
    assert e.value.kind == "invalid"


def test_bytes_of_no_format_are_unrecognised():
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(b"NOPE" + bytes(60))
    assert e.value.kind == "unrecognised" and e.value.offset == 0


def test_a_regn_magic_on_a_short_object_is_an_invalid_regn(tmp_path):
    data = b"REGN" + bytes(60)
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(data)
    cli, _ = cli_error(tmp_path, data)
    assert e.value.kind == cli["kind"] == "invalid" and e.value.offset == cli["offset"]
    assert "REGN" in e.value.message


def test_a_damaged_archive_entry_raises_and_the_others_stay_readable(scratch):
    pak = sylcol.open_archive(scratch / "MiscBin.pak")
    e = pak["$DC4B0896"]
    part = scratch / "MiscBin.p00"
    data = bytearray(part.read_bytes())
    data[e.offset + 200] ^= 0xFF  # inside the deflate stream
    part.write_bytes(bytes(data))
    with pytest.raises(sylcol.DecodeError) as err:
        pak["$DC4B0896"].read()
    assert err.value.kind == "archive" and err.value.path == "MiscBin.p00"
    assert err.value.offset is not None
    with pytest.raises(sylcol.DecodeError):
        sylcol.load(f"{scratch}/MiscBin.pak+$DC4B0896")
    assert isinstance(pak["$2CF7EB47"].decode(), sylcol.Mcol)
    rows = {r["entry"]: r for r in json.loads(run_cli("--json", "pak", "list", "--verify", scratch / "MiscBin.pak", check=False)[1])["entries"]}
    assert rows["$DC4B0896"]["error"]["offset"] == err.value.offset


def test_a_missing_part_or_index(scratch, tmp_path):
    (scratch / "MiscBin.p00").unlink()
    pak = sylcol.open_archive(scratch / "MiscBin.pak")
    assert pak[0].error is not None and "missing" in pak[0].error
    with pytest.raises(sylcol.DecodeError):
        pak[0].read()
    with pytest.raises(FileNotFoundError) as e:
        sylcol.open_archive(tmp_path / "nowhere.pak")
    assert e.value.filename.endswith("nowhere.pak")
    (tmp_path / "bad.pak").write_bytes(b"NOPE" + bytes(12))
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.open_archive(tmp_path / "bad.pak")
    assert e.value.offset == 0 and e.value.kind == "archive"


def test_names_that_do_not_exist():
    with pytest.raises(sylcol.NotFoundError) as e:
        sylcol.load(f"{PAK}+no_such_entry.bin")
    assert e.value.kind == "not_found" and isinstance(e.value, LookupError)
    with pytest.raises(KeyError):
        sylcol.open_archive(PAK)["no_such_entry.bin"]
    with pytest.raises(IndexError):
        sylcol.open_archive(PAK)[len(listing(PAK))]
    with pytest.raises(FileNotFoundError):
        sylcol.load("no/such/file.mcol")
    # A whole archive is no longer refused: it loads as its Archive
    # (tests/test_objects.py, test_load_of_an_archive_...).
    assert isinstance(sylcol.load(PAK), sylcol.Archive)


def test_user_names_name_unknown_entries(tmp_path):
    # An unknown hash gains a name when the user supplies it.
    pak = sylcol.open_archive(PAK, names=["hidden\\MiscBin.pak+mapmesh_box_500km.col", "x.bin"])
    assert pak["$CBB99D34"].name == "mapmesh_box_500km.col"
    names = tmp_path / "names.txt"
    names.write_text("# a comment\nfoo.bin\n")
    assert len(sylcol.open_archive(PAK, names=names)) == len(listing(PAK))


def test_empty_bytes_are_refused_like_the_cli(tmp_path):
    """0 bytes are no object (a CollisionSet holds at least one record)."""
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(b"")
    assert e.value.offset == 0 and e.value.kind == "invalid"
    assert "empty: 0 bytes" in str(e.value)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(sylcol.DecodeError) as e:
        sylcol.load(empty)
    assert e.value.path == str(empty)
    code, _, err = run_cli("info", empty, check=False)
    assert code == 2 and f"{empty}: empty: 0 bytes" in err


@pytest.mark.parametrize("grid", [None, 1.5, b"file", [4], True])
def test_a_grid_of_the_wrong_type_is_a_type_error(maps, grid):
    m = next(iter(maps.values()))
    with pytest.raises(TypeError, match='grid: expected "file", "derived" or a cell count'):
        m.collider(grid)


@pytest.mark.parametrize("grid", [0, -1, -(2**70), "x"])
def test_a_grid_of_a_wrong_value_is_a_value_error(maps, grid):
    m = next(iter(maps.values()))
    with pytest.raises(ValueError, match='expected "file", "derived" or a cell count'):
        m.collider(grid)


def test_an_accel_of_the_wrong_type_is_a_type_error(maps):
    m = next(iter(maps.values()))
    with pytest.raises(TypeError, match='accel: expected "grid" or "bvh", got int'):
        m.collider(accel=1)
