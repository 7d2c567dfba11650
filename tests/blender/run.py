#!/usr/bin/env python3
"""sylcol's glTF exports through Blender and back (not part of .ci/run:
Blender is a 213 MB download, 732 MB installed, about two minutes).

    apt-get install -y blender python3-numpy
    cargo build -p sylcol-cli
    python3 tests/blender/run.py [--sylcol BIN] [--blender BIN] [--keep DIR]

1. sylcol exports, from samples/MiscBin.pak: the largest map ($DD89A110)
   with every layer; a map with a hole (so its failures layer holds red
   triangles) with every layer; the 158-part library; $DD89A110 (a
   +-25 000 map) and $DB066592 (+-50 000) with --scale 0.001; the 500 km
   box unscaled, at 0.001 and at 0.0001.
2. Blender (import_check.py) imports each with its own glTF importer,
   checks names, materials, custom properties, layers, bounds and View
   All against the file, and exports some back to GLB, with and without
   custom properties.
3. sylcol builds the round trips (build mcol --grid-from the original,
   build collisionset) and compares them with the originals byte for
   byte.

Prints what it found; exits 1 if any check fails.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLES = os.path.join(ROOT, "samples", "MiscBin.pak")
MAP = "$DD89A110"
HOLED_FROM = "$DC4B0896"

failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def sylcol(args, check=True):
    r = subprocess.run([SYLCOL, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"sylcol {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return r


def read(path):
    with open(path, "rb") as f:
        return f.read()


def holed_map(work):
    """$DC4B0896 with 30 triangles cut out, built on its own grid: a map
    whose verify fails, so its failures layer holds triangles."""
    obj, cut, mcol = (os.path.join(work, n) for n in ("whole.obj", "holed.obj", "holed.mcol"))
    sylcol(["export", f"{SAMPLES}+{HOLED_FROM}", "-o", obj])
    face, lines = 0, []
    for line in open(obj).read().split("\n"):
        if line.startswith("f "):
            face += 1
            if 100 < face <= 130:
                continue
        lines.append(line)
    open(cut, "w").write("\n".join(lines))
    sylcol(["build", "mcol", cut, "--grid-from", f"{SAMPLES}+{HOLED_FROM}", "--allow-open", "-o", mcol])
    return mcol


def exports(work):
    """The files Blender imports, and what it exports back from each."""
    w = lambda name: os.path.join(work, name)  # noqa: E731
    holed = holed_map(work)
    sylcol(["export", f"{SAMPLES}+{MAP}", "-o", w("map.glb"), "--layers", "all"])
    sylcol(["export", holed, "-o", w("holed.glb"), "--layers", "all"])
    sylcol(["export", f"{SAMPLES}+CollisionSet_Tutorial.bin", "-o", w("library.glb"), "--layers", "hull,failures"])
    sylcol(["export", f"{SAMPLES}+{MAP}", "-o", w("map-scaled.glb"), "--scale", "0.001"])
    sylcol(["export", f"{SAMPLES}+$DB066592", "-o", w("map50-0.001.glb"), "--scale", "0.001"])
    for scale in ("1", "0.001", "0.0001"):
        sylcol(["export", f"{SAMPLES}+mapmesh_box_500km.col", "-o", w(f"box-{scale}.glb"), "--scale", scale])
    back = lambda name, extras, **kw: {"file": w(name), "extras": extras, **kw}  # noqa: E731
    return {
        "imports": [
            {"file": w("map.glb"), "exports": [
                back("map.props.glb", True), back("map.bare.glb", False),
                back("map.bare-edges.glb", False, loose_edges=True), back("map.props-edges.glb", True, loose_edges=True)]},
            {"file": w("holed.glb"), "exports": [back("holed.props.glb", True), back("holed.bare.glb", False)]},
            {"file": w("library.glb"), "exports": [back("library.props.glb", True), back("library.bare.glb", False)]},
            {"file": w("map-scaled.glb"), "exports": [
                back("map-scaled.props.glb", True), back("map-scaled.cleared.glb", True, clear_root_scale=True)]},
            {"file": w("map50-0.001.glb")},
            *({"file": w(f"box-{s}.glb")} for s in ("1", "0.001", "0.0001")),
        ],
        "report": w("blender-report.json"),
    }, holed


def run_blender(plan_path):
    # Debian's Blender embeds the system Python and finds its library from
    # the first python3 on PATH: a pyenv or virtualenv one first would
    # leave it without numpy. Blender's own folder goes first.
    found = shutil.which(BLENDER)
    env = dict(os.environ)
    if found:
        env["PATH"] = os.path.dirname(os.path.realpath(found)) + os.pathsep + env.get("PATH", "")
    r = subprocess.run(
        [BLENDER, "-b", "--factory-startup", "--python", os.path.join(ROOT, "tests", "blender", "import_check.py"), "--", plan_path],
        capture_output=True, text=True, env=env,
    )
    log = r.stdout + r.stderr
    with open(os.path.join(os.path.dirname(plan_path), "blender.log"), "w") as f:
        f.write(log)
    # Debian's Blender has no Draco library: its exporter says so, once per
    # export, though nothing asks for Draco compression.
    noise = "Draco mesh compression is not available"
    bad = [ln for ln in log.splitlines() if ("Traceback" in ln or ln.startswith("Error")) and noise not in ln]
    expect(r.returncode == 0 and not bad, f"Blender ran the checks without an error {bad[:3]}")
    # What Blender's exporter says on the way back (import_check.py fails
    # a file whose import prints any warning).
    said = sorted({ln.split("| ", 1)[1] for ln in log.splitlines() if "| WARNING" in ln or ("| ERROR" in ln and noise not in ln)})
    for ln in said:
        print(f"     exporter: {ln}")
    return log


def build_mcol(glb, grid_from, out, *flags):
    return sylcol(["build", "mcol", glb, "--grid-from", grid_from, *flags, "-o", out], check=False)


def round_trips(work, originals, holed):
    w = lambda name: os.path.join(work, name)  # noqa: E731
    original = read(originals[MAP])
    r = build_mcol(w("map.props.glb"), originals[MAP], w("map.mcol"))
    expect(r.returncode == 1 and "--weld" in r.stderr,
           "map exported from Blender, built without --weld: refused as open (Blender splits vertices per face), hint names --weld")
    for name in ("map.props.glb", "map.bare.glb", "map.bare-edges.glb", "map.props-edges.glb"):
        out = w(name + ".mcol")
        r = build_mcol(w(name), originals[MAP], out, "--weld")
        expect(r.returncode == 0 and read(out) == original,
               f"{name} (build mcol --weld --grid-from the original): byte-identical to {MAP} {r.stderr.strip()[:200]}")
    for name in ("holed.props.glb", "holed.bare.glb"):
        out = w(name + ".mcol")
        r = build_mcol(w(name), holed, out, "--weld", "--allow-open")
        expect(r.returncode == 0 and read(out) == read(holed),
               f"{name}: byte-identical to the holed map (its red failure triangles skipped) {r.stderr.strip()[:200]}")
    library = read(originals["library"])
    out = w("library.props.bin")
    r = sylcol(["build", "collisionset", w("library.props.glb"), "--weld", "-o", out], check=False)
    expect(r.returncode == 0 and read(out) == library and "node order" not in r.stderr,
           "library.props.glb (build collisionset --weld): byte-identical, record order from the custom properties")
    out = w("library.bare.bin")
    r = sylcol(["build", "collisionset", w("library.bare.glb"), "--weld", "-o", out], check=False)
    expect(r.returncode == 0 and "node order" in r.stderr,
           "library.bare.glb: built, with a warning that the records follow the file's node order")
    names = lambda path: [m["name"] for m in json.loads(sylcol(["info", path, "--json"]).stdout)["meshes"]]  # noqa: E731
    got, want = names(out), names(originals["library"])
    expect(sorted(got) == sorted(want) and got != want,
           f"library.bare.glb: the same {len(got)} records, in Blender's object order (first {got[:2]}, not {want[:2]})")
    out = w("map-scaled.mcol")
    r = build_mcol(w("map-scaled.props.glb"), originals[MAP], out, "--weld")
    reach = lambda mcol: max(abs(float(x)) for ln in sylcol(["export", mcol, "-o", "-"]).stdout.splitlines()  # noqa: E731
                             if ln.startswith("v ") for x in ln.split()[1:])
    far, want = (reach(out), reach(originals[MAP])) if r.returncode == 0 else (0, 1)
    expect(r.returncode == 0 and abs(far / want - 0.001) < 1e-6,
           f"map-scaled.props.glb (root scale kept): built at the scaled size, vertices out to {far:g} instead of {want:g}")
    out = w("map-scaled.cleared.mcol")
    r = build_mcol(w("map-scaled.cleared.glb"), originals[MAP], out, "--weld")
    expect(r.returncode == 0 and read(out) == original,
           "map-scaled.cleared.glb (the root's scale cleared in Blender): byte-identical to the original")


def main():
    global SYLCOL, BLENDER
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sylcol", default=os.environ.get("SYLCOL_BIN", os.path.join(ROOT, "target", "debug", "sylcol")))
    ap.add_argument("--blender", default="blender")
    ap.add_argument("--keep", help="work in this folder and keep it")
    a = ap.parse_args()
    SYLCOL, BLENDER = a.sylcol, a.blender
    work = a.keep or tempfile.mkdtemp(prefix="sylcol-blender-")
    os.makedirs(work, exist_ok=True)
    version = subprocess.run([BLENDER, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}; work folder {work}")
    extracted = os.path.join(work, "extracted")
    sylcol(["pak", "extract", SAMPLES, "-o", extracted])
    originals = {MAP: os.path.join(extracted, f"{MAP}.MCOL"), "library": os.path.join(extracted, "CollisionSet_Tutorial.bin")}
    plan, holed = exports(work)
    plan_path = os.path.join(work, "plan.json")
    json.dump(plan, open(plan_path, "w"), indent=1)
    run_blender(plan_path)
    report = json.load(open(plan["report"]))
    for f in report["files"]:
        name = os.path.basename(f["file"])
        figs = f["figures"]
        expect(not f["failures"], f"{name}: {figs['objects']} objects for {figs['nodes']} nodes, "
               f"{figs.get('custom properties', 0)} custom properties, materials {figs['materials']}, layers {figs['layers']}"
               + (f" -- {f['failures'][:4]}" if f["failures"] else ""))
    view = {os.path.basename(f["file"]): f["figures"]["view all"] for f in report["files"]}
    for name, shown in [("map.glb", False), ("map-scaled.glb", True), ("map50-0.001.glb", True),
                        ("box-1.glb", False), ("box-0.001.glb", False), ("box-0.0001.glb", True)]:
        v = view[name]
        expect(v["whole hull in view"] == shown,
               f"{name}: View All {'shows' if shown else 'cannot show'} the whole hull within the default clip range "
               f"{v['clip']} (nearest {v['nearest']}, farthest {v['farthest']})")
    print(f"default import Shading (Use Normal Data): {report['default shading']}")
    round_trips(work, originals, holed)
    print(f"\n{len(failures)} check(s) failed" if failures else "\nevery check passed")
    sys.exit(1 if failures else 0)


main()
