"""The package's shape for a script and a type checker (issue 35): one
object's ``verify()`` is its own flat report and an ``Archive``'s the
whole run; typed loaders; signatures with their real defaults, in the
runtime and in the stub; one dtype for indices."""

import ast
import inspect
import math
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sylcol
from conftest import PAK, TABLES, cli_json, cli_verified, entry_path

STUB = __import__("pathlib").Path(sylcol.__file__).with_name("__init__.pyi")


# verify(): flat for an object, the run for an archive.


def test_verify_of_one_object_is_its_own_flat_report():
    for entry in ["$DC4B0896", "CollisionSet_S01.bin", "mapmesh_box_500km.rgn"]:
        o = sylcol.load(f"{PAK}+{entry}")
        report = o.verify()
        info = o.info()
        assert "objects" not in report and "errors" not in report
        assert report["format"] == info["format"] and report["path"] == info["path"]
        assert report["ok"] is True and report["checks"] and report["seed"] == 0x5EED2026
        assert report == cli_verified(f"{PAK}+{entry}")
    t = sylcol.load(entry_path(TABLES, "files.tbl"))
    assert t.verify(seed=3) == cli_verified("--seed", "3", entry_path(TABLES, "files.tbl"))
    # An entry decoded from an Archive reports the same way.
    e = sylcol.open_archive(PAK)["CollisionSet_S01.bin"]
    assert e.decode().verify() == sylcol.load(e.path).verify()


def test_archive_info_and_verify_are_the_cli_run():
    pak = sylcol.open_archive(PAK)
    run = pak.verify()
    assert run == cli_json("verify", str(PAK))
    assert set(run) == {"seed", "ok", "objects", "errors", "skipped", "names"}
    assert len(run["objects"]) > 1
    assert pak.verify(seed=7) == cli_json("verify", "--seed", "7", str(PAK))
    assert pak.info() == cli_json("info", str(PAK))
    # The names it was opened with reach the reports.
    named = sylcol.open_archive(PAK, names=["no_such_entry.bin"])
    assert named.info()["names"] == [named.names]


# Typed loaders.


def test_typed_loaders_return_their_kind_or_refuse_with_the_path():
    loaders = {
        f"{PAK}+$DC4B0896": (sylcol.load_mcol, sylcol.Mcol),
        f"{PAK}+CollisionSet_S01.bin": (sylcol.load_library, sylcol.CollisionSet),
        f"{PAK}+mapmesh_box_500km.rgn": (sylcol.load_regn, sylcol.Regn),
        entry_path(TABLES, "files.tbl"): (sylcol.load_table, sylcol.StringTable),
        str(PAK): (sylcol.load_archive, sylcol.Archive),
    }
    for source, (loader, cls) in loaders.items():
        assert type(loader(source)) is cls
        for other, (wrong, _) in loaders.items():
            if wrong is loader:
                continue
            with pytest.raises(sylcol.UnsupportedError) as e:
                wrong(source)
            assert e.value.kind == "unsupported" and e.value.path.startswith(str(source).split("+")[0])
            assert "not " in e.value.message
    m = sylcol.load_mcol(sylcol.load(f"{PAK}+$DC4B0896").to_bytes(), path="map.mcol")
    assert m.path == "map.mcol"
    pak = sylcol.load_archive(PAK)
    assert type(sylcol.load_library(pak["CollisionSet_S01.bin"])) is sylcol.CollisionSet


