#!/usr/bin/env python3
"""Builds the sylcol Blender extension: target/blender/sylcol-<version>.zip.

    python3 blender/build.py [--profile release|dev] [--out DIR] [--wheel WHEEL]

1. builds the sylcol wheel for this platform with maturin (the release
   profile by default), or takes the one `--wheel` names (CI passes the
   wheel its Python step built, so the crate is not built twice);
2. copies the add-on (blender/sylcol_addon) and the wheel into a staging
   folder, with the manifest's `version` (the workspace's), `wheels` (the
   wheel) and `platforms` (the wheel's) filled in;
3. zips it, files sorted and dated 1980-01-01, so the same inputs give
   the same zip (the wheel stored, not deflated a second time).

Needs maturin (`pip install maturin`) and Rust. Install the zip in
Blender 4.2+ with Edit > Preferences > Get Extensions > Install from
Disk (or drag it onto Blender's window).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADDON = ROOT / "blender" / "sylcol_addon"
CRATE = ROOT / "crates" / "sylcol-py" / "Cargo.toml"

# Wheel platform tag -> the manifest's platform name.
PLATFORMS = [
    ("linux", "x86_64", "linux-x64"),
    ("linux", "aarch64", "linux-arm64"),
    ("win", "amd64", "windows-x64"),
    ("win", "arm64", "windows-arm64"),
    ("macosx", "x86_64", "macos-x64"),
    ("macosx", "arm64", "macos-arm64"),
]


def workspace_version():
    text = (ROOT / "Cargo.toml").read_text()
    block = text.split("[workspace.package]", 1)[1]
    return re.search(r'^version\s*=\s*"([^"]+)"', block, re.M).group(1)


def maturin():
    try:
        import maturin  # noqa: F401

        return [sys.executable, "-m", "maturin"]
    except ImportError:
        found = shutil.which("maturin")
        if not found:
            sys.exit("build.py: maturin is needed (pip install maturin)")
        return [found]


def build_wheel(profile, wheels):
    shutil.rmtree(wheels, ignore_errors=True)
    cmd = [*maturin(), "build", "--manifest-path", str(CRATE), "--out", str(wheels), "--profile", profile, "--strip"]
    subprocess.run(cmd, cwd=ROOT, check=True)
    built = sorted(wheels.glob("sylcol-*.whl"))
    if len(built) != 1:
        sys.exit(f"build.py: expected one wheel in {wheels}, found {[w.name for w in built]}")
    return built[0]


def given_wheel(path, version):
    """`--wheel`: a sylcol wheel of the workspace's version."""
    if not path.is_file():
        sys.exit(f"build.py: {path}: no such wheel")
    if not path.name.startswith(f"sylcol-{version}-") or path.suffix != ".whl":
        sys.exit(f"build.py: {path}: not a sylcol {version} wheel (sylcol-{version}-*.whl)")
    return path


def platforms_of(wheel):
    tag = wheel.stem.split("-")[-1].lower()
    found = sorted({name for os_, arch, name in PLATFORMS if os_ in tag and tag.endswith(arch)})
    if not found:
        sys.exit(f"build.py: no Blender platform for the wheel tag {tag}")
    return found


def manifest(version, wheel, platforms):
    text = (ADDON / "blender_manifest.toml").read_text()
    text = re.sub(r'^version = ".*"$', f'version = "{version}"', text, count=1, flags=re.M)
    text = re.sub(r"^wheels = \[\]$", f'wheels = ["./wheels/{wheel.name}"]', text, count=1, flags=re.M)
    listed = ", ".join(f'"{p}"' for p in platforms)
    return text.replace("\nwheels = [", f"\nplatforms = [{listed}]\nwheels = [", 1)


def write_zip(zip_path, files):
    """`files`: (name in the zip, path on disk), written sorted and dated
    1980-01-01 so the same inputs give the same bytes; a wheel (itself a
    zip of compressed files) is stored as it is, not deflated again."""
    tmp = zip_path.with_name(zip_path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, path in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if name.endswith(".whl") else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, path.read_bytes() if isinstance(path, Path) else path)
    os.replace(tmp, zip_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default="release", help="cargo profile of the wheel (release, dev)")
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "blender", help="output folder")
    ap.add_argument("--wheel", type=Path, help="bundle this sylcol wheel instead of building one (--profile is then unused)")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    version = workspace_version()
    wheel = given_wheel(a.wheel, version) if a.wheel else build_wheel(a.profile, a.out / "wheels")
    files = [("blender_manifest.toml", manifest(version, wheel, platforms_of(wheel)).encode())]
    for path in sorted(ADDON.rglob("*")):
        rel = path.relative_to(ADDON).as_posix()
        if path.is_file() and "__pycache__" not in rel and rel != "blender_manifest.toml":
            files.append((rel, path))
    files.append((f"wheels/{wheel.name}", wheel))
    zip_path = a.out / f"sylcol-{version}.zip"
    write_zip(zip_path, files)
    print(f"{zip_path} ({zip_path.stat().st_size} bytes; wheel {wheel.name})")


if __name__ == "__main__":
    main()
