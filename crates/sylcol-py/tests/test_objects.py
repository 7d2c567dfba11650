"""Loading: every sample object and fixture, its arrays against the CLI's
export, its reports against the CLI's JSON, its bytes round-tripped."""

import json
import shutil

import numpy as np
import pytest

import sylcol
from conftest import ARCHIVES, FIXTURES, PAK, SAMPLES, TABLES, cli_json, cli_object, cli_verified, entries_with_magic, entry_path, listing, run_cli


def read_obj(path):
    """Vertices (float32) and 0-based triangles of an OBJ sylcol wrote."""
    v, f = [], []
    for line in path.read_text().splitlines():
        if line.startswith("v "):
            v.append([float(x) for x in line.split()[1:4]])
        elif line.startswith("f "):
            f.append([int(x.split("/")[0]) - 1 for x in line.split()[1:4]])
    return np.array(v, dtype=np.float32).reshape(-1, 3), np.array(f).reshape(-1, 3)


CLASSES = {"MCOL": sylcol.Mcol, "REGN": sylcol.Regn, "IDXD": sylcol.StringTable,
           "IXUD": sylcol.StringTable, None: sylcol.CollisionSet}


@pytest.mark.parametrize("pak", ARCHIVES, ids=lambda p: p.name)
def test_the_archive_lists_every_entry_like_pak_list(pak):
    archive = sylcol.open_archive(pak)
    listed = listing(pak)
    assert len(archive) == len(listed) > 0
    for e, row in zip(archive, listed):
        assert f"{e.hash:08X}" == row["hash"]
        assert e.display == row["entry"]
        assert e.name == row["name"]
        assert (e.part, e.offset, e.stored_size) == (row["part"], row["offset"], row["stored_bytes"])
        assert (e.size, e.compressed, e.magic) == (row["bytes"], row["compressed"], row["magic"])
        assert e.error is None
    assert archive[-1].display == listed[-1]["entry"]
    import collections.abc

    assert isinstance(archive, collections.abc.Sequence) and archive.problems == []


def test_entries_are_found_by_name_and_hash(archive):
    assert archive["CollisionSet_S01.bin"].hash == sylcol.entry_hash("CollisionSet_S01.bin")
    assert archive["$DC4B0896"].display == "$DC4B0896.MCOL"
    assert archive["mapmesh_box_500km.rgn"].magic == "REGN"
    assert sylcol.open_archive(TABLES)["files.tbl"].magic == "IDXD"


@pytest.mark.parametrize("pak", ARCHIVES, ids=lambda p: p.name)
def test_every_sample_object_loads_as_its_class(pak):
    rows = listing(pak)
    for e, row in zip(sylcol.open_archive(pak), rows):
        o = e.decode()
        assert type(o) is CLASSES[row["magic"]], row["entry"]
        assert o.path == f"{pak}+{row['entry']}"
        assert type(sylcol.load(entry_path(pak, row["entry"]))) is type(o)


def test_the_library_entries_are_one_library(objects, library):
    libraries = [o for o in objects.values() if isinstance(o, sylcol.CollisionSet)]
    assert len(libraries) == len(entries_with_magic(PAK, None)) > 0
    first = libraries[0].to_bytes()
    assert all(lib.to_bytes() == first for lib in libraries)
    assert len(library) == cli_object("info", f"{PAK}+CollisionSet_S01.bin")["records"]
    assert library.endian == "big"


def test_map_arrays_equal_the_cli_export(maps, exported):
    for name, m in maps.items():
        v, f = read_obj(exported / f"{name}.obj")
        assert m.vertices.dtype == np.float32 and m.vertices.shape == v.shape
        assert np.array_equal(m.vertices, v), name
        assert m.triangles.dtype == np.uint32
        assert np.array_equal(m.triangles, f), name
        assert m.spheres.shape == (len(f), 4) and m.spheres.dtype == np.float32


def test_library_arrays_equal_the_cli_export(library, exported):
    folder = exported / "CollisionSet_Tutorial.bin"
    assert len(list(folder.glob("*.obj"))) == len(library)
    names = list(library)
    assert names == library.keys() and len(set(names)) == len(names)
    for name, mesh in library.items():
        v, f = read_obj(folder / f"{name}.obj")
        assert mesh.name == name
        assert np.array_equal(mesh.vertices, v), name
        assert mesh.triangles.dtype == np.uint32
        assert np.array_equal(mesh.triangles, f), name
    import collections.abc

    assert isinstance(library, collections.abc.Mapping)
    assert dict(library.items()).keys() == set(names) and len(library.values()) == len(names)
    assert library.get("no_such_mesh") is None and library.get("rob_f002").name == "rob_f002_cmesh"
    assert library["rou_e101_bdy"].name == "rou_e101_bdy_cmesh"
    assert "rou_e101_bdy" in library and "no_such_mesh" not in library
    with pytest.raises(KeyError):
        library["no_such_mesh"]


