#!/usr/bin/env python3
"""Writes structure-aware seed inputs for every fuzz target to fuzz/seeds/.

    python3 fuzz/seeds.py [SYLCOL_BINARY]

Seeds come from the repository's own files, cut the way each decoder reads
them: the sample archive's entries (extracted with the sylcol binary), the
hand-made MCOL, REGN and string-table fixtures of tests/fixtures/, the
smallest sample REGNs and both tables of samples/Tables.pak, the POF0 tables inside those
MCOLs, small CollisionSet libraries cut from the sample's library (big- and
little-endian), the archive's stored Z1 entries, and meshes exported by
sylcol (OBJ, glTF, GLB) or written here (PLY, ASCII and binary). fuzz/run.sh
adds fuzz/seeds/TARGET to the kept corpus when it exists.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)
SEEDS = os.path.join(FUZZ, "seeds")


def put(target, name, data):
    folder = os.path.join(SEEDS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def sylcol(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True).stdout


def mcol_seeds(mcols):
    """MCOL and chunk seeds: whole files; POF0 seeds: their tables."""
    for name, data in mcols.items():
        put("mcol", name, data)
        put("chunk", name, data)
        data_size = struct.unpack(">I", data[4:8])[0]
        at = 0x10 + data_size
        length = struct.unpack(">I", data[at + 4 : at + 8])[0]
        put("pof0", name + ".framed", data[at : at + 8 + length])
        put("pof0", name + ".table", data[at + 8 : at + 8 + length])


TETRA = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def tiny_mcols(binary, work):
    """MCOLs of a few hundred bytes (a tetrahedron on 1, 8 and 27 cells):
    small inputs keep the fuzzer fast and the kept corpus small."""
    mesh = os.path.join(work, "tetra.obj")
    with open(mesh, "w") as f:
        f.write(TETRA)
    out = {}
    for cell in ("2", "0.5", "0.4"):
        path = os.path.join(work, "tetra.mcol")
        sylcol(binary, "build", "mcol", mesh, "--cell", cell, "-o", path)
        with open(path, "rb") as f:
            out["tetra_cell_" + cell] = f.read()
    return out


def records(library):
    """(offset, end) of each record of a big-endian CollisionSet."""
    out, at = [], 0
    while at < len(library):
        size = struct.unpack(">I", library[at : at + 4])[0]
        out.append((at, at + 8 + size))
        at += 8 + size
    return out


def to_little(record):
    """A big-endian record with every word swapped (the name bytes kept)."""
    name_len = struct.unpack(">I", record[4:8])[0]
    words = lambda b: b"".join(b[i : i + 4][::-1] for i in range(0, len(b), 4))
    return words(record[:8]) + record[8 : 8 + name_len] + words(record[8 + name_len :])


def collisionset_seeds(library):
    spans = sorted(records(library), key=lambda s: s[1] - s[0])
    small = [library[a:b] for a, b in spans[:3]]
    put("collisionset", "one_record", small[0])
    put("collisionset", "three_records", b"".join(small))
    put("collisionset", "three_records_little", b"".join(map(to_little, small)))


def z1(data):
    body = zlib.compress(data, 9)
    return b"Z1" + struct.pack(">II", len(data), zlib.adler32(data)) + body


def z1_seeds(pak, p00):
    """The smallest stored entries, read through the index (16-byte header, 12-byte entries)."""
    with open(pak, "rb") as f:
        index = f.read()
    with open(p00, "rb") as f:
        part = f.read()
    count = struct.unpack(">I", index[4:8])[0]
    entries = [struct.unpack(">III", index[16 + 12 * i : 28 + 12 * i]) for i in range(count)]
    seen = set()
    for hash_, location, size in sorted(entries, key=lambda e: e[2]):
        at = location & 0x0FFFFFFF
        stored = part[at : at + size]
        if location >> 28 == 0 and stored not in seen and len(seen) < 2:
            seen.add(stored)
            put("z1", "stored_%08x" % hash_, stored)
    put("z1", "text", z1(b"sylcol " * 40))
    put("z1", "empty", z1(b""))
    put("z1", "stored_block", b"Z1" + struct.pack(">II", 5, zlib.adler32(b"hello"))
        + zlib.compress(b"hello", 0))


def index_seeds(pak):
    with open(pak, "rb") as f:
        put("ipfb_index", "sample.pak", f.read())
    header = lambda n: b"IPFB" + struct.pack(">III", n, 0x800, 0x10000000)
    entry = lambda h, part, off, size: struct.pack(">III", h, part << 28 | off, size)
    put("ipfb_index", "one", header(1) + entry(0x1234, 0, 0, 16))
    put("ipfb_index", "unsorted", header(3) + entry(9, 0, 0, 1) + entry(5, 1, 0x800, 2)
        + entry(0, 0, 0, 0))
    put("ipfb_index", "empty", header(0))


CUBE_V = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
CUBE_F = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]


def ply_seeds():
    head = lambda fmt, extra="": (
        "ply\nformat %s 1.0\ncomment sylcol seed\nelement vertex 8\n"
        "property float x\nproperty float y\nproperty float z\n%s"
        "element face 6\nproperty list uchar int vertex_indices\nend_header\n" % (fmt, extra))
    text = head("ascii") + "".join("%d %d %d\n" % v for v in CUBE_V)
    text += "".join("4 %d %d %d %d\n" % f for f in CUBE_F)
    put("import_ply", "cube_ascii.ply", text.encode())
    for order, fmt in (("<", "binary_little_endian"), (">", "binary_big_endian")):
        body = b"".join(struct.pack(order + "fff", *v) for v in CUBE_V)
        body += b"".join(struct.pack(order + "Biiii", 4, *f) for f in CUBE_F)
        put("import_ply", "cube_%s.ply" % fmt, head(fmt).encode() + body)
    extra = "property float nx\nproperty uchar red\n"
    text = head("ascii", extra) + "".join("%d %d %d 0.5 7\n" % v for v in CUBE_V)
    text += "".join("3 %d %d %d\n3 %d %d %d\n" % (a, b, c, a, c, d) for a, b, c, d in CUBE_F)
    put("import_ply", "cube_props.ply", text.replace("element face 6", "element face 12").encode())


def regn_seeds(extracted, fixtures):
    """The REGN fixtures and the two smallest distinct sample REGNs (the
    others are 40 KB or more: small inputs keep the fuzzer fast)."""
    samples = {}
    for name in sorted(os.listdir(extracted)):
        with open(os.path.join(extracted, name), "rb") as f:
            data = f.read()
        if data[:4] == b"REGN" and data not in samples.values():
            samples[name.strip("$").split(".")[0].lower() + ".regn"] = data
    for name in sorted(samples, key=lambda n: len(samples[n]))[:2]:
        put("regn", name, samples[name])
    for name in sorted(os.listdir(fixtures)):
        if name.endswith(".regn"):
            with open(os.path.join(fixtures, name), "rb") as f:
                put("regn", name, f.read())


def idxd_seeds(binary, work, fixtures):
    """Both string tables of samples/Tables.pak and the table fixtures."""
    tables = os.path.join(work, "tables")
    sylcol(binary, "pak", "extract", os.path.join(ROOT, "samples/Tables.pak"), "-o", tables)
    for name in sorted(os.listdir(tables)):
        with open(os.path.join(tables, name), "rb") as f:
            put("idxd", name.strip("$").lower(), f.read())
    for name in sorted(os.listdir(fixtures)):
        if name.endswith((".idxd", ".ixud")):
            with open(os.path.join(fixtures, name), "rb") as f:
                put("idxd", name, f.read())


def mesh_seeds(binary, work, pak):
    for obj in ("$2CF7EB47", "$CBB99D34"):
        for ext in ("obj", "gltf", "glb"):
            out = os.path.join(work, "m." + ext)
            sylcol(binary, "export", "%s+%s" % (pak, obj), "-o", out)
            target = {"obj": "import_obj"}.get(ext, "import_gltf")
            with open(out, "rb") as f:
                put(target, obj.strip("$").lower() + "." + ext, f.read())
    text = "o quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nvt 0 0\n" \
           "f 1/1/1 2/1/1 3/1/1 4/1/1\ng rest\nv 0 0 1\nf -1 1 2\nl 1 2\n"
    put("import_obj", "quad_and_refs.obj", text.encode())


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/sylcol")
    pak = os.path.join(ROOT, "samples/MiscBin.pak")
    shutil.rmtree(SEEDS, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        extracted = os.path.join(work, "x")
        sylcol(binary, "pak", "extract", pak, "-o", extracted)
        mcols, library = {}, None
        for name in sorted(os.listdir(extracted)):
            with open(os.path.join(extracted, name), "rb") as f:
                data = f.read()
            if data[:4] == b"MCOL":
                mcols[name.strip("$").split(".")[0].lower()] = data
            elif library is None and name.startswith("CollisionSet"):
                library = data
        for name in sorted(os.listdir(os.path.join(ROOT, "tests/fixtures"))):
            if name.endswith(".mcol"):
                with open(os.path.join(ROOT, "tests/fixtures", name), "rb") as f:
                    mcols[name] = f.read()
        mcols.update(tiny_mcols(binary, work))
        mcol_seeds(mcols)
        collisionset_seeds(library)
        z1_seeds(pak, os.path.join(ROOT, "samples/MiscBin.p00"))
        index_seeds(pak)
        ply_seeds()
        mesh_seeds(binary, work, pak)
        regn_seeds(extracted, os.path.join(ROOT, "tests/fixtures"))
        idxd_seeds(binary, work, os.path.join(ROOT, "tests/fixtures"))
    for target in sorted(os.listdir(SEEDS)):
        files = os.listdir(os.path.join(SEEDS, target))
        size = sum(os.path.getsize(os.path.join(SEEDS, target, f)) for f in files)
        print("%-14s %3d seeds %8d bytes" % (target, len(files), size))


if __name__ == "__main__":
    main()
