#!/usr/bin/env python3
"""sylcol's Python collider against trimesh, on every sample map.

    pip install ./crates/sylcol-py trimesh embreex rtree scipy
    python3 benches/python_vs_trimesh.py [--rays 1000000] [--rounds 3] [--maps N]

Per map (the file's own grid, as the game walks it):

- rays: the same --rays random rays (origins inside the map box,
  directions uniform on the sphere) through sylcol's ``Collider.ray``, and
  trimesh's ``intersects_first`` with Embree (embreex, Embree 4) and with
  its pure-numpy engine (on --numpy-rays of them: it is far slower);
  hit counts compared, and the rays where both hit on how often they name
  the same triangle;
- inside: --points random points, ``Collider.inside`` vs
  ``trimesh.Trimesh.contains`` (which casts rays with Embree when embreex
  is installed);
- closest: --closest random points, ``Collider.closest`` vs
  ``trimesh.proximity.closest_point`` (distances compared).

Times are the best of --rounds rounds, the two sides interleaved in each
round (the machine is shared, so ratios from one run are what to read).
sylcol uses every core (rayon); embreex's ``intersects_first`` runs on
one thread. Prints a Markdown table (benches/README.md keeps the last one).
"""

import argparse
import os
import sys
import time
from pathlib import Path

# numpy's OpenBLAS threads spin after a BLAS call and steal a core from
# whichever side runs next; neither side needs them.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import sylcol  # noqa: E402

try:
    import trimesh
    from trimesh.ray import ray_pyembree, ray_triangle
except ImportError as e:  # pragma: no cover - the benchmark needs them
    sys.exit(f"needs trimesh and embreex: pip install trimesh embreex rtree scipy ({e})")

ROOT = Path(__file__).resolve().parents[1]


def best(fn, rounds):
    """Best wall time of `rounds` calls, and the last result."""
    times, out = [], None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def interleaved(fns, rounds):
    """Runs each fn once per round, in turn; best time of each."""
    times = [[] for _ in fns]
    outs = [None] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            outs[i] = fn()
            times[i].append(time.perf_counter() - t)
    return [min(t) for t in times], outs


def rays_for(m, n, rng):
    lo, hi = m.bbox.astype(np.float64)
    o = rng.uniform(lo, hi, size=(n, 3)).astype(np.float32)
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return o, d.astype(np.float32)


def bench_map(name, m, args, rng):
    c = m.collider()
    mesh = trimesh.Trimesh(vertices=m.vertices.astype(np.float64), faces=m.triangles.astype(np.int64),
                           process=False)
    embree = ray_pyembree.RayMeshIntersector(mesh)
    numpy_engine = ray_triangle.RayMeshIntersector(mesh)
    row = {"map": name, "triangles": m.triangle_count}

    o, d = rays_for(m, args.rays, rng)
    (t_s, t_e), (hits, first) = interleaved(
        [lambda: c.ray(o, d), lambda: embree.intersects_first(o, d)], args.rounds)
    both = (hits.triangle >= 0) & (first >= 0)
    row.update(rays=args.rays, ray_s=t_s, ray_e=t_e, hits_s=int(hits.hit.sum()), hits_e=int((first >= 0).sum()),
               same_tri=float((hits.triangle[both] == first[both]).mean()) if both.any() else 1.0)

    k = args.numpy_rays
    (t_s2, t_n), (hits2, first2) = interleaved(
        [lambda: c.ray(o[:k], d[:k]), lambda: numpy_engine.intersects_first(o[:k], d[:k])], 1)
    row.update(numpy_rays=k, ray_s_small=t_s2, ray_n=t_n, hits_s_small=int(hits2.hit.sum()),
               hits_n=int((first2 >= 0).sum()))

    lo, hi = m.bbox.astype(np.float64)
    p = rng.uniform(lo, hi, size=(args.points, 3))
    (t_si, t_ti), (ins_s, ins_t) = interleaved(
        [lambda: c.inside(p), lambda: mesh.contains(p)], args.rounds)
    row.update(points=args.points, inside_s=t_si, inside_t=t_ti, inside_agree=float((ins_s == ins_t).mean()),
               inside_count=int(ins_s.sum()))

    q = p[: args.closest]
    (t_sc, t_tc), (cl_s, cl_t) = interleaved(
        [lambda: c.closest(q), lambda: trimesh.proximity.closest_point(mesh, q)], args.rounds)
    rel = np.abs(cl_s.distance.astype(np.float64) - cl_t[1]) / np.maximum(cl_t[1], 1e-9)
    row.update(closest=args.closest, closest_s=t_sc, closest_t=t_tc, closest_maxrel=float(rel.max()))
    return row