def test_vertices_are_read_only_arrays_made_once(maps, library):
    m = maps["$DC4B0896.MCOL"]
    a, b = m.vertices, m.vertices
    # Copied once, then the same array on every access.
    assert a is b and a.dtype == np.float32 and a.shape == (502, 3)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    # Neither the array nor what holds its memory can be made writeable
    # (an immutable bytes object), so no caller can change what the next
    # access returns.
    with pytest.raises(ValueError):
        a.flags.writeable = True
    with pytest.raises(ValueError):
        a.base.flags.writeable = True
    assert m.spheres is m.spheres and not m.spheres.flags.writeable
    assert m.spheres.dtype == np.float32 and m.spheres.shape == (924, 4)
    # The map's triangles and lists are widened to uint32 (the one index
    # dtype), read-only all the same.
    assert not m.triangles.flags.writeable and not m.lists[0].flags.writeable
    # A library's arrays are made once per record, whichever Mesh asks.
    mesh = library["rou_e101_bdy"]
    assert mesh.vertices is library["rou_e101_bdy"].vertices
    assert mesh.triangles is library["rou_e101_bdy"].triangles
    assert mesh.vertices.dtype == np.float32 and mesh.triangles.dtype == np.uint32
    assert mesh.vertices.shape == (324, 3) and mesh.triangles.shape == (644, 3)
    assert not mesh.vertices.flags.writeable and not mesh.triangles.flags.writeable
    with pytest.raises(ValueError):
        mesh.triangles.flags.writeable = True
    # The array outlives the object it came from.
    kept = sylcol.load(PAK.parent / "MiscBin.pak+$DC4B0896").vertices
    total = float(kept.sum())
    import gc

    gc.collect()
    assert float(kept.sum()) == total


def test_info_is_the_cli_json():
    for name in ["$DC4B0896.MCOL", "$E084C13C.MCOL", "CollisionSet_S01.bin"]:
        path = entry_path(PAK, name)
        o = sylcol.load(path)
        assert o.info() == cli_object("info", path)


def test_verify_is_the_cli_json():
    for entry in ["$DC4B0896", "$2CF7EB47", "CollisionSet_S01.bin"]:
        path = f"{PAK}+{entry}"
        o = sylcol.load(path)
        assert o.verify() == cli_verified(path)
        assert o.verify(seed=7) == cli_verified("--seed", "7", path)


@pytest.mark.parametrize("pak", ARCHIVES, ids=lambda p: p.name)
def test_to_bytes_round_trips_every_object(pak):
    for e in sylcol.open_archive(pak):
        data = e.read()
        assert e.decode().to_bytes() == data, e.display
        assert sylcol.load(data).to_bytes() == data, e.display


@pytest.mark.parametrize("fixture", ["box.mcol", "twin.mcol", "quirks.mcol"])
def test_fixtures_load_and_round_trip(fixture):
    path = FIXTURES / fixture
    m = sylcol.load(path)
    assert isinstance(m, sylcol.Mcol) and m.path == str(path)
    assert m.to_bytes() == path.read_bytes()
    assert m.info() == cli_object("info", path)
    assert sylcol.load(path.read_bytes()).to_bytes() == path.read_bytes()


def test_quirks_fixture_keeps_its_open_words():
    m = sylcol.load(FIXTURES / "quirks.mcol")
    h = m.header
    assert m.pof0_base == 0
    assert h["word_08"] == [0x11111111, 0x22222222] and h["word_4c"] == 0x4C4C4C4C
    assert h["words_60"] == [1, 2, 3, 4] and h["words_78"] == [0x78787878, 0x7C7C7C7C]
    cells = m.cells
    empty = cells[cells["record"] < 0]
    assert (empty["count"] == 0).all() and (empty["index"][:, 3] == 0).all()
    # An empty cell's junk: (x, y, z, 0), zeros, then 1.5 at +0x10.
    assert (empty["sphere"][:, 0] == 1.5).all() and (empty["link"] == 0).all()
    assert (m.records["tail"] == np.arange(1, 25)).all()


