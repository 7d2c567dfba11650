"""The picture of docs/img/blender-map-cells.png: Blender (headless, the
add-on installed from its zip) with the largest sample map imported and
its cell layer shown, rendered with Workbench.

    target/blender-venv/bin/python blender/tests/screenshot.py [OUT.png]

Workbench's final render draws faces, not the viewport's wires, so the
cells' wire boxes are turned into thin tubes (a curve bevel) for the
picture; the hull is drawn translucent (X-ray) as the viewport shows it.
"""

import math
import sys
from pathlib import Path

from harness import PAK, ROOT, clear_scene, install

import bpy
from mathutils import Vector

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img" / "blender-map-cells.png"
MAP = "$DD89A110"
SCALE = 0.001


def main():
    addon = install()
    clear_scene()
    assert bpy.ops.import_scene.sylcol(filepath=str(PAK), entries=MAP, scale=SCALE) == {"FINISHED"}
    hull = next(o for o in bpy.data.objects if o.get("sylcol_kind") == "MCOL")
    cells = next(o for o in bpy.data.objects if o.get("sylcol_layer") == "cells")
    layer = next(c for c in bpy.data.collections if c.get("sylcol_layer") == "cells")
    addon.importer.find_layer_collection(bpy.context.view_layer.layer_collection, layer).hide_viewport = False
    layer.hide_render = False
    # The wire boxes as tubes: Workbench renders no loose edges.
    bpy.context.view_layer.objects.active = cells
    cells.select_set(True)
    bpy.ops.object.convert(target="CURVE")
    cells.data.bevel_depth = 0.06 / SCALE  # in the curve's own (game) units: 6 cm on screen
    cells.data.bevel_resolution = 2
    cells.color = (0.15, 0.75, 1.0, 1.0)
    hull.color = (0.62, 0.66, 0.78, 1.0)
    scene = bpy.context.scene
    scene.render.engine = "BLENDER_WORKBENCH"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.color_type = "OBJECT"
    shading.show_xray = True
    shading.xray_alpha = 0.55
    shading.show_cavity = False
    scene.render.resolution_x, scene.render.resolution_y = 960, 600
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.compression = 100
    scene.render.film_transparent = False
    scene.world = scene.world or bpy.data.worlds.new("World")
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = 35
    cam.data.clip_end = 1000
    target = Vector((0, 0, 0))
    cam.location = Vector((66, -80, 50))
    cam.rotation_euler = (target - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    scene.render.filepath = str(OUT)
    bpy.ops.render.render(write_still=True)
    print(f"{OUT}: {hull.name}, {len(hull.data.polygons)} triangles, {len(cells.data.splines)} cell edges, angle {math.degrees(cam.rotation_euler.x):.0f}")


if __name__ == "__main__":
    main()
