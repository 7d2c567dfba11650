"""Fixtures: Blender with the add-on installed from its zip
(harness.py), the sample archive extracted by the CLI, and the CLI the
results are compared with (`$SYLCOL`, else `target/debug/sylcol`)."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from harness import PAK, ROOT, clear_scene, install

import bpy

CLI = Path(os.environ.get("SYLCOL") or ROOT / "target" / "debug" / "sylcol")


def cli(*args, check=True):
    """Runs the sylcol CLI: (exit code, stdout, stderr)."""
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    if check and p.returncode != 0:
        raise AssertionError(f"sylcol {args} exited {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    return json.loads(cli("--json", *args)[1])


def cli_object(*args):
    """The one object of `sylcol --json info PATH` on one object (its
    document's `objects[0]`)."""
    doc = cli_json(*args)
    assert len(doc["objects"]) == 1, doc
    return doc["objects"][0]


@pytest.fixture(scope="session")
def addon():
    """The installed add-on's package."""
    return install()


@pytest.fixture()
def scene(addon):
    clear_scene()
    yield bpy.context.scene
    clear_scene()


@pytest.fixture(scope="session")
def extracted(tmp_path_factory):
    """The sample archive extracted by the CLI: entry display -> bytes."""
    out = tmp_path_factory.mktemp("extracted")
    cli("pak", "extract", PAK, "-o", out)
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