def test_cells_records_and_lists_agree(maps):
    for m in maps.values():
        nx, ny, nz = m.grid
        cells = m.cells
        assert len(cells) == nx * ny * nz
        occupied = cells[cells["record"] >= 0]
        assert (occupied["count"] == 1).all()
        assert (occupied["index"][:, 3] == 1).all()
        i = np.flatnonzero(cells["record"] >= 0)
        x, y, z = occupied["index"][:, :3].astype(np.int64).T
        assert np.array_equal(x + nx * (y + ny * z), i)
        assert len(m.lists) == len(m.records)
        assert [len(l) for l in m.lists] == list(m.records["count"])
        layout = m.layout
        assert np.array_equal(m.records["list"] + 0x10, layout["lists"])
        assert np.array_equal(occupied["link"] + 0x10, layout["records"][occupied["record"]])
        info = m.info()
        assert info["grid"]["occupied_cells"] == len(occupied)
        assert info["grid"]["list_entries"] == sum(len(l) for l in m.lists)
        assert len(m.relocations) == info["relocations"] == 4 + 2 * len(occupied)


def test_to_trimesh(maps, library):
    trimesh = pytest.importorskip("trimesh")
    t = maps["$DC4B0896.MCOL"].to_trimesh()
    assert isinstance(t, trimesh.Trimesh)
    assert t.vertices.shape == (502, 3) and t.faces.shape == (924, 3)
    assert t.is_watertight
    assert library["rou_e101_bdy"].to_trimesh().faces.shape[0] == library["rou_e101_bdy"].triangle_count


def _info_paths(pak):
    """Every entry `sylcol info --json` names: decoded, skipped or failed."""
    info = json.loads(run_cli("--json", "info", pak, check=False)[1])
    return [o["path"] for o in info["objects"] + info["skipped"]] + [
        e["path"] for e in info["errors"] if e.get("path")
    ]


def test_load_of_an_archive_names_its_entries_as_info_does(scratch):
    """`sylcol.load(ARCHIVE)` opens the archive through the CLI's front
    door: its entries are the ones `sylcol info` names, and a `names.txt`
    beside it (as `names harvest -o` writes it) names entries the built-in
    list does not know, in both."""
    pak = scratch / "MiscBin.pak"
    before = [e.path for e in sylcol.load(pak)]
    assert sorted(before) == sorted(_info_paths(pak)) and len(before) == 40
    assert f"{pak}+$DC4B0896.MCOL" in before
    name = "S14_p1_AsteroidVolume_wp.col"
    assert sylcol.entry_hash(name) == 0xDC4B0896
    (scratch / "names.txt").write_text(f"# harvested\nhidden\\MiscBin.pak+{name}\nother.pak+x.bin\n")
    after = [e.path for e in sylcol.load(pak)]
    assert sorted(after) == sorted(_info_paths(pak))
    assert f"{pak}+{name}" in after and f"{pak}+$DC4B0896.MCOL" not in after
    assert [e.path for e in sylcol.open_archive(pak)] == after
    # One entry loaded by its hash is named by the list too.
    assert sylcol.load(f"{pak}+$DC4B0896").path == f"{pak}+{name}"


def test_harvested_names_follow_into_load_with_where_they_came_from(scratch):
    """`sylcol names harvest FOLDER` keeps its names beside the archive;
    `sylcol.load` then names the entries with them, without `names=`, and
    `Archive.names` says where they came from, as `pak list --json` does."""
    shutil.copy(SAMPLES / "Tables.pak", scratch / "Tables.pak")
    shutil.copy(SAMPLES / "Tables.p00", scratch / "Tables.p00")
    pak = scratch / "MiscBin.pak"
    assert sylcol.load(pak).names["sources"] == [
        {"origin": "built_in", "path": None, "entries": 20}
    ]
    run_cli("names", "harvest", scratch)
    archive = sylcol.load(pak)
    assert f"{pak}+S14_p2_AsteroidVolume_wp.col" in [e.path for e in archive]
    listed = cli_json("pak", "list", pak)
    assert archive.names == listed["names"][0]
    assert archive.names["sources"][1] == {
        "origin": "beside",
        "path": str(scratch / "names.txt"),
        "entries": 14,
    }
    # Given names are counted as given.
    given = sylcol.load(pak, names=["S13_AsteroidVolume_wp.col"]).names["sources"]
    assert given[1] == {"origin": "given", "path": None, "entries": 1}


def test_an_archive_part_is_refused_with_the_archive_to_open(scratch):
    """`sylcol.load` of a `.p00` beside its `.pak` says which archive to
    open, as `sylcol info` does."""
    with pytest.raises(sylcol.SylcolError, match=r"part 00 of the archive .*MiscBin\.pak") as e:
        sylcol.load(scratch / "MiscBin.p00")
    assert e.value.kind == "usage"