def fmt_rate(n, t):
    r = n / t
    return f"{r / 1e6:.2f} M/s" if r >= 1e6 else f"{r / 1e3:.0f} k/s"


def ratio(a, b):
    """a / b as a speed-up, two significant digits below 10."""
    x = a / b
    return f"{x:.2g}x" if x < 10 else f"{x:.0f}x"


def table(rows):
    out = ["| map | tris | rays: sylcol | embreex | ratio | hits sylcol / embreex (same triangle) | "
           "numpy engine | ratio | inside: sylcol | trimesh contains | ratio (agree) | "
           "closest: sylcol | trimesh | ratio |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['map']} | {r['triangles']} | {fmt_rate(r['rays'], r['ray_s'])} | {fmt_rate(r['rays'], r['ray_e'])} "
            f"| {ratio(r['ray_e'], r['ray_s'])} | {r['hits_s']} / {r['hits_e']} ({100 * r['same_tri']:.2f} %) "
            f"| {fmt_rate(r['numpy_rays'], r['ray_n'])} | {ratio(r['ray_n'], r['ray_s_small'])} "
            f"| {fmt_rate(r['points'], r['inside_s'])} | {fmt_rate(r['points'], r['inside_t'])} "
            f"| {ratio(r['inside_t'], r['inside_s'])} ({100 * r['inside_agree']:.2f} %) "
            f"| {fmt_rate(r['closest'], r['closest_s'])} | {fmt_rate(r['closest'], r['closest_t'])} "
            f"| {ratio(r['closest_t'], r['closest_s'])} |")
    total = lambda k: sum(r[k] for r in rows)  # noqa: E731
    out.append(
        f"| **all {len(rows)}** | | {fmt_rate(total('rays'), total('ray_s'))} | {fmt_rate(total('rays'), total('ray_e'))} "
        f"| **{ratio(total('ray_e'), total('ray_s'))}** | | | **{ratio(total('ray_n'), total('ray_s_small'))}** "
        f"| | | **{ratio(total('inside_t'), total('inside_s'))}** | | | **{ratio(total('closest_t'), total('closest_s'))}** |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rays", type=int, default=1_000_000)
    ap.add_argument("--numpy-rays", type=int, default=10_000)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--closest", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--maps", type=int, default=11, help="only the first N maps")
    ap.add_argument("--pak", default=str(ROOT / "samples" / "MiscBin.pak"))
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    rows = []
    maps = [e for e in sylcol.open_archive(args.pak) if e.magic == "MCOL"][: args.maps]
    for e in maps:
        rows.append(bench_map(e.display.split(".")[0], e.decode(), args, rng))
        r = rows[-1]
        print(f"{r['map']}: rays {ratio(r['ray_e'], r['ray_s'])} embreex, inside {ratio(r['inside_t'], r['inside_s'])}, "
              f"closest {ratio(r['closest_t'], r['closest_s'])}", file=sys.stderr)
    print(f"sylcol {sylcol.__version__}, trimesh {trimesh.__version__}, {os.cpu_count()} cores; "
          f"{args.rays} rays, {args.numpy_rays} for the numpy engine, {args.points} inside points, "
          f"{args.closest} closest points, best of {args.rounds}")
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
