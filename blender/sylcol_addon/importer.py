"""File > Import > Project Sylpheed: an archive (a list of its maps,
libraries and REGN grids to pick from), a loose MCOL / CollisionSet /
REGN file, or `ARCHIVE.pak+ENTRY`.

A map becomes one mesh object named after its entry, in a collection of
its own with its debug layers in hidden child collections; a library a
collection of its parts in record order; a REGN a point cloud (a mesh of
vertices only). The mesh data holds the file's coordinates as they are;
the object's transform only displays them (game +Y up as Blender's +Z
up, and the viewer-friendly scale), and export ignores it.
"""

import math
import os

import bpy
import numpy as np
import sylcol
from bpy.props import BoolProperty, CollectionProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ImportHelper
from mathutils import Matrix

from . import keys, layers
from .mesh_io import new_mesh

KINDS = {"Mcol": keys.MAP, "CollisionSet": keys.LIBRARY, "Regn": keys.REGN}
LIBRARY_SPACING = 1.25  # parts laid out on a grid, their largest size apart


def split_source(path):
    """(archive, entry) of `ARCHIVE.pak+ENTRY`, or (path, None)."""
    if os.path.exists(path) or "+" not in path:
        return path, None
    head, _, inner = path.rpartition("+")
    return head, inner


def names_beside(archive):
    """The `names.txt` beside an archive, as the CLI reads it, or None."""
    beside = os.path.join(os.path.dirname(os.path.abspath(archive)), "names.txt")
    return beside if os.path.isfile(beside) else None


def open_pak(path):
    return sylcol.open_archive(path, names=names_beside(path))


def describe(archive):
    """Rows for the list dialog, in index order: (hash hex, display, kind,
    detail, selected by default, the first entry stored at the same place
    or ""). An entry stored where an earlier one is (the library's
    seventeen copies) is not selected by default."""
    rows, seen = [], {}
    for e in archive:
        location = (e.part, e.offset, e.stored_size)
        if location in seen:
            first = seen[location]
            if first is not None:
                rows.append((f"{e.hash:08X}", e.display, first[2], first[3], False, first[1]))
            continue
        seen[location] = None
        if e.error is not None or e.magic in ("IDXD", "IXUD"):
            continue
        try:
            obj = e.decode()
        except sylcol.SylcolError:
            continue
        kind = KINDS.get(type(obj).__name__)
        if kind is None:
            continue
        if kind == keys.MAP:
            detail = f"{obj.triangle_count} triangles, grid {'x'.join(map(str, obj.grid))}"
        elif kind == keys.LIBRARY:
            detail = f"{len(obj)} parts"
        else:
            detail = f"{0 if obj.vertices is None else len(obj.vertices)} points"
        row = (f"{e.hash:08X}", e.display, kind, detail, True, "")
        seen[location] = row
        rows.append(row)
    return rows


def display_matrix(y_up, scale):
    """The object transform that displays game coordinates."""
    m = Matrix.Scale(scale, 4)
    return Matrix.Rotation(math.pi / 2, 4, "X") @ m if y_up else m


def archive_collection(context, label):
    """The top collection of one import (`MiscBin.pak`), in the scene."""
    coll = bpy.data.collections.new(label)
    context.scene.collection.children.link(coll)
    return coll


def find_layer_collection(layer, coll):
    if layer.collection == coll:
        return layer
    for child in layer.children:
        found = find_layer_collection(child, coll)
        if found:
            return found
    return None


def hide_layers(context, parent):
    """Hides (the Outliner's eye) every debug layer under `parent`."""
    for coll in parent.children_recursive:
        if keys.LAYER in coll:
            lc = find_layer_collection(context.view_layer.layer_collection, coll)
            if lc:
                lc.hide_viewport = True


def tag(idb, source, entry_display):
    archive, entry_hash, loose = source
    idb[keys.ARCHIVE] = archive
    idb[keys.HASH] = entry_hash or ""
    idb[keys.FILE] = loose
    idb[keys.ENTRY] = entry_display


