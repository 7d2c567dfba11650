"""The add-on's figures (benches/README.md): the time from "import
MiscBin.pak" to "saved into archive, verified" for the largest sample
map, and the size of the extension, zipped and installed.

    target/blender-venv/bin/python blender/tests/measure.py [RUNS]

Each run, in one Blender session with the add-on installed from its zip:
import the archive's largest map ($DD89A110) with its layers, move one
vertex, Save into archive (build, write the copy, read it back, verify).
Prints each phase's median over the runs (wall clock), and the CPU
time of the whole (the machine is shared: wall clock varies with load).
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness import HOME, PAK, clear_scene, install, zip_path

import bpy

MAP = "$DD89A110"


def one_run(out):
    clear_scene()
    c0 = time.process_time()
    t0 = time.perf_counter()
    assert bpy.ops.import_scene.sylcol(filepath=str(PAK), entries=MAP) == {"FINISHED"}
    t1 = time.perf_counter()
    obj = next(o for o in bpy.data.objects if o.get("sylcol_kind") == "MCOL")
    obj.data.vertices[7].co.x += 100.0
    assert bpy.ops.sylcol.save_into_archive(source=str(PAK), filepath=str(out)) == {"FINISHED"}
    t2 = time.perf_counter()
    c2 = time.process_time()
    assert "verify ok" in bpy.context.window_manager.sylcol_report
    return t1 - t0, t2 - t1, t2 - t0, c2 - c0


def size(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    install()
    with tempfile.TemporaryDirectory() as tmp:
        times = [one_run(Path(tmp) / f"run{i}" / "MiscBin.pak") for i in range(runs)]
    phases = ("import", "save into archive + verify", "total", "total CPU time")
    for k, name in enumerate(phases):
        print(f"{name}: median {statistics.median(t[k] for t in times):.2f} s over {runs} runs")
    installed = size(HOME / "extensions" / "user_default" / "sylcol") + size(HOME / "extensions" / ".local")
    print(f"zip: {zip_path().stat().st_size} bytes; installed: {installed} bytes")


if __name__ == "__main__":
    main()
