"""What an editor needs (src/editing/): every hull fault with its
elements, welding, a map's cells, the cell of a point, the flagged
elements, replacing archive entries; each against the CLI."""

import json

import numpy as np
import pytest

import sylcol
from conftest import PAK, listing, run_cli
from test_build import write_ply

LARGEST = f"{PAK}+$DD89A110"


def cli_refusal(tmp_path, v, t):
    """What `sylcol build mcol` says refusing a mesh (exit 1)."""
    ply = tmp_path / "mesh.ply"
    write_ply(ply, v, t)
    code, _, err = run_cli("build", "mcol", ply, "-o", tmp_path / "out.mcol", check=False)
    assert code == 1, err
    return err


def test_a_clean_map_has_no_fault():
    m = sylcol.load(LARGEST)
    f = sylcol.hull_faults(m.vertices, m.triangles)
    assert not f["refused"] and f["message"] is None and f["faults"] == []
    for key in ("degenerate", "open_edges", "overshared_edges", "same_direction_edges", "facing", "unused"):
        assert f[key] == [], key


def test_a_deleted_triangle_leaves_its_three_edges_open_as_the_cli_says(tmp_path):
    m = sylcol.load(LARGEST)
    t = np.delete(m.triangles, 100, axis=0)
    f = sylcol.hull_faults(m.vertices, t)
    assert f["refused"]
    hole = m.triangles[100]
    edges = {frozenset((int(t[tri][k]), int(t[tri][(k + 1) % 3]))) for tri, k in f["open_edges"]}
    assert edges == {frozenset((int(hole[k]), int(hole[(k + 1) % 3]))) for k in range(3)}
    # The faults are the CLI's sentences, one line each.
    err = cli_refusal(tmp_path, m.vertices, t)
    for sentence in f["faults"]:
        assert sentence in err
    assert "(3 open edges)" in f["message"]


def test_a_flipped_triangle_and_a_degenerate_one_are_named():
    m = sylcol.load(LARGEST)
    t = m.triangles.astype(np.int64).copy()
    t[5] = t[5][[0, 2, 1]]
    f = sylcol.hull_faults(m.vertices, t)
    rows = f["same_direction_edges"]
    assert len(rows) == 6  # its three edges, each with both triangles using it
    assert sum(tri == 5 for tri, _ in rows) == 3
    t = np.vstack([m.triangles, [[0, 0, 1]]])
    f = sylcol.hull_faults(m.vertices, t)
    assert f["degenerate"] == [len(t) - 1]


def test_an_inside_out_component_is_listed_whole():
    m = sylcol.load(LARGEST)
    t = m.triangles.astype(np.int64).copy()
    last = len(t) - 1
    # The component of the last triangle, by shared vertices.
    comp, verts = {last}, set(t[last])
    grown = True
    while grown:
        grown = False
        for i, tri in enumerate(t):
            if i not in comp and verts & set(tri):
                comp.add(i)
                verts |= set(tri)
                grown = True
    idx = sorted(comp)
    t[idx] = t[idx][:, [0, 2, 1]]
    f = sylcol.hull_faults(m.vertices, t)
    assert f["refused"] and "faces against the others" in f["message"]
    assert f["facing"] == idx


def test_parts_may_be_open():
    m = sylcol.load(LARGEST)
    t = np.delete(m.triangles, 0, axis=0)
    f = sylcol.hull_faults(m.vertices, t, part=True)
    assert not f["refused"] and len(f["open_edges"]) == 3 and f["message"].startswith("warning: part")


def test_weld_merges_what_the_cli_merges(tmp_path):
    m = sylcol.load(LARGEST)
    split_v = m.vertices[m.triangles.ravel()]
    split_t = np.arange(len(split_v)).reshape(-1, 3)
    v, t = sylcol.weld(split_v, split_t)
    assert v.dtype == np.float32 and t.dtype == np.uint32
    ply = tmp_path / "split.ply"
    write_ply(ply, split_v, split_t)
    out = tmp_path / "welded.mcol"
    run_cli("build", "mcol", ply, "--weld", "--grid-from", LARGEST, "-o", out)
    built = sylcol.load(out.read_bytes())
    assert np.array_equal(v, built.vertices) and np.array_equal(t, built.triangles)
    # Vertices come in order of first use: the same hull, renumbered.
    assert sylcol.load(sylcol.build_mcol(v, t, bbox=m.bbox, cell=float(m.cell_size[0]))).verify()["ok"]
    # An unsplit mesh is left as it is.
    v, t = sylcol.weld(m.vertices, m.triangles)
    assert np.array_equal(v, m.vertices) and np.array_equal(t, m.triangles)


