"""sylcol's glTF exports as Blender sees them, run inside Blender:

    blender -b --factory-startup --python tests/blender/import_check.py -- PLAN.json

tests/blender/run.py writes the plan (the files sylcol exported and what to
export back) and reads the report this writes. Each file is imported with
Blender's own glTF importer into an empty scene and compared with the
file's own JSON: every node an object of the same name under the same
parent, every mesh and material by name, the materials' colour, alpha and
blending, the extras as custom properties (value for value), each debug
layer an object of its own that hides with its children and leaves the
hull shown, the scene's bounds (glTF's +Y up is Blender's +Z up), and
whether "View All" in the default Layout view shows the whole hull within
the default clip range. Then the scene is exported back to GLB as the plan
says (with or without custom properties, loose edges, the root's scale
cleared) for run.py to build with sylcol.
"""

import contextlib
import io
import json
import math
import struct
import sys

import bpy
from mathutils import Vector

LAYERS = ("cells", "cell-spheres", "tri-spheres", "failures")
LAYER_KEY = "sylcol_layer"


def glb_json(path):
    """The JSON chunk of a GLB file."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack_from("<I", data, 12)
    return json.loads(data[20 : 20 + length])


def plain(value):
    """An ID property as plain Python (dicts, lists, numbers, strings)."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif hasattr(value, "to_list"):
        value = value.to_list()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def close(a, b, rel=1e-5):
    return all(abs(x - y) <= rel * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


class Check:
    """Collects failed checks and figures for one file."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.figures = {}

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)
        return ok


def import_file(path, check, shading="FLAT"):
    """Imports `path` into an empty scene; the importer's own output is
    captured and any warning or error in it fails the check."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        result = bpy.ops.import_scene.gltf(filepath=path, import_shading=shading)
    printed = out.getvalue()
    sys.stdout.write(printed)
    check.expect(result == {"FINISHED"}, f"import returned {result}")
    noisy = [ln for ln in printed.splitlines() if "WARNING" in ln.upper() or "ERROR" in ln.upper()]
    check.expect(not noisy, f"the importer printed: {noisy[:3]}")


def check_nodes(doc, check):
    nodes = doc["nodes"]
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    check.figures["nodes"] = len(nodes)
    check.figures["objects"] = len(bpy.data.objects)
    check.expect(len(bpy.data.objects) == len(nodes), f"{len(bpy.data.objects)} objects for {len(nodes)} nodes")
    for i, n in enumerate(nodes):
        obj = bpy.data.objects.get(n["name"])
        if not check.expect(obj is not None, f"no object named {n['name']!r}"):
            continue
        want_parent = nodes[parent[i]]["name"] if i in parent else None
        got_parent = obj.parent.name if obj.parent else None
        check.expect(got_parent == want_parent, f"{n['name']!r}: parent {got_parent!r}, not {want_parent!r}")
        if "mesh" in n:
            mesh = doc["meshes"][n["mesh"]]
            has_faces = any(p.get("mode", 4) == 4 for p in mesh["primitives"])
            check.expect(obj.type == "MESH", f"{n['name']!r} is a {obj.type}, not a mesh")
            if obj.type == "MESH":
                check.expect(obj.data.name == mesh["name"], f"{n['name']!r}: mesh {obj.data.name!r}, not {mesh['name']!r}")
                if has_faces:
                    want = sum(doc["accessors"][p["indices"]]["count"] // 3 for p in mesh["primitives"] if p.get("mode", 4) == 4)
                    check.expect(len(obj.data.polygons) == want, f"{n['name']!r}: {len(obj.data.polygons)} faces, not {want}")
                check_slots(doc, mesh, obj, check)
        check_extras(n, obj, check)


def check_slots(doc, mesh, obj, check):
    """The object's material slots are its primitives' materials."""
    want = sorted({doc["materials"][p["material"]]["name"] for p in mesh["primitives"] if "material" in p})
    got = sorted({s.material.name for s in obj.material_slots if s.material})
    check.expect(got == want, f"{obj.name!r}: materials {got}, not {want}")


def check_extras(node, obj, check):
    extras = node.get("extras") or {}
    for key, value in extras.items():
        if not check.expect(key in obj.keys(), f"{obj.name!r}: no custom property {key!r}"):
            continue
        got = plain(obj[key])
        check.expect(same(got, value), f"{obj.name!r}[{key!r}] = {json.dumps(got)[:80]}, not {json.dumps(value)[:80]}")
    check.figures["custom properties"] = check.figures.get("custom properties", 0) + len(extras)


def check_materials(doc, check):
    used = {p["material"] for m in doc.get("meshes", []) for p in m["primitives"] if "material" in p}
    for i in sorted(used):
        m = doc["materials"][i]
        mat = bpy.data.materials.get(m["name"])
        if not check.expect(mat is not None, f"no material {m['name']!r}"):
            continue
        rgba = m["pbrMetallicRoughness"]["baseColorFactor"]
        bsdf = mat.node_tree.nodes.get("Principled BSDF") if mat.use_nodes else None
        if check.expect(bsdf is not None, f"material {m['name']!r} has no Principled BSDF"):
            base = bsdf.inputs["Base Color"]
            if base.links:
                # A white factor over COLOR_0: the colour comes from the
                # mesh's colour attribute (the cells' list-length ramp).
                source = base.links[0].from_node.type
                check.expect(source == "VERTEX_COLOR" and rgba[:3] == [1, 1, 1], f"material {m['name']!r}: colour from a {source} node")
            else:
                got = list(base.default_value)[:3]
                check.expect(close(got, rgba[:3], 1e-4), f"material {m['name']!r}: colour {got}, not {rgba[:3]}")
            alpha = bsdf.inputs["Alpha"].default_value
            check.expect(abs(alpha - rgba[3]) < 1e-4, f"material {m['name']!r}: alpha {alpha}, not {rgba[3]}")
        blend = m.get("alphaMode") == "BLEND"
        check.expect((mat.blend_method == "BLEND") == blend, f"material {m['name']!r}: blend method {mat.blend_method}")
        check.expect(mat.use_backface_culling == (not m.get("doubleSided", False)), f"material {m['name']!r}: backface culling {mat.use_backface_culling}")
    check.figures["materials"] = sorted(doc["materials"][i]["name"] for i in used)


def layer_objects(doc):
    """Each debug layer's object (by its mark) and the hull objects."""
    layers, hull = {}, []
    for n in doc["nodes"]:
        layer = (n.get("extras") or {}).get(LAYER_KEY)
        if layer in LAYERS:
            layers[layer] = bpy.data.objects[n["name"]]
        elif layer == "hull" or (n.get("extras") or {}).get("sylcol_record") is not None:
            hull.append(bpy.data.objects[n["name"]])
    return layers, hull


def check_layers(doc, check):
    """Each layer its own object; hiding it and its children (the
    Outliner's Shift-click on the eye) hides that layer only."""
    layers, hull = layer_objects(doc)
    check.figures["layers"] = sorted(layers)
    root_name = doc["nodes"][doc["scenes"][0]["nodes"][0]]["name"]
    for name, obj in layers.items():
        check.expect(obj.name == f"{root_name} {name}", f"layer object named {obj.name!r}")
        tree = [obj, *obj.children_recursive]
        check.expect(not any(h in tree for h in hull), f"the {name} layer holds the hull")
        for o in tree:
            o.hide_set(True)
        check.expect(all(not o.visible_get() for o in tree), f"the {name} layer does not hide")
        check.expect(all(h.visible_get() for h in hull), f"hiding the {name} layer hides the hull")
        for o in tree:
            o.hide_set(False)


def node_world(doc):
    """Each node's world transform as (scale, translation) along its
    parents (the exporter writes only uniform scales and translations)."""
    nodes = doc["nodes"]
    out = {}

    def walk(i, scale, at):
        n = nodes[i]
        s = n.get("scale", [1, 1, 1])[0]
        t = n.get("translation", [0, 0, 0])
        here = (scale * s, [at[k] + scale * t[k] for k in range(3)])
        out[i] = here
        for c in n.get("children", []):
            walk(c, *here)

    for r in doc["scenes"][doc.get("scene", 0)]["nodes"]:
        walk(r, 1.0, [0.0, 0.0, 0.0])
    return out


def expected_bounds(doc, indices):
    """The Blender-space box of the triangle meshes of nodes `indices`."""
    world = node_world(doc)
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for i in indices:
        n = doc["nodes"][i]
        scale, at = world[i]
        for p in doc["meshes"][n["mesh"]]["primitives"]:
            if p.get("mode", 4) != 4:
                continue
            acc = doc["accessors"][p["attributes"]["POSITION"]]
            for corner in (acc["min"], acc["max"]):
                g = [at[k] + scale * corner[k] for k in range(3)]
                b = (g[0], -g[2], g[1])  # glTF +Y up -> Blender +Z up
                lo = [min(lo[k], b[k]) for k in range(3)]
                hi = [max(hi[k], b[k]) for k in range(3)]
    return lo, hi


def blender_bounds(objects):
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for o in objects:
        if o.type != "MESH" or not o.data.polygons:
            continue
        for v in o.data.vertices:
            w = o.matrix_world @ v.co
            lo = [min(lo[k], w[k]) for k in range(3)]
            hi = [max(hi[k], w[k]) for k in range(3)]
    return lo, hi


def check_bounds(doc, check):
    _, hull = layer_objects(doc)
    names = {o.name for o in hull}
    indices = [i for i, n in enumerate(doc["nodes"]) if n["name"] in names and "mesh" in n]
    want = expected_bounds(doc, indices)
    got = blender_bounds(hull)
    check.figures["bounds"] = [[round(x, 4) for x in got[0]], [round(x, 4) for x in got[1]]]
    check.expect(close(got[0], want[0]) and close(got[1], want[1]), f"bounds {got}, not {want}")
    return got


def check_view_all(bounds, check):
    """Runs View All in the factory Layout's 3D view and says whether the
    whole hull box lies within the view's clip range."""
    screen = bpy.data.screens["Layout"]
    area = next(a for a in screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    space = area.spaces[0]
    with bpy.context.temp_override(screen=screen, area=area, region=region, space_data=space):
        bpy.ops.view3d.view_all(center=False)
    # The view matrix follows on the next redraw; the eye is the orbit
    # centre moved back by the view distance along the view's +Z.
    r3d = space.region_3d
    forward = r3d.view_rotation @ Vector((0, 0, -1))
    origin = r3d.view_location - forward * r3d.view_distance
    lo, hi = bounds
    depths = [
        (Vector((x, y, z)) - origin).dot(forward)
        for x in (lo[0], hi[0])
        for y in (lo[1], hi[1])
        for z in (lo[2], hi[2])
    ]
    inside = space.clip_start <= min(depths) and max(depths) <= space.clip_end
    check.figures["view all"] = {
        "distance": round(r3d.view_distance, 3),
        "nearest": round(min(depths), 3),
        "farthest": round(max(depths), 3),
        "clip": [space.clip_start, space.clip_end],
        "whole hull in view": inside,
    }
    return inside


def export(path, extras, loose_edges=False, clear_root_scale=False):
    if clear_root_scale:
        for o in bpy.data.objects:
            if o.parent is None:
                o.scale = (1.0, 1.0, 1.0)
    bpy.ops.export_scene.gltf(
        filepath=path,
        export_format="GLB",
        export_extras=extras,
        use_mesh_edges=loose_edges,
        export_yup=True,
    )


def default_shading_imports(path):
    """Whether the importer's default Shading ("Use Normal Data") works
    here: Debian 12's Blender 3.4.1 with numpy 1.24 fails on every mesh
    (numpy.bool is gone)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}
    except Exception as e:  # the importer raises through the operator
        return f"fails: {str(e).strip().splitlines()[-3:]}"


def main():
    plan = json.load(open(sys.argv[sys.argv.index("--") + 1]))
    report = {"blender": bpy.app.version_string, "files": [], "exports": []}
    for item in plan["imports"]:
        check = Check(item["file"])
        doc = glb_json(item["file"])
        import_file(item["file"], check)
        check_nodes(doc, check)
        check_materials(doc, check)
        check_layers(doc, check)
        bounds = check_bounds(doc, check)
        check_view_all(bounds, check)
        for out in item.get("exports", []):
            export(out["file"], out["extras"], out.get("loose_edges", False), out.get("clear_root_scale", False))
            report["exports"].append(out)
        report["files"].append({"file": item["file"], "failures": check.failures, "figures": check.figures})
    report["default shading"] = default_shading_imports(plan["imports"][0]["file"])
    with open(plan["report"], "w") as f:
        json.dump(report, f, indent=1)


main()
