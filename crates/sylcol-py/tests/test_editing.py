"""What an editor needs (src/editing/): every hull fault with its
elements, welding, a map's cells, the cell of a point, the flagged
elements, writing an archive; each against the CLI."""

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


def test_write_archive_round_trips_the_samples(tmp_path):
    pak = sylcol.open_archive(PAK)
    entries = [(e.hash, e.read(), bool(e.compressed)) for e in pak]
    out = tmp_path / "copy" / "MiscBin.pak"
    out.parent.mkdir()
    done = sylcol.write_archive(out, entries)
    assert done == {"entries": len(entries), "parts": 1}
    run_cli("verify", out)
    key = lambda e: (e["hash"], e["name"], e["entry"], e["bytes"], e["magic"], e["compressed"])  # noqa: E731
    copy = json.loads(run_cli("--json", "pak", "list", out)[1])["entries"]
    assert [key(e) for e in copy] == [key(e) for e in listing(PAK)]
    # By name, raw, over an archive of that name: replaced whole.
    done = sylcol.write_archive(out, [("a.bin", b"hello", False), ("b.bin", b"world" * 100, True)])
    assert done["entries"] == 2
    again = sylcol.open_archive(out)
    assert again["a.bin"].read() == b"hello" and again["b.bin"].read() == b"world" * 100
    assert not again["a.bin"].compressed and again["b.bin"].compressed
    assert sorted(p.name for p in out.parent.iterdir()) == ["MiscBin.p00", "MiscBin.pak"]


def test_write_archive_refuses_bad_entries(tmp_path):
    out = tmp_path / "x.pak"
    with pytest.raises(TypeError, match="expected a name"):
        sylcol.write_archive(out, [(1.5, b"x", False)])
    with pytest.raises(sylcol.SylcolError, match="same hash"):
        sylcol.write_archive(out, [("a.bin", b"x", False), (sylcol.entry_hash("a.bin"), b"y", False)])
    with pytest.raises(ValueError, match="level"):
        sylcol.write_archive(out, [], level=10)
    assert not any(tmp_path.iterdir())
    with pytest.raises(sylcol.SylcolError, match="cannot write"):
        sylcol.write_archive(tmp_path / "missing" / "x.pak", [("a.bin", b"x", False)])
