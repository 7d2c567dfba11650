"""Builders: game files from arrays, equal to the CLI's builds."""

import numpy as np
import pytest

import sylcol
from conftest import FIXTURES, PAK, run_cli


def write_ply(path, v, t):
    """An ASCII PLY (the importer keeps its vertex and face order)."""
    head = ["ply", "format ascii 1.0", f"element vertex {len(v)}", "property float x",
            "property float y", "property float z", f"element face {len(t)}",
            "property list uchar int vertex_indices", "end_header"]
    lines = [f"{repr(float(x))} {repr(float(y))} {repr(float(z))}" for x, y, z in v]
    lines += [f"3 {a} {b} {c}" for a, b, c in t]
    path.write_text("\n".join(head + lines) + "\n")


def test_build_mcol_equals_the_cli_build(tmp_path):
    twin = sylcol.load(FIXTURES / "twin.mcol")
    v, t = twin.vertices, twin.triangles
    for bbox, cell, flags in [
        (None, None, []),
        (([-25000.0] * 3, [25000.0] * 3), 10000.0, ["--bbox", "-25000,-25000,-25000,25000,25000,25000", "--cell", "10000"]),
    ]:
        built = sylcol.build_mcol(v, t, bbox=bbox, cell=cell)
        obj = tmp_path / "twin.ply"
        write_ply(obj, v, t)
        out = tmp_path / "cli.mcol"
        run_cli("build", "mcol", obj, "-o", out, *flags)
        assert built == out.read_bytes()
        m = sylcol.load(built)
        assert np.array_equal(m.vertices, v) and np.array_equal(m.triangles, t)
        assert m.verify()["ok"]


def test_build_mcol_accepts_lists_and_other_dtypes():
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    t = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    m = sylcol.load(sylcol.build_mcol(np.array(v, dtype=np.float64), t))
    assert m.vertex_count == 4 and m.triangle_count == 4
    assert m.collider().inside([0.1, 0.1, 0.1])[0]


def test_build_mcol_refuses_bad_meshes():
    v = np.zeros((3, 3), dtype=np.float32)
    with pytest.raises(sylcol.BuildError):
        sylcol.build_mcol(v, [[0, 1, 5]])
    with pytest.raises(sylcol.BuildError):
        sylcol.build_mcol(np.zeros((0, 3)), np.zeros((0, 3), dtype=int))
    with pytest.raises(sylcol.BuildError):
        sylcol.build_mcol([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, -1]])
    with pytest.raises(sylcol.BuildError):
        sylcol.build_mcol([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], cell=-1.0)
    with pytest.raises(ValueError):
        sylcol.build_mcol(v, [[0, 1]])


def test_build_collisionset_rebuilds_the_sample_library():
    original = sylcol.open_archive(PAK)["CollisionSet_S01.bin"].read()
    lib = sylcol.load(original)
    meshes = {name: (m.vertices, m.triangles) for name, m in lib.items()}
    assert sylcol.build_collisionset(meshes) == original
    little = sylcol.load(sylcol.build_collisionset(meshes, endian="little"))
    assert little.endian == "little" and list(little) == list(lib)
    assert np.array_equal(little["rob_f002"].vertices, lib["rob_f002"].vertices)


def test_build_collisionset_refuses_bad_input():
    tri = ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    with pytest.raises(sylcol.BuildError):
        sylcol.build_collisionset({"bad name": tri})
    with pytest.raises(sylcol.BuildError):
        sylcol.build_collisionset([("a", tri), ("a", tri)])
    with pytest.raises(ValueError):
        sylcol.build_collisionset({"a": tri}, endian="middle")
