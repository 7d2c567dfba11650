"""The sidebar panel (3D View > N > sylcol): the active object's
`verify` results, a ray from the 3D cursor along the view through
sylcol's collider, the triangles listed in the cell under the cursor,
and the export / save buttons.

The queries run on the object as it is now: its mesh is built (as
export builds it, open meshes allowed) and loaded back, so triangle i of
the collider is face i of the mesh. Cursor and view are taken into the
mesh's own (game) coordinates through the object's transform.
"""

import json

import bpy
import numpy as np
import sylcol
from bpy.props import FloatVectorProperty
from mathutils import Vector

from . import exporter, keys
from .mesh_io import mesh_arrays


def built_map(obj):
    """The map object built as it is now (open meshes allowed), loaded:
    an Mcol whose triangle i is face i."""
    v, t, polys = mesh_arrays(obj)
    if len(polys) != len(obj.data.polygons) or (len(t) and not (polys == np.arange(len(t))).all()):
        raise sylcol.UnsupportedError(f"{obj.name}: faces of more than three corners; triangulate first", obj.name, None, "unsupported")
    bbox, cell = exporter.grid_of(obj)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return sylcol.load(sylcol.build_mcol(v, t, bbox=bbox, cell=cell, allow_open=True), path=obj.name)


def to_local(obj, point=None, direction=None):
    """A world point / direction in the mesh's own coordinates."""
    inv = obj.matrix_world.inverted()
    if point is not None:
        return inv @ Vector(point)
    return inv.to_3x3() @ Vector(direction)


def view_direction(rv3d):
    """The direction the 3D view looks along, in world coordinates."""
    return rv3d.view_rotation @ Vector((0.0, 0.0, -1.0))


def select_faces(context, obj, faces):
    """Selects `faces` (and nothing else) of `obj` in Edit Mode, face mode."""
    if context.object is not None and context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    mesh = obj.data
    fsel = np.zeros(len(mesh.polygons), bool)
    fsel[list(faces)] = True
    vsel = np.zeros(len(mesh.vertices), bool)
    for f in faces:
        vsel[list(mesh.polygons[f].vertices)] = True
    mesh.vertices.foreach_set("select", vsel)
    mesh.edges.foreach_set("select", np.zeros(len(mesh.edges), bool))
    mesh.polygons.foreach_set("select", fsel)
    for other in context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    context.tool_settings.mesh_select_mode = (False, False, True)
    bpy.ops.object.mode_set(mode="EDIT")


def active_map(context):
    obj = context.active_object
    if obj is None or obj.type != "MESH" or obj.get(keys.KIND) != keys.MAP or keys.LAYER in obj:
        return None
    return obj


class SYLCOL_OT_verify(bpy.types.Operator):
    """Run sylcol's verify on the active map (as export would build it) or on the active part's library"""

    bl_idname = "sylcol.verify"
    bl_label = "Verify"
    bl_options = {"REGISTER"}

    def execute(self, context):
        kind, thing = exporter.target_of(context)
        try:
            if kind == keys.MAP:
                report = built_map(thing).verify()
            elif kind == keys.LIBRARY:
                report = sylcol.load(exporter.library_bytes(thing), path=thing.name).verify()
            else:
                self.report({"ERROR"}, "select a map object or a part of a library")
                return {"CANCELLED"}
        except exporter.Refused as r:
            return exporter.refuse(self, context, r)
        except sylcol.SylcolError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        thing.sylcol_verify = json.dumps(report)
        failed = sum(not c["ok"] for o in report["objects"] for c in o["checks"])
        self.report({"INFO"} if report["ok"] else {"WARNING"}, f"{thing.name}: verify {'ok' if report['ok'] else f'{failed} checks failed'}")
        return {"FINISHED"}


