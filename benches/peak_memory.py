#!/usr/bin/env python3
"""Peak resident memory of each sylcol command, on the samples and on a
synthetic archive with 1 GiB entries (benches/README.md, "Peak memory";
docs/reliability.md, "Memory", says why it stays flat).

    cargo build --release -p sylcol-cli
    python3 benches/peak_memory.py [path/to/sylcol]

The synthetic archive is built in a temporary folder: a 1 GiB Z1 entry of
zeros (about 1 MB stored), a 1 GiB raw entry (a sparse part file, no disk
space) and a small MCOL. Peak memory is GNU time's "%M", the kernel's
high-water mark of the command's resident set (ru_maxrss). It is taken
through /usr/bin/time rather than from Python's own wait4, because a child
forked from Python counts Python's pages until it execs.
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIB = 1 << 30


def z1_zeros(size):
    """A Z1 entry of `size` zero bytes: header, zlib stream at level 9."""
    comp = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    body, adler, left = [], 1, size
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
    exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "sylcol")
    samples = os.path.join(ROOT, "samples", "MiscBin.pak")
    with tempfile.TemporaryDirectory() as tmp:
        big = big_archive(tmp)
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
        ]
        print("| input | command | exit | peak RSS (MiB) |")
        print("|---|---|---|---|")
        for what, args in runs:
            code, mib = peak_mib([exe] + args, tmp)
            shown = " ".join(a.replace(tmp, "TMP").replace(ROOT + "/", "") for a in args)
            print(f"| {what} | `sylcol {shown}` | {code} | {mib:.1f} |", flush=True)
            if args[:2] == ["pak", "extract"] and "big" in args[-3]:
                os.remove(out("big/$00000020"))


if __name__ == "__main__":
    main()
