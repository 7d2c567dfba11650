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


def test_build_mcol_refuses_an_open_hull_as_the_cli_does(tmp_path):
    """The reviewers' case: a sample map minus five triangles."""
    m = sylcol.load(f"{PAK}+$DC4B0896")
    v, t = np.array(m.vertices), np.array(m.triangles[:-5])
    box = ([-25e3] * 3, [25e3] * 3)
    with pytest.raises(sylcol.BuildError) as e:
        sylcol.build_mcol(v, t, bbox=box, cell=1e4)
    assert e.value.kind == "hull" and e.value.path == "mesh"
    ply = tmp_path / "open.ply"
    write_ply(ply, v, t)
    out = tmp_path / "open.mcol"
    code, _, err = run_cli("build", "mcol", ply, "-o", out, "--bbox",
                           "-25000,-25000,-25000,25000,25000,25000", "--cell", "10000", check=False)
    assert code == 1 and not out.exists()
    # The same words, the name and the opt-out spelled for each front.
    cli = err.removeprefix("sylcol: ").split("\n  hint:")[0].strip()
    assert str(e.value) == cli.replace(str(ply), "mesh").replace("--allow-open", "allow_open=True")
    assert "is open: triangle" in str(e.value)
    # allow_open=True: the CLI's --allow-open bytes, with a warning.
    with pytest.warns(UserWarning, match="written anyway"):
        data = sylcol.build_mcol(v, t, bbox=box, cell=1e4, allow_open=True)
    run_cli("build", "mcol", ply, "-o", out, "--bbox",
            "-25000,-25000,-25000,25000,25000,25000", "--cell", "10000", "--allow-open")
    assert data == out.read_bytes()
    assert not sylcol.load(data).verify()["ok"]


def test_build_collisionset_screens_parts_as_the_cli_does():
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    closed = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    # An open part is written, as the CLI writes it.
    sylcol.build_collisionset({"open": (v, closed[:3])})
    # A turned-over triangle refuses the part unless allow_open=True.
    turned = [closed[0][::-1]] + closed[1:]
    with pytest.raises(sylcol.BuildError, match='part "bad" is not a closed') as e:
        sylcol.build_collisionset({"bad": (v, turned)})
    assert e.value.kind == "hull"
    with pytest.warns(UserWarning):
        sylcol.build_collisionset({"bad": (v, turned)}, allow_open=True)


@pytest.mark.parametrize("name", ["sub/x", "sub\\x"])
def test_build_collisionset_refuses_a_path_separator_in_a_name(name):
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    t = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    with pytest.raises(sylcol.BuildError, match="holds .* at byte 3"):
        sylcol.build_collisionset({name: (v, t)})