def test_map_cells_are_the_gltf_cells_layer(tmp_path):
    m = sylcol.load(LARGEST)
    cells = sylcol.map_cells(m)
    out = tmp_path / "map.gltf"
    run_cli("export", LARGEST, "--layers", "cells", "-o", out)
    doc = json.loads(out.read_text())
    (node,) = [n for n in doc["nodes"] if n.get("extras", {}).get("sylcol_layer") == "cells"]
    lists = node["extras"]["lists"]
    assert [list(c) for c in cells["cell"]] == [x["cell"] for x in lists]
    assert list(cells["count"]) == [len(x["triangles"]) for x in lists]
    assert cells["lo"].shape == cells["hi"].shape == (len(lists), 3)
    assert np.all(cells["hi"] > cells["lo"])
    assert np.array_equal(cells["sphere"], m.cells["sphere"][m.cells["record"] >= 0])


def test_cell_at_gives_the_cell_and_its_lists():
    m = sylcol.load(LARGEST)
    for i in (0, 31, 62, 124):
        nx, ny, _ = m.grid
        c = [i % nx, (i // nx) % ny, i // (nx * ny)]
        centre = m.bbox[0] + (np.array(c) + 0.5) * m.cell_size
        got = sylcol.cell_at(m, centre)
        assert got["cell"] == c and got["index"] == i
        first, n = int(m.cells["record"][i]), int(m.cells["count"][i])
        expected = [int(x) for r in range(first, first + n) for x in m.lists[r]] if first >= 0 else []
        assert got["triangles"] == expected
        assert np.all(np.array(got["lo"]) <= centre) and np.all(centre <= np.array(got["hi"]))
    assert sylcol.cell_at(m, m.bbox[1] + 1) is None


def test_map_failures_flag_what_verify_fails(tmp_path):
    m = sylcol.load(LARGEST)
    assert sylcol.map_failures(m) == {"triangles": [], "cells": []}
    t = np.delete(m.triangles, 100, axis=0)
    with pytest.warns(UserWarning):
        holed = sylcol.load(sylcol.build_mcol(m.vertices, t, bbox=m.bbox, cell=float(m.cell_size[0]), allow_open=True))
    flagged = sylcol.map_failures(holed)
    assert flagged["triangles"] and all(f["checks"] for f in flagged["triangles"])
    failed = {c["id"] for c in holed.verify()["objects"][0]["checks"] if not c["ok"]}
    assert {c for f in flagged["triangles"] for c in f["checks"]} <= failed


def archive_files(pak):
    """The index and parts an archive path names: file name -> bytes."""
    return {p.name: p.read_bytes() for p in sorted(pak.parent.iterdir()) if p.stem == pak.stem}


def replaced_both_ways(tmp_path, pairs, cli_flags=(), aliases="refuse"):
    """`pak replace` and `replace_entries` of the same (entry, bytes)
    pairs into two folders: (CLI files, Python files, Python report)."""
    inputs = []
    for n, (key, data) in enumerate(pairs):
        f = tmp_path / f"new{n}.bin"
        f.write_bytes(data)
        inputs.append(f"{key}={f}")
    by_cli, by_py = tmp_path / "cli" / "MiscBin.pak", tmp_path / "py" / "MiscBin.pak"
    by_py.parent.mkdir()
    run_cli("pak", "replace", PAK, *inputs, *cli_flags, "-o", by_cli)
    done = sylcol.replace_entries(PAK, by_py, pairs, aliases=aliases)
    return archive_files(by_cli), archive_files(by_py), done


def test_replace_entries_writes_what_pak_replace_writes_byte_for_byte(tmp_path):
    m = sylcol.load(LARGEST)
    v = m.vertices.copy()
    v[7] += np.float32(125.0)
    moved = sylcol.build_mcol(v, m.triangles, bbox=m.bbox, cell=float(m.cell_size[0]))
    cli, py, done = replaced_both_ways(tmp_path, [("$DD89A110", moved)])
    assert sorted(cli) == ["MiscBin.p00", "MiscBin.pak"] and cli == py
    (row,) = done["replaced"]
    assert row["entries"] == ["$DD89A110"] and row["compressed"]
    report = json.loads(run_cli("--json", "pak", "replace", PAK, f"$DD89A110={tmp_path / 'new0.bin'}", "-o", tmp_path / "again.pak")[1])
    (cli_row,) = report["replaced"]
    assert {k: cli_row[k] for k in row} == row
    # Every other entry stored where it was, with the same stored bytes.
    out = tmp_path / "py" / "MiscBin.pak"
    before = {e.hash: (e.part, e.offset, e.stored_size) for e in sylcol.open_archive(PAK) if e.hash != 0xDD89A110}
    after = {e.hash: (e.part, e.offset, e.stored_size) for e in sylcol.open_archive(out) if e.hash != 0xDD89A110}
    assert after == before
    old, new = archive_files(PAK)["MiscBin.p00"], py["MiscBin.p00"]
    assert all(old[o : o + n] == new[o : o + n] for _, o, n in before.values())
    assert sylcol.open_archive(out)["$DD89A110"].read() == moved


def test_replace_entries_follows_pak_replace_on_shared_copies(tmp_path):
    library = bytearray(sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read())
    library[-1] ^= 1
    library = bytes(library)
    # One name of the eighteen that share the library's stored copy.
    with pytest.raises(ValueError, match=r'shares its stored bytes .* with 17 other entries: .*aliases="all"'):
        sylcol.replace_entries(PAK, tmp_path / "refused.pak", {"CollisionSet_S01.bin": library})
    assert not any(tmp_path.iterdir())
    code, _, err = run_cli("pak", "replace", PAK, f"CollisionSet_S01.bin={PAK}", "-o", tmp_path / "x.pak", check=False)
    assert code == 2 and "--all-aliases" in err
    for flag, aliases in (("--all-aliases", "all"), ("--split", "split")):
        case = tmp_path / aliases
        case.mkdir()
        cli, py, done = replaced_both_ways(case, [("CollisionSet_S01.bin", library)], [flag], aliases)
        assert cli == py, flag
        (row,) = done["replaced"]
        assert len(row["entries"]) == (18 if aliases == "all" else 1)
        copy = sylcol.open_archive(case / "py" / "MiscBin.pak")
        libraries = [e for e in copy if e.display.startswith("CollisionSet_")]
        changed = {e.display for e in libraries if e.read() == library}
        assert len(changed) == len(row["entries"]) and "CollisionSet_S01.bin" in changed
        # The others still share one stored copy.
        assert len({(e.part, e.offset) for e in libraries if e.display not in changed}) <= 1


def test_replace_entries_with_nothing_copies_the_archive_and_refuses_unknown_entries(tmp_path):
    out = tmp_path / "copy" / "MiscBin.pak"
    out.parent.mkdir()
    done = sylcol.replace_entries(PAK, out, [])
    assert done["replaced"] == [] and done["entries"] == len(listing(PAK))
    assert archive_files(out) == archive_files(PAK)
    with pytest.raises(sylcol.NotFoundError, match="no entry nothing.bin"):
        sylcol.replace_entries(PAK, tmp_path / "x.pak", {"nothing.bin": b"x"})
    with pytest.raises(ValueError, match="named twice"):
        sylcol.replace_entries(PAK, tmp_path / "x.pak", [("$DD89A110", b"x"), (0xDD89A110, b"y")])
    with pytest.raises(TypeError, match="expected a name"):
        sylcol.replace_entries(PAK, tmp_path / "x.pak", [(1.5, b"x")])
    with pytest.raises(ValueError, match="aliases"):
        sylcol.replace_entries(PAK, tmp_path / "x.pak", [], aliases="some")
    assert not (tmp_path / "x.pak").exists()