class SYLCOL_OT_cast_ray(bpy.types.Operator):
    """Cast a ray from the 3D cursor along the view through sylcol's collider; the hit triangle is selected"""

    bl_idname = "sylcol.cast_ray"
    bl_label = "Ray from cursor"
    bl_options = {"REGISTER", "UNDO"}

    origin: FloatVectorProperty(name="Origin", description="World origin (default: the 3D cursor)", subtype="XYZ")
    direction: FloatVectorProperty(name="Direction", description="World direction (default: the view's)", subtype="XYZ")

    def invoke(self, context, event):
        self.origin = context.scene.cursor.location
        rv3d = context.region_data
        if rv3d is None:
            self.report({"ERROR"}, "run it from a 3D view (or give origin and direction)")
            return {"CANCELLED"}
        self.direction = view_direction(rv3d)
        return self.execute(context)

    def execute(self, context):
        obj = active_map(context)
        if obj is None:
            self.report({"ERROR"}, "select a map object")
            return {"CANCELLED"}
        if Vector(self.direction).length == 0:
            self.report({"ERROR"}, "the ray has no direction")
            return {"CANCELLED"}
        o, d = to_local(obj, point=self.origin), to_local(obj, direction=self.direction)
        try:
            hits = built_map(obj).collider().ray([tuple(o)], [tuple(d)])
        except sylcol.SylcolError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        wm = context.window_manager
        if not hits.hit[0]:
            wm.sylcol_hit = -1
            wm.sylcol_report = f"ray from {tuple(round(x, 3) for x in o)} along {tuple(round(x, 3) for x in d)}: no hit"
            self.report({"INFO"}, wm.sylcol_report)
            return {"FINISHED"}
        tri = int(hits.triangle[0])
        point = obj.matrix_world @ Vector(hits.point[0].tolist())
        context.scene.cursor.location = point
        wm.sylcol_hit = tri
        wm.sylcol_report = f"hit triangle {tri} at t = {float(hits.t[0]):g}, point {tuple(float(x) for x in hits.point[0])}"
        select_faces(context, obj, [tri])
        self.report({"INFO"}, wm.sylcol_report)
        return {"FINISHED"}


class SYLCOL_OT_select_cell(bpy.types.Operator):
    """Select the triangles the grid cell under the 3D cursor lists"""

    bl_idname = "sylcol.select_cell"
    bl_label = "Select cell triangles"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj = active_map(context)
        if obj is None:
            self.report({"ERROR"}, "select a map object")
            return {"CANCELLED"}
        p = to_local(obj, point=context.scene.cursor.location)
        try:
            cell = sylcol.cell_at(built_map(obj), tuple(p))
        except sylcol.SylcolError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        wm = context.window_manager
        if cell is None:
            wm.sylcol_report = "the cursor is outside the map's grid"
            self.report({"WARNING"}, wm.sylcol_report)
            return {"CANCELLED"}
        tris = sorted(set(cell["triangles"]))
        wm.sylcol_report = f"cell {tuple(cell['cell'])}: {len(cell['triangles'])} triangles listed"
        select_faces(context, obj, tris)
        self.report({"INFO"}, wm.sylcol_report)
        return {"FINISHED"}


class SYLCOL_PT_panel(bpy.types.Panel):
    bl_label = "sylcol"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "sylcol"

    def draw(self, context):
        layout = self.layout
        kind, thing = exporter.target_of(context)
        if thing is None:
            layout.label(text="Select a map or a library part")
        else:
            box = layout.box()
            box.label(text=f"{thing.name} ({kind})")
            if thing.get(keys.ARCHIVE):
                box.label(text=f"from {thing[keys.ARCHIVE]}")
            if kind == keys.MAP and keys.GRID in thing:
                box.label(text=f"grid {tuple(thing[keys.GRID])}, cell {tuple(round(c, 3) for c in thing[keys.CELL])}")
        col = layout.column(align=True)
        col.operator("sylcol.verify", icon="CHECKMARK")
        col.operator("sylcol.cast_ray", icon="LIGHT_SUN")
        col.operator("sylcol.select_cell", icon="MESH_GRID")
        col = layout.column(align=True)
        col.operator("export_scene.sylcol", text="Export...", icon="EXPORT")
        col.operator("sylcol.save_into_archive", icon="FILE_ARCHIVE")
        report = context.window_manager.sylcol_report
        if report:
            for line in report.splitlines()[:6]:
                layout.label(text=line)
        if thing is not None and thing.sylcol_verify:
            draw_verify(layout.box(), json.loads(thing.sylcol_verify))


def draw_verify(box, report):
    box.label(text="verify: ok" if report["ok"] else "verify: FAILED", icon="CHECKMARK" if report["ok"] else "ERROR")
    for o in report["objects"]:
        for c in o["checks"]:
            row = box.row()
            row.label(text=c["id"], icon="CHECKMARK" if c["ok"] else "X")
            row.label(text=c.get("note") or c.get("name", ""))


CLASSES = (SYLCOL_OT_verify, SYLCOL_OT_cast_ray, SYLCOL_OT_select_cell, SYLCOL_PT_panel)
