"""Export: a map object back to an MCOL on its own grid, a library
collection back to a CollisionSet in record order. The mesh data is read
in its own order (the object transform is display only), welded as
`sylcol build --weld` welds, checked with sylcol's hull checks and built
by sylcol's builders; a mesh they refuse is not written, the reason goes
to the report and the offending edges / faces are selected in Edit Mode.
"""

import os
import re

import bpy
import numpy as np
import sylcol
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper

from . import keys
from .mesh_io import mesh_arrays, vertex_ids


class Refused(Exception):
    """A mesh the hull checks refuse: the message, the object and its faults."""

    def __init__(self, message, obj, faults, triangles, polygons):
        super().__init__(message)
        self.obj, self.faults, self.triangles, self.polygons = obj, faults, triangles, polygons


def checked_mesh(obj, part=False):
    """(vertices, triangles) of `obj` welded (the copies import made of a
    file vertex merged back, see mesh_io), or Refused."""
    v, t, polys = mesh_arrays(obj)
    if len(t) == 0:
        raise sylcol.BuildError(f"{obj.name}: the mesh has no faces", obj.name, None, "invalid")
    wv, wt = sylcol.weld(v, t, ids=vertex_ids(obj.data))
    faults = sylcol.hull_faults(wv, wt, part=part)
    if faults["refused"]:
        # sylcol's own words, naming the object; the add-on has no opt-out.
        message = re.sub(r"^(mesh|part) is not", f"{obj.name} is not", faults["message"])
        message = message.replace(" (allow_open=True writes it anyway)", "", 1)
        raise Refused(message, obj, faults, t, polys)
    return wv, wt


def grid_of(obj):
    """(bbox, cell) of a map object's original grid, or (None, None) for an
    object import did not make (the builder's cost-model grid)."""
    if keys.BBOX_MIN not in obj or keys.CELL not in obj:
        return None, None
    cell = [float(c) for c in obj[keys.CELL]]
    if len(set(cell)) != 1:
        raise sylcol.UnsupportedError(
            f"{obj.name}: cells of {cell} are not cubes; build_mcol builds cubic cells only", obj.name, None, "unsupported"
        )
    bbox = np.array([list(obj[keys.BBOX_MIN]), list(obj[keys.BBOX_MAX])], dtype=np.float32)
    return bbox, cell[0]


def map_bytes(obj):
    """The MCOL of a map object, on its grid."""
    v, t = checked_mesh(obj)
    bbox, cell = grid_of(obj)
    return sylcol.build_mcol(v, t, bbox=bbox, cell=cell)


def library_parts(coll):
    """A library collection's part objects in record order (imported parts
    by their record number, new ones after them by name)."""
    parts = [o for o in coll.objects if o.type == "MESH" and keys.LAYER not in o]
    return sorted(parts, key=lambda o: (o.get(keys.INDEX, 1 << 30), o.name))


def library_bytes(coll):
    """The CollisionSet of a library collection, in record order."""
    named = []
    for obj in library_parts(coll):
        named.append((obj.get(keys.RECORD, obj.name), checked_mesh(obj, part=True)))
    return sylcol.build_collisionset(named, endian=coll.get(keys.ENDIAN, "big"))


def library_of(obj):
    """The library collection holding part `obj`, or None."""
    if obj is None:
        return None
    for coll in obj.users_collection:
        if coll.get(keys.KIND) == keys.LIBRARY:
            return coll
    return None


def target_of(context):
    """What the active object exports as: ("MCOL", object) or
    ("CollisionSet", collection), or (None, None). A mesh added to a
    library collection is a new part; any other new mesh a new map."""
    obj = context.active_object
    if obj is None or obj.type != "MESH" or keys.LAYER in obj:
        return None, None
    if obj.get(keys.KIND) == keys.MAP:
        return keys.MAP, obj
    coll = library_of(obj)
    if coll is not None:
        return keys.LIBRARY, coll  # a part, imported or added to the library
    if keys.KIND not in obj:
        return keys.MAP, obj  # a new map: the builder's cost-model grid
    return None, None


