#!/usr/bin/env python3
"""Peak resident memory of each sylcol command, on the samples, on a
synthetic archive with 1 GiB entries and on memory bombs (the figures:
benches/memory.md; the rules: docs/reliability.md, "Memory bombs").

    cargo build --release -p sylcol-cli
    python3 benches/peak_memory.py [path/to/sylcol] [--python PYTHON]

The synthetic archives are built in a temporary folder:

- Big.pak: a 1 GiB Z1 entry of zeros (about 1 MB stored), a 1 GiB raw
  entry (a sparse part file, no disk space) and a small MCOL;
- Bomb.pak: an MCOL header (no vertex, triangle or cell) in front of
  1 GiB of zeros, one Z1 entry of 1 MB (issue 33's bomb); Rows.pak: three
  index rows pointing at that one stream;
- Budget.pak: the largest object sylcol reads (64 MiB at most), a valid
  60.7 MiB CollisionSet (38 copies of the sample library's records) in a
  Z1 entry, with three index rows pointing at it.

With --python, `sylcol.load` of the bomb is measured too, in that
interpreter (which must import the sylcol package). Peak memory is GNU
time's "%M", the kernel's high-water mark of the command's resident set
(ru_maxrss). It is taken through /usr/bin/time rather than from Python's
own wait4, because a child forked from Python counts Python's pages until
it execs.
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIB = 1 << 30


def z1_zeros(size, head=b""):
    """A Z1 entry of `size` bytes, `head` then zeros: header, zlib stream
    at level 9."""
    comp = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    body, adler, left = [comp.compress(head)], zlib.adler32(head), size - len(head)
    while left:
        n = min(left, len(chunk))
        body.append(comp.compress(chunk[:n]))
        adler = zlib.adler32(chunk[:n], adler)
        left -= n
    body.append(comp.flush())
    return b"Z1" + struct.pack(">II", size, adler) + b"".join(body)


def big_archive(folder):
    """Big.pak: 1 GiB raw (part 0, sparse), 1 GiB Z1 (part 1), an MCOL (part 2);
    and bigsrc/zeros.bin, a sparse 1 GiB file for `pak build`."""
    with open(os.path.join(ROOT, "tests", "fixtures", "box.mcol"), "rb") as f:
        mcol = f.read()
    z1 = z1_zeros(GIB)
    entries = [(0x10, 0, GIB), (0x20, 1, len(z1)), (0x30, 2, len(mcol))]
    index = b"IPFB" + struct.pack(">III", len(entries), 0x800, 0x10000000)
    for h, part, size in entries:
        index += struct.pack(">III", h, part << 28, size)
    with open(os.path.join(folder, "Big.p00"), "wb") as f:
        f.write(b"DATA")
        f.truncate(GIB)
    for name, data in (("Big.p01", z1), ("Big.p02", mcol)):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    path = os.path.join(folder, "Big.pak")
    with open(path, "wb") as f:
        f.write(index)
    os.mkdir(os.path.join(folder, "bigsrc"))
    with open(os.path.join(folder, "bigsrc", "zeros.bin"), "wb") as f:
        f.truncate(GIB)
    return path


def write_archive(folder, stem, rows, data):
    """STEM.pak whose `rows` (hashes, ascending) all point at `data`, the
    one stored stream of STEM.p00."""
    index = b"IPFB" + struct.pack(">III", len(rows), 0x800, 0x10000000)
    for h in rows:
        index += struct.pack(">III", h, 0, len(data))
    with open(os.path.join(folder, stem + ".p00"), "wb") as f:
        f.write(data)
    path = os.path.join(folder, stem + ".pak")
    with open(path, "wb") as f:
        f.write(index)
    return path


def z1_of(data, level):
    """A Z1 entry of `data`."""
    header = struct.pack(">II", len(data), zlib.adler32(data))
    return b"Z1" + header + zlib.compress(data, level)


def bomb_archives(folder, exe):
    """Bomb.pak, Rows.pak and Budget.pak (see the module docs)."""
    bomb = z1_zeros(GIB, head=b"MCOL" + bytes(0x7C))
    paths = [write_archive(folder, "Bomb", [0x40], bomb)]
    paths.append(write_archive(folder, "Rows", [0x40, 0x50, 0x60], bomb))
    samples = os.path.join(ROOT, "samples", "MiscBin.pak")
    lib_dir = os.path.join(folder, "library")
    subprocess.run(
        [exe, "pak", "extract", samples, "-o", lib_dir, "CollisionSet_S01.bin"],
        check=True,
        capture_output=True,
    )
    with open(os.path.join(lib_dir, "CollisionSet_S01.bin"), "rb") as f:
        lib = f.read()
    budget = z1_of(lib * 38, 6)
    paths.append(write_archive(folder, "Budget", [0x70, 0x71, 0x72], budget))
    return paths


def peak_mib(args, tmp):
    """Runs sylcol ARGS under /usr/bin/time; returns (exit code, peak MiB)."""
    report = os.path.join(tmp, "time.txt")
    code = subprocess.call(
        ["/usr/bin/time", "-f", "%M", "-o", report] + args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with open(report) as f:
        kib = int(f.read().split()[-1])
    return code, kib / 1024


def main():
    args = sys.argv[1:]
    python = None
    if "--python" in args:
        at = args.index("--python")
        python = args[at + 1]
        del args[at : at + 2]
    exe = args[0] if args else os.path.join(ROOT, "target", "release", "sylcol")
    samples = os.path.join(ROOT, "samples", "MiscBin.pak")
    with tempfile.TemporaryDirectory() as tmp:
        big = big_archive(tmp)
        bomb, rows, budget = bomb_archives(tmp, exe)
        out = lambda name: os.path.join(tmp, name)
        runs = [
            ("samples", ["info", samples]),
            ("samples", ["verify", samples]),
            ("samples", ["pak", "list", samples, "--verify"]),
            ("samples", ["pak", "extract", samples, "-o", out("x")]),
            ("samples", ["pak", "build", out("x"), "-o", out("re/MiscBin.pak")]),
            ("samples", ["export", samples, "-o", out("exp")]),
            ("samples", ["rewrite", samples + "+CollisionSet_S01.bin", "-o", out("cs.bin")]),
            ("samples", ["probe", samples + "+$DC4B0896"]),
            ("samples", ["query", samples + "+$DC4B0896", "ray", "--origin", "0,0,0", "--dir", "1,0,0"]),
            ("1 GiB entries", ["info", big]),
            ("1 GiB entries", ["verify", big]),
            ("1 GiB entries", ["export", big, "-o", out("bigexp")]),
            ("1 GiB entries", ["pak", "list", big, "--verify"]),
            ("1 GiB entries", ["pak", "extract", big, "-o", out("big"), "$00000020"]),
            ("1 GiB file", ["pak", "build", out("bigsrc"), "-o", out("bigpak/Big.pak")]),
            ("MCOL bomb", ["info", bomb]),
            ("MCOL bomb", ["info", bomb + "+$00000040"]),
            ("MCOL bomb", ["verify", bomb]),
            ("MCOL bomb", ["export", bomb, "-o", out("bombexp")]),
            ("MCOL bomb", ["pairs", bomb]),
            ("MCOL bomb", ["view", bomb, "-o", out("bomb.html")]),
            ("3 rows, one bomb", ["view", rows, "-o", out("rows.html")]),
            ("3 rows, one bomb", ["verify", rows]),
            ("60.7 MiB library, 3 rows", ["info", budget]),
            ("60.7 MiB library", ["verify", budget + "+$00000070"]),
            ("60.7 MiB library", ["export", budget + "+$00000070", "-o", out("lib.glb")]),
            ("60.7 MiB library", ["rewrite", budget + "+$00000070", "-o", out("lib.bin")]),
            ("60.7 MiB library", ["query", budget + "+$00000070", "--mesh", "rou_e101_bdy", "inside", "--point", "0,0,0"]),
            ("60.7 MiB library, 3 rows", ["view", budget, "-o", out("lib.html")]),
        ]
        if python:
            load = f"import sylcol\ntry: sylcol.load({bomb + '+$00000040'!r})\nexcept MemoryError as e: print(e)"
            runs.append(("MCOL bomb", [python, "-c", load]))
        print("| input | command | exit | peak RSS (MiB) |")
        print("|---|---|---|---|")
        for what, args in runs:
            line = args if args[0] == python else [exe] + args
            code, mib = peak_mib(line, tmp)
            shown = " ".join(a.replace(tmp, "TMP").replace(ROOT + "/", "") for a in args)
            if args[0] == python:
                shown = "python -c 'sylcol.load(TMP/Bomb.pak+$00000040)'"
            else:
                shown = f"sylcol {shown}"
            print(f"| {what} | `{shown}` | {code} | {mib:.1f} |", flush=True)
            if args[:2] == ["pak", "extract"] and "big" in args[-3]:
                os.remove(out("big/$00000020"))


if __name__ == "__main__":
    main()
