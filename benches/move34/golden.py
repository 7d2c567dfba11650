"""Golden JSON of issue 34's query move: the same commands through the
binary of the commit before the move (1eb508f) and of the move (9f1d099),
every output compared byte for byte (README.md here).

Usage: golden.py BIN OUTDIR   (environment: MAPS, the extracted samples;
TODAY, a current `sylcol` used only to read boxes and export parts)"""
import json, os, random, subprocess, sys

BIN, OUT = sys.argv[1], sys.argv[2]
EXT = os.environ.get("MAPS", "target/move34/maps")
TODAY = os.environ.get("TODAY", "target/release/sylcol")
PAK = "samples/MiscBin.pak"
os.makedirs(OUT, exist_ok=True)

def run(tag, args, stdin=None):
    p = subprocess.run([BIN] + args, capture_output=True, input=stdin)
    with open(os.path.join(OUT, tag), "wb") as f:
        f.write(b"exit %d\n" % p.returncode + p.stdout + b"\n--stderr--\n" + p.stderr)

files = sorted(os.listdir(EXT))
for name in files:
    path = os.path.join(EXT, name)
    run(f"info-{name}", ["info", "--json", path])
    run(f"verify-{name}", ["verify", "--json", path])
for lib, mesh in [("CollisionSet_S01.bin", None), ("CollisionSet_S05.bin", None)]:
    pass
run("info-archive", ["info", "--json", PAK])
run("verify-archive", ["verify", "--json", PAK])

def r(lo, hi):
    return [lo[i] + (hi[i] - lo[i]) * random.random() for i in range(3)]

def v(x):
    return ",".join(repr(float(c)) for c in x)

random.seed(34)
qdir = os.path.join(OUT, "queries")
os.makedirs(qdir, exist_ok=True)
for name in files:
    if not (name.endswith(".MCOL") or name.endswith(".col")):
        continue
    path = os.path.join(EXT, name)
    info = json.loads(subprocess.run([TODAY, "info", "--json", path],
                                     capture_output=True).stdout)["objects"][0]
    lo, hi = info["bbox_min"], info["bbox_max"]
    pad = [(hi[i] - lo[i]) * 0.1 for i in range(3)]
    lo2 = [lo[i] - pad[i] for i in range(3)]
    hi2 = [hi[i] + pad[i] for i in range(3)]
    diag = sum((hi[i] - lo[i]) ** 2 for i in range(3)) ** 0.5
    lines = []
    for _ in range(300):
        d = [random.uniform(-1, 1) for _ in range(3)]
        lines.append(f"ray {v(r(lo2, hi2))} {v(d)}")
    for _ in range(100):
        lines.append(f"segment {v(r(lo2, hi2))} {v(r(lo2, hi2))}")
    for _ in range(200):
        lines.append(f"inside {v(r(lo2, hi2))}")
    for _ in range(200):
        lines.append(f"closest {v(r(lo2, hi2))}")
    for i in range(200):
        rad = diag * [0.001, 0.01, 0.1][i % 3]
        m = [random.uniform(-1, 1) * diag * 0.2 for _ in range(3)]
        lines.append(f"sphere {v(r(lo2, hi2))} {rad!r} {v(m)}" if i % 2 else f"sphere {v(r(lo2, hi2))} {rad!r}")
    q = os.path.join(qdir, name + ".txt")
    with open(q, "w") as f:
        f.write("\n".join(lines) + "\n")
    for grid in ["file", "derived", "24"]:
        for accel in ["grid", "bvh"]:
            run(f"query-{name}-{grid}-{accel}", ["query", path, "--grid", grid, "--accel", accel, "batch", q])
    run(f"grid-{name}", ["query", path, "--json", "grid"])
    run(f"grid-derived-{name}", ["query", path, "--grid", "derived", "--json", "grid"])

# CollisionSet parts: queries through --mesh on a few named parts.
lib = os.path.join(EXT, "CollisionSet_S01.bin")
info = json.loads(subprocess.run([TODAY, "info", "--json", lib], capture_output=True).stdout)
obj = info["objects"][0]
parts = [m["name"] for m in obj.get("meshes", [])][:6]
with open(os.path.join(OUT, "library-parts"), "w") as f:
    f.write("\n".join(parts) + "\n")
for part in parts:
    objtext = subprocess.run([TODAY, "export", lib, "--mesh", part, "-o", "-"],
                             capture_output=True, text=True).stdout
    vs = [list(map(float, l.split()[1:4])) for l in objtext.splitlines() if l.startswith("v ")]
    lo = [min(p[i] for p in vs) for i in range(3)]
    hi = [max(p[i] for p in vs) for i in range(3)]
    pad = [(hi[i] - lo[i]) * 0.1 + 1e-3 for i in range(3)]
    lo2 = [lo[i] - pad[i] for i in range(3)]
    hi2 = [hi[i] + pad[i] for i in range(3)]
    lines = [f"ray {v(r(lo2, hi2))} {v([random.uniform(-1, 1) for _ in range(3)])}" for _ in range(100)]
    lines += [f"inside {v(r(lo2, hi2))}" for _ in range(50)]
    lines += [f"closest {v(r(lo2, hi2))}" for _ in range(50)]
    q = os.path.join(qdir, part + ".txt")
    with open(q, "w") as f:
        f.write("\n".join(lines) + "\n")
    for accel in ["grid", "bvh"]:
        run(f"query-lib-{part}-{accel}", ["query", lib, "--mesh", part, "--grid", "derived", "--accel", accel, "batch", q])