def select_faults(context, refused):
    """Selects the elements a refusal names in Edit Mode (edge select mode
    for edge faults, face mode otherwise) and makes the object active."""
    obj, f, t, polys = refused.obj, refused.faults, refused.triangles, refused.polygons
    if context.object is not None and context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    mesh = obj.data
    edge_index = {tuple(sorted(e.vertices)): e.index for e in mesh.edges}
    edges, faces = set(), set()
    for key in ("open_edges", "overshared_edges", "same_direction_edges"):
        for tri, k in f[key]:
            a, b = int(t[tri][k]), int(t[tri][(k + 1) % 3])
            e = edge_index.get((min(a, b), max(a, b)))
            if e is None:
                faces.add(int(polys[tri]))  # a diagonal of Blender's own triangulation
            else:
                edges.add(e)
    faces.update(int(polys[i]) for i in f["degenerate"] + f["facing"])
    nv, ne, nf = len(mesh.vertices), len(mesh.edges), len(mesh.polygons)
    vsel, esel, fsel = np.zeros(nv, bool), np.zeros(ne, bool), np.zeros(nf, bool)
    esel[list(edges)] = True
    fsel[list(faces)] = True
    ev = np.empty(2 * ne, dtype=np.int32)
    mesh.edges.foreach_get("vertices", ev)
    vsel[ev.reshape(-1, 2)[esel].ravel()] = True
    for p in faces:
        vsel[list(mesh.polygons[p].vertices)] = True
    mesh.vertices.foreach_set("select", vsel)
    mesh.edges.foreach_set("select", esel)
    mesh.polygons.foreach_set("select", fsel)
    for other in context.view_layer.objects:
        other.select_set(False)
    obj.hide_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    context.tool_settings.mesh_select_mode = (False, not faces, bool(faces))
    bpy.ops.object.mode_set(mode="EDIT")


def refuse(op, context, refused):
    select_faults(context, refused)
    op.report({"ERROR"}, str(refused))
    context.window_manager.sylcol_report = str(refused)
    return {"CANCELLED"}


def entry_file_name(thing):
    name = thing.get(keys.ENTRY) or thing.name
    base = os.path.basename(name.replace("\\", "/"))
    return base if "." in base else base + (".MCOL" if thing.get(keys.KIND, keys.MAP) == keys.MAP else ".bin")


class SYLCOL_OT_export(bpy.types.Operator, ExportHelper):
    """Export the active map as an MCOL on its original grid, or the active part's library as a CollisionSet"""

    bl_idname = "export_scene.sylcol"
    bl_label = "Export Project Sylpheed"
    bl_options = {"REGISTER"}

    filename_ext = ""
    filter_glob: StringProperty(default="*.mcol;*.MCOL;*.bin;*.col", options={"HIDDEN"})

    def invoke(self, context, event):
        kind, thing = target_of(context)
        if thing is not None and not self.filepath:
            self.filepath = entry_file_name(thing)
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        kind, thing = target_of(context)
        if thing is None:
            self.report({"ERROR"}, "select a map object or a part of a library to export")
            return {"CANCELLED"}
        try:
            data = map_bytes(thing) if kind == keys.MAP else library_bytes(thing)
        except Refused as r:
            return refuse(self, context, r)
        except sylcol.SylcolError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        write_atomically(self.filepath, data)
        self.report({"INFO"}, f"{thing.name}: {len(data)} bytes written to {self.filepath}")
        return {"FINISHED"}


def write_atomically(path, data):
    """Writes `data` to a temporary file beside `path`, then renames it."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.sylcol-tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def menu_export(self, context):
    self.layout.operator(SYLCOL_OT_export.bl_idname, text="Project Sylpheed (MCOL, CollisionSet)")


CLASSES = (SYLCOL_OT_export,)
