"""Blender, headless, with the add-on installed from the built zip; for
the tests (conftest.py) and the screenshot (screenshot.py).

Blender comes as the `bpy` module (`pip install bpy`: Blender 4.5 LTS
for Python 3.11). Its user folders are pointed at a temporary folder
before `bpy` is imported, so nothing of the user's Blender is read or
changed; then the extension zip is installed into the `user_default`
repository with `bpy.ops.extensions.package_install_files` and enabled,
as Edit > Preferences > Get Extensions > Install from Disk does: Blender
unpacks the bundled sylcol wheel and loads the add-on as
`bl_ext.user_default.sylcol`.

The zip is `$SYLCOL_BLENDER_ZIP`, else the newest
`target/blender/sylcol-*.zip` (`python3 blender/build.py`).
"""

import importlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAK = ROOT / "samples" / "MiscBin.pak"
HOME = Path(tempfile.mkdtemp(prefix="sylcol-blender-"))
for var in ("CONFIG", "SCRIPTS", "EXTENSIONS", "DATAFILES"):
    os.environ[f"BLENDER_USER_{var}"] = str(HOME / var.lower())

import bpy  # noqa: E402  (after the user folders are set)

MODULE = "bl_ext.user_default.sylcol"


def zip_path():
    if os.environ.get("SYLCOL_BLENDER_ZIP"):
        return Path(os.environ["SYLCOL_BLENDER_ZIP"])
    built = sorted((ROOT / "target" / "blender").glob("sylcol-*.zip"), key=lambda p: p.stat().st_mtime)
    if not built:
        sys.exit("no extension zip: run python3 blender/build.py first")
    return built[-1]


def install():
    """Installs and enables the extension; returns its package."""
    if MODULE not in bpy.context.preferences.addons:
        result = bpy.ops.extensions.package_install_files(filepath=str(zip_path()), repo="user_default", enable_on_install=True)
        assert result == {"FINISHED"}, result
    assert MODULE in bpy.context.preferences.addons, list(bpy.context.preferences.addons.keys())
    # The sylcol the add-on runs on is the wheel the zip bundles, not one
    # the Python running Blender happens to have.
    import sylcol

    assert Path(sylcol.__file__).is_relative_to(HOME), f"sylcol comes from {sylcol.__file__}, not the extension's wheel"
    return importlib.import_module(MODULE)


def clear_scene():
    """An empty scene (the add-on stays enabled)."""
    if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.collections, bpy.data.curves, bpy.data.cameras, bpy.data.lights):
        for item in list(coll):
            coll.remove(item)
