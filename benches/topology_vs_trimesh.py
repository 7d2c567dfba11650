#!/usr/bin/env python3
"""Topology speed: sylcol against Python trimesh, on the same mesh, in one run.

Builds a 327 680-triangle icosphere with trimesh, times trimesh computing
watertightness, winding consistency, the Euler number and the body count on
a fresh (uncached) mesh, writes the same triangles to a file, times
sylcol's topology pass on it (`cargo bench -p sylcol --bench topology`),
checks both tools agree on every figure, and prints the ratio.

    python3 benches/topology_vs_trimesh.py [--subdivisions 7] [--runs 15]

trimesh (with numpy, scipy) is pip-installed into target/bench-venv when it
is not importable. CI does not run this script.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "bench-venv")


def ensure_trimesh():
    """Re-runs this script under a venv holding trimesh when it is missing."""
    try:
        import trimesh  # noqa: F401
        import scipy  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.executable) == os.path.abspath(python):
        sys.exit("trimesh is still missing inside " + VENV)
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "-q", "trimesh", "numpy", "scipy"])
    os.execv(python, [python] + sys.argv)


def time_trimesh(vertices, faces, runs):
    import trimesh

    times, figures = [], None
    for _ in range(runs):
        mesh = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
        t0 = time.perf_counter()
        figures = (
            mesh.is_watertight,
            mesh.is_winding_consistent,
            mesh.euler_number,
            mesh.body_count,
        )
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times), figures


def time_sylcol(path, runs):
    env = dict(os.environ, SYLCOL_TOPOLOGY_MESH=path, SYLCOL_TOPOLOGY_RUNS=str(runs))
    out = subprocess.run(
        ["cargo", "bench", "-q", "-p", "sylcol", "--bench", "topology"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    ).stdout
    fields = dict(kv.split("=", 1) for line in out.split() for kv in [line] if "=" in kv)
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subdivisions", type=int, default=7)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    ensure_trimesh()
    import numpy as np
    import trimesh

    sphere = trimesh.creation.icosphere(subdivisions=args.subdivisions)
    vertices = np.asarray(sphere.vertices, dtype=np.float32)
    faces = np.asarray(sphere.faces, dtype=np.uint32)
    print(f"mesh: icosphere({args.subdivisions}), {len(vertices)} vertices, {len(faces)} triangles")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "icosphere.bin")
        with open(path, "wb") as f:
            f.write(np.array([len(vertices), len(faces)], dtype="<u4").tobytes())
            f.write(vertices.astype("<f4").tobytes())
            f.write(faces.astype("<u4").tobytes())
        ours = time_sylcol(path, args.runs)

    t_med, t_min, (watertight, winding, euler, bodies) = time_trimesh(
        vertices.astype(np.float64), faces.astype(np.int64), args.runs
    )
    print(f"trimesh: watertight={watertight} winding={winding} euler={euler} bodies={bodies}")
    print(
        f"sylcol:  watertight={ours['watertight'] == 'true'} winding={ours['winding_consistent'] == 'true'}"
        f" euler={ours['euler']} bodies={ours['components']} edges={ours['edges']}"
    )
    agree = (
        watertight == (ours["watertight"] == "true")
        and winding == (ours["winding_consistent"] == "true")
        and int(euler) == int(ours["euler"])
        and int(bodies) == int(ours["components"])
    )
    s_med, s_min = float(ours["median_ms"]), float(ours["min_ms"])
    print(f"trimesh  median {t_med:8.2f} ms   min {t_min:8.2f} ms   ({args.runs} runs)")
    print(f"sylcol   median {s_med:8.2f} ms   min {s_min:8.2f} ms   ({ours['runs']} runs)")
    print(f"ratio (trimesh / sylcol): medians {t_med / s_med:.1f}x, minimums {t_min / s_min:.1f}x   (target >= 20x)")
    if not agree:
        sys.exit("the two tools disagree on the mesh's topology")


if __name__ == "__main__":
    main()