def test_a_type_checker_needs_no_casts(tmp_path):
    """mypy, on a script written against the stub, finds no error with the
    typed loaders and finds the ones `load` (a union) leaves."""
    mypy = shutil.which("mypy", path=str(__import__("pathlib").Path(sys.executable).parent))
    if mypy is None:
        pytest.skip("mypy is not installed (.ci/run installs it)")
    typed = textwrap.dedent(
        """
        import numpy as np
        import sylcol

        m = sylcol.load_mcol("MiscBin.pak+$DC4B0896")
        grid: tuple[int, int, int] = m.grid
        lib = sylcol.load_library("MiscBin.pak+CollisionSet_S01.bin")
        t: np.ndarray = lib["rou_e101_bdy"].triangles
        r = sylcol.load_regn("MiscBin.pak+mapmesh_box_500km.rgn")
        s = sylcol.load_table("Tables.pak+files.tbl").strings
        pak = sylcol.load_archive("MiscBin.pak")
        ok: bool = pak.verify(seed=7)["ok"] and m.verify()["ok"]
        hits = m.collider(grid="derived").ray([[0, 0, 0]], [[1, 0, 0]], max=10.0)
        """
    )
    untyped = typed.replace("load_mcol(", "load(").replace("load_library(", "load(")
    for name, text in [("typed.py", typed), ("untyped.py", untyped)]:
        (tmp_path / name).write_text(text)
    run = lambda name: subprocess.run(  # noqa: E731
        [mypy, "--no-incremental", name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    ok = run("typed.py")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failing = run("untyped.py")
    assert failing.returncode == 1 and 'Item "Archive"' in failing.stdout, failing.stdout


# Signatures with real defaults.


def _stub_functions():
    """(owner, name, {parameter: default}) for every function the stub
    declares with a default, its defaults evaluated."""
    tree = ast.parse(STUB.read_text())
    found = []

    def defaults(f):
        a = f.args
        pos = a.posonlyargs + a.args
        out = {p.arg: d for p, d in zip(pos[len(pos) - len(a.defaults) :], a.defaults)}
        out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        return out

    for node in tree.body:
        items = [(None, node)] if isinstance(node, ast.FunctionDef) else []
        if isinstance(node, ast.ClassDef):
            items = [(node.name, f) for f in node.body if isinstance(f, ast.FunctionDef)]
        for owner, f in items:
            if defaults(f):
                found.append((owner, f.name, defaults(f)))
    return found


def test_the_stub_gives_every_default_its_value():
    declared = _stub_functions()
    assert len(declared) > 20
    for owner, name, defaults in declared:
        for p, d in defaults.items():
            assert not (isinstance(d, ast.Constant) and d.value is Ellipsis), f"{owner}.{name}({p}=...)"


def test_runtime_signatures_show_the_stubs_defaults():
    """inspect.signature of each function (the extension's text signatures
    included) gives the defaults the stub declares, values not `...`."""
    compared = 0
    for owner, name, defaults in _stub_functions():
        if name.startswith("__"):
            continue
        thing = getattr(getattr(sylcol, owner) if owner else sylcol, name)
        params = inspect.signature(thing).parameters
        for p, node in defaults.items():
            want = eval(compile(ast.Expression(node), str(STUB), "eval"), {"math": math})
            got = params[p].default
            assert got is not Ellipsis and got == want, f"{owner}.{name}({p}={got!r}), stub {want!r}"
            compared += 1
    assert compared > 30
    # Every public function and method has a signature without `...`,
    # stub or not.
    checked = 0
    for name in sylcol.__all__:
        obj = getattr(sylcol, name)
        members = [obj] if inspect.isroutine(obj) else []
        if inspect.isclass(obj) and obj.__module__ == "sylcol._sylcol":
            members = [getattr(obj, n) for n, m in vars(obj).items() if not n.startswith("_") and inspect.ismethoddescriptor(m)]
        for m in members:
            for p in inspect.signature(m).parameters.values():
                assert p.default is not Ellipsis, f"{name}: {m.__name__}({p.name}=...)"
            checked += 1
    assert checked > 40


# One dtype for indices.


def test_every_index_array_is_uint32_and_query_results_int64():
    m = sylcol.load(f"{PAK}+$DC4B0896")
    lib = sylcol.load(f"{PAK}+CollisionSet_S01.bin")
    mesh = lib["rou_e101_bdy"]
    _, welded = sylcol.weld(m.vertices, m.triangles)
    indices = {
        "Mcol.triangles": m.triangles,
        "Mcol.lists": m.lists[0],
        "Mesh.triangles": mesh.triangles,
        "weld": welded,
    }
    for what, a in indices.items():
        assert a.dtype == np.uint32, what
    assert np.array_equal(m.triangles, np.array(m.to_trimesh().faces))
    assert int(m.triangles.max()) < m.vertex_count
    hits = m.collider().ray([[0, 0, 0], [1e9, 1e9, 1e9]], [[1, 0, 0], [1, 0, 0]])
    closest = mesh.collider().closest([[0, 0, 0]])
    assert hits.triangle.dtype == np.int64 and hits.triangle[1] == -1
    assert closest.triangle.dtype == np.int64
    # Any integer dtype goes in.
    for dtype in (np.uint16, np.int32, np.int64, np.uint32):
        built = sylcol.load(sylcol.build_mcol(m.vertices, m.triangles.astype(dtype), bbox=m.bbox, cell=float(m.cell_size[0])))
        assert np.array_equal(built.triangles, m.triangles)