def import_map(context, m, name, source, parent, matrix, with_layers=True):
    coll = bpy.data.collections.new(name)
    parent.children.link(coll)
    obj = bpy.data.objects.new(name, new_mesh(bpy, name, m.vertices, m.triangles))
    tag(obj, source, name)
    obj[keys.KIND] = keys.MAP
    obj[keys.BBOX_MIN] = [float(x) for x in m.bbox[0]]
    obj[keys.BBOX_MAX] = [float(x) for x in m.bbox[1]]
    obj[keys.CELL] = [float(x) for x in m.cell_size]
    obj[keys.GRID] = list(m.grid)
    obj[keys.VERTICES] = m.vertex_count
    obj[keys.TRIANGLES] = m.triangle_count
    obj.matrix_world = matrix
    obj[keys.DISPLAY] = [x for row in matrix for x in row]
    coll.objects.link(obj)
    if with_layers:
        layers.add_layers(bpy, m, name, coll, matrix)
    return obj


def import_library(context, lib, name, source, parent, matrix):
    coll = bpy.data.collections.new(name)
    parent.children.link(coll)
    tag(coll, source, name)
    coll[keys.KIND] = keys.LIBRARY
    coll[keys.ENDIAN] = lib.endian
    sizes = [float(np.ptp(p.vertices, axis=0).max()) if p.vertex_count else 0.0 for p in lib.meshes]
    step = LIBRARY_SPACING * (max(sizes) if sizes else 1.0)
    across = max(1, math.ceil(math.sqrt(len(lib))))
    objects = []
    for i, part in enumerate(lib.meshes):
        obj = bpy.data.objects.new(part.name, new_mesh(bpy, part.name, part.vertices, part.triangles))
        obj[keys.KIND] = keys.PART
        obj[keys.RECORD] = part.name
        obj[keys.INDEX] = i
        # The layout is display only: export reads the mesh data.
        offset = Matrix.Translation(((i % across) * step, (i // across) * step, 0.0))
        obj.matrix_world = matrix @ offset
        coll.objects.link(obj)
        objects.append(obj)
    return coll, objects


def import_regn(context, r, name, source, parent, matrix):
    points = r.vertices if r.vertices is not None else np.zeros((0, 3), dtype=np.float32)
    obj = bpy.data.objects.new(name, new_mesh(bpy, name, points))
    tag(obj, source, name)
    obj[keys.KIND] = keys.REGN
    obj[keys.BBOX_MIN] = [float(x) for x in r.bbox[0]]
    obj[keys.BBOX_MAX] = [float(x) for x in r.bbox[1]]
    obj[keys.CELL] = [float(x) for x in r.cell_size]
    if r.grid is not None:
        obj[keys.GRID] = list(r.grid)
    obj.matrix_world = matrix
    parent.objects.link(obj)
    return obj


def import_object(context, obj, name, source, parent, matrix, with_layers=True):
    kind = type(obj).__name__
    if kind == "Mcol":
        return import_map(context, obj, name, source, parent, matrix, with_layers)
    if kind == "CollisionSet":
        return import_library(context, obj, name, source, parent, matrix)[0]
    if kind == "Regn":
        return import_regn(context, obj, name, source, parent, matrix)
    raise sylcol.UnsupportedError(f"{name}: a {kind}, not a map, a library or a REGN")


class SYLCOL_PG_entry(bpy.types.PropertyGroup):
    """One row of the archive dialog."""

    key: StringProperty()
    label: StringProperty()
    kind: StringProperty()
    detail: StringProperty()
    same_as: StringProperty()
    select: BoolProperty(default=True)


class SYLCOL_UL_entries(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.prop(item, "select", text="")
        icon = {keys.MAP: "MESH_ICOSPHERE", keys.LIBRARY: "OUTLINER_COLLECTION", keys.REGN: "POINTCLOUD_DATA"}
        row.label(text=item.label, icon=icon.get(item.kind, "QUESTION"))
        row.label(text=item.same_as and f"same bytes as {item.same_as}" or item.detail)


class ImportOptions:
    y_up: BoolProperty(
        name="Game +Y up",
        description="Display the game's +Y as Blender's +Z (an object rotation; the mesh keeps the file's coordinates)",
        default=True,
    )
    scale: FloatProperty(
        name="Display scale",
        description="Object scale for viewing (0.001 puts a ±50 000 map within Blender's clip distance); "
        "the mesh keeps the file's coordinates",
        default=1.0,
        min=1e-9,
        soft_min=1e-5,
        soft_max=1.0,
    )
    layers: BoolProperty(name="Debug layers", description="Cells, spheres and failures, hidden", default=True)


class SYLCOL_OT_import(bpy.types.Operator, ImportHelper, ImportOptions):
    """Import Project Sylpheed collision: an archive (.pak), a loose MCOL / CollisionSet / REGN file, or ARCHIVE.pak+ENTRY"""

    bl_idname = "import_scene.sylcol"
    bl_label = "Import Project Sylpheed"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ""
    filter_glob: StringProperty(default="*.pak;*.mcol;*.MCOL;*.bin;*.rgn;*.col", options={"HIDDEN"})
    entries: StringProperty(
        name="Entries",
        description='For an archive: "" to choose in a list, "default" (every map, REGN and distinct library), '
        '"all", or names / $HASHes separated by commas',
        default="",
    )

    def execute(self, context):
        path, inner = split_source(self.filepath)
        if path.lower().endswith(".pak") and inner is None:
            if self.entries == "" and not bpy.app.background:
                bpy.ops.sylcol.import_archive("INVOKE_DEFAULT", filepath=path, y_up=self.y_up, scale=self.scale, layers=self.layers)
                return {"FINISHED"}
            return run_archive_import(self, context, path, self.entries or "default")
        try:
            if inner is not None:
                pak = open_pak(path)
                entry = pak[inner]
                obj, name = entry.decode(), entry.display
                source = (os.path.abspath(path), f"{entry.hash:08X}", "")
            else:
                obj, name = sylcol.load(path), os.path.basename(path)
                source = ("", None, os.path.abspath(path))
            top = archive_collection(context, os.path.basename(self.filepath))
            import_object(context, obj, name, source, top, display_matrix(self.y_up, self.scale), self.layers)
            hide_layers(context, top)
        except (sylcol.SylcolError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}


def run_archive_import(op, context, path, chosen):
    """Imports the entries `chosen` names ("default", "all", a comma list
    of names / $HASHes, or a set of hash hex strings)."""
    try:
        pak = open_pak(path)
        rows = describe(pak)
    except (sylcol.SylcolError, OSError) as e:
        op.report({"ERROR"}, str(e))
        return {"CANCELLED"}
    if isinstance(chosen, set):
        picked = [r for r in rows if r[0] in chosen]
    elif chosen == "all":
        picked = rows
    elif chosen == "default":
        picked = [r for r in rows if r[4]]
    else:
        wanted = {w.strip() for w in chosen.split(",") if w.strip()}
        picked = [r for r in rows if r[1] in wanted or f"${r[0]}" in wanted or r[1].split(".")[0] in wanted]
        missing = wanted - {r[1] for r in picked} - {f"${r[0]}" for r in picked} - {r[1].split(".")[0] for r in picked}
        if missing:
            op.report({"ERROR"}, f"{path}: no map, library or REGN entry {', '.join(sorted(missing))}")
            return {"CANCELLED"}
    top = archive_collection(context, os.path.basename(path))
    matrix = display_matrix(op.y_up, op.scale)
    for key, display, *_ in picked:
        entry = pak["$" + key]
        source = (os.path.abspath(path), key, "")
        import_object(context, entry.decode(), display, source, top, matrix, op.layers)
    hide_layers(context, top)
    op.report({"INFO"}, f"{path}: imported {len(picked)} entries")
    return {"FINISHED"}


class SYLCOL_OT_import_archive(bpy.types.Operator, ImportOptions):
    """Choose which maps, libraries and REGN grids of an archive to import"""

    bl_idname = "sylcol.import_archive"
    bl_label = "Import from archive"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    filepath: StringProperty(subtype="FILE_PATH")
    items: CollectionProperty(type=SYLCOL_PG_entry)
    active: IntProperty()

    def invoke(self, context, event):
        try:
            rows = describe(open_pak(self.filepath))
        except (sylcol.SylcolError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.items.clear()
        for key, label, kind, detail, default, same in rows:
            item = self.items.add()
            item.key, item.label, item.kind, item.detail, item.select, item.same_as = key, label, kind, detail, default, same
        return context.window_manager.invoke_props_dialog(self, width=560)

    def draw(self, context):
        col = self.layout.column()
        col.label(text=os.path.basename(self.filepath))
        col.template_list("SYLCOL_UL_entries", "", self, "items", self, "active", rows=14)
        row = col.row()
        row.prop(self, "y_up")
        row.prop(self, "scale")
        row.prop(self, "layers")

    def execute(self, context):
        chosen = {item.key for item in self.items if item.select}
        return run_archive_import(self, context, self.filepath, chosen)


def menu_import(self, context):
    self.layout.operator(SYLCOL_OT_import.bl_idname, text="Project Sylpheed (.pak, MCOL, CollisionSet)")


CLASSES = (SYLCOL_PG_entry, SYLCOL_UL_entries, SYLCOL_OT_import, SYLCOL_OT_import_archive)
