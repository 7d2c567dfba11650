"""Vectorised queries: on every sample map, 10 000 random queries answered
by the Python collider equal `sylcol query FILE batch --json` on the same
queries, float for float."""

import json

import numpy as np
import pytest

import sylcol
from conftest import PAK, listing, run_cli

QUERIES_PER_MAP = 10_000
# Every sample map by its hash ("$2CF7EB47"), as `pak list --json` lists them.
MAPS = ["$" + row["hash"] for row in listing(PAK) if row["magic"] == "MCOL"]


def text(v):
    """A float32 as text that parses back to the same float32."""
    return repr(float(np.float32(v)))


def vec(p):
    return ",".join(text(x) for x in p)


def random_queries(m, rng):
    """Points in the map's box grown by 10 %, directions of any length."""
    lo, hi = m.bbox.astype(np.float64)
    pad = (hi - lo) * 0.1
    n = QUERIES_PER_MAP

    def pts(k):
        return rng.uniform(lo - pad, hi + pad, size=(k, 3)).astype(np.float32)

    def dirs(k):
        return (rng.normal(size=(k, 3)) * rng.uniform(0.1, 3.0, size=(k, 1))).astype(np.float32)

    scale = float((hi - lo).max())
    q = {
        "ray": (pts(n * 2 // 10), dirs(n * 2 // 10)),
        "ray_max": (pts(n // 10), dirs(n // 10), np.float32(scale / 8)),
        "segment": (pts(n // 10), pts(n // 10)),
        "inside": pts(n * 2 // 10),
        "closest": pts(n * 15 // 100),
        "sphere": (pts(n // 10), rng.uniform(0, scale / 20, n // 10).astype(np.float32)),
        "sweep": (pts(n * 15 // 100), rng.uniform(0, scale / 20, n * 15 // 100).astype(np.float32),
                  (dirs(n * 15 // 100) * np.float32(scale / 10))),
    }
    assert sum(len(v[0]) if isinstance(v, tuple) else len(v) for v in q.values()) == n
    return q


def batch_lines(q):
    lines = []
    lines += [f"ray {vec(o)} {vec(d)}" for o, d in zip(*q["ray"])]
    o, d, mx = q["ray_max"]
    lines += [f"ray {vec(a)} {vec(b)} {text(mx)}" for a, b in zip(o, d)]
    lines += [f"segment {vec(a)} {vec(b)}" for a, b in zip(*q["segment"])]
    lines += [f"inside {vec(p)}" for p in q["inside"]]
    lines += [f"closest {vec(p)}" for p in q["closest"]]
    lines += [f"sphere {vec(c)} {text(r)}" for c, r in zip(*q["sphere"])]
    lines += [f"sphere {vec(c)} {text(r)} {vec(m)}" for c, r, m in zip(*q["sweep"])]
    return lines


def python_answers(c, q):
    """The collider's answers, in the order of batch_lines."""
    out = []

    def hits(h):
        for i in range(len(h.t)):
            if h.triangle[i] < 0:
                out.append({"hit": False})
            else:
                out.append({"hit": True, "time_of_impact": h.t[i], "point": h.point[i],
                            "normal": h.normal[i], "triangle": int(h.triangle[i])})

    hits(c.ray(*q["ray"]))
    o, d, mx = q["ray_max"]
    hits(c.ray(o, d, max=mx))
    hits(c.segment(*q["segment"]))
    out += [{"inside": bool(b)} for b in c.inside(q["inside"])]
    cl = c.closest(q["closest"])
    out += [{"distance": cl.distance[i], "point": cl.point[i], "triangle": int(cl.triangle[i])}
            for i in range(len(cl.distance))]
    hits(c.sphere(*q["sphere"]))
    hits(c.sphere(*q["sweep"]))
    return out


def same(mine, cli):
    for key, value in mine.items():
        theirs = cli.get(key)
        if isinstance(value, np.ndarray):
            if not np.array_equal(value, np.array(theirs, dtype=np.float32)):
                return False
        elif isinstance(value, np.floating):
            if value != np.float32(theirs):
                return False
        elif value != theirs:
            return False
    return True


@pytest.mark.parametrize("entry", MAPS)
def test_answers_equal_the_cli_batch(entry, tmp_path):
    path = f"{PAK}+{entry}"
    m = sylcol.load(path)
    rng = np.random.default_rng(int(entry[1:], 16))
    q = random_queries(m, rng)
    lines = batch_lines(q)
    file = tmp_path / "queries.txt"
    file.write_text("\n".join(lines) + "\n")
    cli = [json.loads(l) for l in run_cli("--json", "query", path, "batch", file)[1].splitlines()]
    mine = python_answers(m.collider(), q)
    assert len(cli) == len(mine) == QUERIES_PER_MAP
    bad = [i for i, (a, b) in enumerate(zip(mine, cli)) if not same(a, b)]
    assert not bad, f"{len(bad)} differ; first: {lines[bad[0]]}: {mine[bad[0]]} vs {cli[bad[0]]}"
    # Both outcomes occur, so the comparison has power.
    assert any(a.get("hit") for a in mine) and any(a.get("hit") is False for a in mine)
    assert any(a.get("inside") for a in mine) and any(a.get("inside") is False for a in mine)


@pytest.mark.parametrize("entry", ["$DD89A110", "$E084C13C"])
def test_rays_through_the_bvh_answer_like_the_cli(entry, tmp_path):
    """accel="bvh" answers every query as `query --accel bvh batch`; a map
    of at most 16 triangles (two packets) gets no BVH (its rays test every
    triangle)."""
    path = f"{PAK}+{entry}"
    m = sylcol.load(path)
    c = m.collider(accel="bvh")
    assert c.accel == ("bvh" if m.triangle_count > 16 else "grid")
    assert m.collider().accel == "grid"
    rng = np.random.default_rng(int(entry[1:], 16) + 1)
    q = random_queries(m, rng)
    lines = batch_lines(q)
    file = tmp_path / "queries.txt"
    file.write_text("\n".join(lines) + "\n")
    out = run_cli("--json", "query", "--accel", "bvh", path, "batch", file)[1]
    cli = [json.loads(l) for l in out.splitlines()]
    mine = python_answers(c, q)
    assert len(cli) == len(mine) == QUERIES_PER_MAP
    bad = [i for i, (a, b) in enumerate(zip(mine, cli)) if not same(a, b)]
    assert not bad, f"{len(bad)} differ; first: {lines[bad[0]]}: {mine[bad[0]]} vs {cli[bad[0]]}"
    assert any(a.get("hit") for a in mine) and any(a.get("hit") is False for a in mine)
    with pytest.raises(ValueError):
        m.collider(accel="octree")


def test_a_derived_grid_answers_like_the_cli():
    path = f"{PAK}+$DC4B0896"
    c = sylcol.load(path).collider(grid="derived")
    assert c.source == "derived"
    o = np.array([[1000.0, -2000.0, 3000.0]] * 3, dtype=np.float32)
    d = np.array([[1, 0, 0], [0, 1, 0], [0, 0, -1]], dtype=np.float32)
    h = c.ray(o, d)
    for i in range(3):
        cli = json.loads(run_cli("--json", "query", "--grid", "derived", path, "ray",
                                 "--origin", vec(o[i]), "--dir", vec(d[i]))[1])
        assert cli["hit"] and cli["triangle"] == h.triangle[i]
        assert np.float32(cli["time_of_impact"]) == h.t[i]
    assert c.grid_fit() == json.loads(run_cli("--json", "query", "--grid", "derived", path, "grid")[1])


def test_a_library_mesh_is_queried_through_a_derived_grid(library):
    mesh = library["rou_e101_bdy"]
    c = mesh.collider()
    centre = mesh.vertices.mean(axis=0)
    assert c.inside(centre)[0]
    cl = c.closest(centre)
    cli = json.loads(run_cli("--json", "query", f"{PAK}+CollisionSet_S01.bin", "--mesh",
                             "rou_e101_bdy", "closest", "--point", vec(centre))[1])
    assert np.float32(cli["distance"]) == cl.distance[0] and cli["triangle"] == cl.triangle[0]
    with pytest.raises(sylcol.UnsupportedError):
        mesh.collider(grid="file")


def test_large_batches_equal_small_ones(maps):
    """A batch big enough to go to the thread pool answers row for row
    like rows answered one call at a time (the serial path)."""
    m = maps["$DD89A110.MCOL"]
    c = m.collider()
    rng = np.random.default_rng(5)
    o = rng.uniform(-27000, 27000, size=(5000, 3)).astype(np.float32)
    d = rng.normal(size=(5000, 3)).astype(np.float32)
    big = c.ray(o, d)
    for i in range(0, 5000, 97):
        one = c.ray(o[i], d[i])
        assert one.triangle[0] == big.triangle[i]
        assert np.array_equal(one.t, big.t[i:i + 1], equal_nan=True)
    assert np.array_equal(c.inside(o)[::97], np.concatenate([c.inside(o[i]) for i in range(0, 5000, 97)]))


def test_broadcasting_and_shapes(maps):
    c = maps["$DC4B0896.MCOL"].collider()
    h = c.ray([0, 0, 0], np.eye(3))
    assert h.t.shape == (3,) and h.point.shape == (3, 3) and h.hit.all()
    s = c.sphere(np.zeros((4, 3)), [1.0, 2.0, 3.0, 4.0], [1000.0, 0, 0])
    assert s.t.shape == (4,)
    with pytest.raises(ValueError):
        c.ray(np.zeros((3, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError):
        c.inside(np.zeros((3, 2)))


def test_unusable_queries_raise_with_their_row(maps):
    c = maps["$DC4B0896.MCOL"].collider()
    d = np.ones((600, 3), dtype=np.float32)
    d[417] = 0
    d[500] = 0
    with pytest.raises(sylcol.QueryError) as e:
        c.ray(np.zeros((600, 3)), d)
    assert e.value.index == 417 and e.value.kind == "query"
    p = np.zeros((10, 3))
    p[3, 1] = np.nan
    with pytest.raises(sylcol.QueryError) as e:
        c.closest(p)
    assert e.value.index == 3
    with pytest.raises(sylcol.QueryError):
        c.sphere([0, 0, 0], -1.0)


def test_queries_release_the_gil(maps):
    """With Python's own thread switching turned off, the main thread can
    only run while a worker is inside a query if the query released the
    GIL."""
    import sys
    import threading

    c = maps["$DD89A110.MCOL"].collider()
    points = np.random.default_rng(3).uniform(-25000, 25000, size=(2_000_000, 3)).astype(np.float32)
    started, state = threading.Event(), {"done": False}

    def worker():
        started.set()
        c.inside(points)
        state["done"] = True

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        started.wait()
        ran_during_query = not state["done"]
        t.join()
    finally:
        sys.setswitchinterval(interval)
    assert ran_during_query and state["done"]


RESIZE_RACE = """
import sys, threading
import numpy as np
import sylcol

c = sylcol.load(sys.argv[1]).collider()
n = 100_000
rng = np.random.default_rng(1)


def fresh():
    return [rng.uniform(-25000, 25000, size=(n, 3)).astype(np.float32) for _ in range(2)]


arrays = fresh()
stop = threading.Event()


def resize():
    # Shrinking a 1.2 MB buffer and growing it again frees it (munmap):
    # a query still reading it in place would fault.
    while not stop.is_set():
        for a in list(arrays):
            try:
                a.resize((1, 3), refcheck=False)
                a.resize((n, 3), refcheck=False)
            except ValueError:
                pass


t = threading.Thread(target=resize)
t.start()
try:
    for _ in range(8):
        a, b = arrays
        for call in (
            lambda: c.ray(a, b),
            lambda: c.segment(a, b),
            lambda: c.inside(a),
            lambda: c.closest(a),
            lambda: c.sphere(a, 1.0, b),
        ):
            try:
                call()
            except (sylcol.QueryError, ValueError):
                pass  # resized to zeros under the call: an unusable row
        arrays[:] = fresh()
finally:
    stop.set()
    t.join()
print("survived")
"""


def test_resizing_the_inputs_during_a_query_cannot_crash():
    """A query releases the GIL; another thread's
    ``resize(refcheck=False)`` frees the arrays' buffers meanwhile (numpy
    checks neither borrows nor buffer exports). The queries work on copies
    taken with the GIL held, so the interpreter survives. Run in a child
    process, so that a crash fails this test rather than the run."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", RESIZE_RACE, f"{PAK}+$DD89A110"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-2000:]}"
    assert out.stdout.strip() == "survived"


@pytest.mark.parametrize("grid", ["file", "derived", "16", 16])
def test_the_grid_spellings_are_the_cli_s(grid):
    """One parser reads `grid` in Python and `--grid` in the CLI."""
    path = f"{PAK}+$DC4B0896"
    c = sylcol.load(path).collider(grid=grid)
    cli = json.loads(run_cli("--json", "query", "--grid", str(grid), path, "grid")[1])
    assert c.grid_fit() == cli


@pytest.mark.parametrize("option, value", [("grid", "x"), ("grid", "0"), ("accel", "octree")])
def test_a_bad_grid_or_accel_says_what_the_cli_says(option, value):
    m = sylcol.load(f"{PAK}+$DC4B0896")
    with pytest.raises(ValueError) as e:
        m.collider(**{option: value})
    code, _, err = run_cli("query", f"--{option}", value, f"{PAK}+$DC4B0896", "grid", check=False)
    assert code == 2 and str(e.value) in err, err
    assert str(e.value).startswith(f'{option} "{value}": expected "')
