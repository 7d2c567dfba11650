"""Meshes between numpy arrays and Blender, in file order.

Import keeps the file's vertex and triangle order (triangle i is Blender
face i) and its float32 coordinates as they are: no axis swap, no scale
(the object's transform does the display). A Blender mesh cannot hold
every triangle list a file may have: two faces on the same vertices (a
double-sided face: one triangle in both windings) or a face naming one
vertex twice are merged or dropped by Blender. So such a face gets
copies of its vertices (Blender vertex i is file vertex i for the
file's own vertices; the copies come after them), and every Blender
vertex keeps the index of the file vertex it stands for in the integer
point attribute `sylcol_vertex` (a vertex added in Blender carries what
Blender gives it: its source's id, or 0). Export reads the mesh back and
welds it with those ids
(`sylcol.weld(..., ids=...)`): the copies of one file vertex merge back,
vertices the file kept apart at one position stay apart, and an unedited
object gives the file's arrays.
"""

import numpy as np

VERTEX_ID = "sylcol_vertex"  # point attribute: the file vertex a Blender vertex stands for


def split_for_blender(triangles, vertex_count):
    """(triangles, origin): `triangles` (M x 3) with the corners Blender
    could not hold moved to copies of their vertices, and the file vertex
    each Blender vertex stands for (the first `vertex_count` are the
    file's own). The k-th face on one set of vertices (k > 0: the back of
    a double-sided face) uses the k-th copies of them, so the faces of one
    side stay joined; a corner naming a vertex its face named before uses
    a copy of its own."""
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    _, group = np.unique(np.sort(t, axis=1), axis=0, return_inverse=True)
    group = group.ravel()
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])
    level = np.empty(len(t), dtype=np.int64)
    level[order] = np.arange(len(t)) - np.repeat(starts, np.diff(np.r_[starts, len(t)]))
    repeat = np.zeros_like(t)
    repeat[:, 1] = t[:, 1] == t[:, 0]
    repeat[:, 2] = (t[:, 2] == t[:, 0]).astype(np.int64) + (t[:, 2] == t[:, 1])
    moved = (level[:, None] > 0) | (repeat > 0)
    if not moved.any():
        return t, np.arange(vertex_count)
    copies = np.stack([t[moved], np.broadcast_to(level[:, None], t.shape)[moved], repeat[moved]], axis=1)
    kinds, which = np.unique(copies, axis=0, return_inverse=True)
    out = t.copy()
    out[moved] = vertex_count + which.ravel()
    return out, np.r_[np.arange(vertex_count), kinds[:, 0]]


def vertex_ids(mesh):
    """The `sylcol_vertex` ids of a mesh's vertices as a list, or None for
    a mesh import did not make."""
    attr = mesh.attributes.get(VERTEX_ID)
    if attr is None or attr.domain != "POINT" or attr.data_type != "INT":
        return None
    ids = np.empty(len(mesh.vertices), dtype=np.int32)
    attr.data.foreach_get("value", ids)
    return ids.tolist()


def new_mesh(bpy, name, vertices, triangles=None, edges=None):
    """A Blender mesh of `vertices` (N x 3) and `triangles` (M x 3) or
    `edges` (K x 2), in the order given."""
    mesh = bpy.data.meshes.new(name)
    v = np.ascontiguousarray(vertices, dtype=np.float32)
    if triangles is not None and len(triangles):
        triangles, origin = split_for_blender(triangles, len(v))
        v = v[origin]
    mesh.vertices.add(len(v))
    mesh.vertices.foreach_set("co", v.ravel())
    if triangles is not None and len(triangles):
        # Made once the vertices exist (adding vertices reallocates it).
        ids = mesh.attributes.new(VERTEX_ID, "INT", "POINT")
        ids.data.foreach_set("value", origin.astype(np.int32))
        t = np.ascontiguousarray(triangles, dtype=np.int32)
        mesh.loops.add(3 * len(t))
        mesh.loops.foreach_set("vertex_index", t.ravel())
        mesh.polygons.add(len(t))
        mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * len(t), 3, dtype=np.int32))
    if edges is not None and len(edges):
        e = np.ascontiguousarray(edges, dtype=np.int32)
        mesh.edges.add(len(e))
        mesh.edges.foreach_set("vertices", e.ravel())
    mesh.update(calc_edges=triangles is not None)
    return mesh


def mesh_arrays(obj):
    """(vertices float32 N x 3, triangles int64 M x 3, polygon of each
    triangle) of a mesh object's data, in its own order. Triangles are
    the faces themselves; a face of more corners is cut into Blender's
    own triangulation (its loop triangles)."""
    if obj.mode == "EDIT":
        obj.update_from_editmode()
    mesh = obj.data
    v = np.empty(3 * len(mesh.vertices), dtype=np.float32)
    mesh.vertices.foreach_get("co", v)
    sizes = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get("loop_total", sizes)
    if (sizes == 3).all():
        loops = np.empty(len(mesh.loops), dtype=np.int32)
        mesh.loops.foreach_get("vertex_index", loops)
        starts = np.empty(len(mesh.polygons), dtype=np.int32)
        mesh.polygons.foreach_get("loop_start", starts)
        t = loops[(starts[:, None] + np.arange(3)).ravel()].reshape(-1, 3)
        return v.reshape(-1, 3), t.astype(np.int64), np.arange(len(t))
    mesh.calc_loop_triangles()
    t = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", t)
    polys = np.empty(len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("polygon_index", polys)
    return v.reshape(-1, 3), t.reshape(-1, 3).astype(np.int64), polys
