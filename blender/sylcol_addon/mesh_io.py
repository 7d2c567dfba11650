"""Meshes between numpy arrays and Blender, in file order.

Import keeps the file's vertex and triangle order (vertex i is Blender
vertex i, triangle i Blender face i) and its float32 coordinates as
they are: no axis swap, no scale (the object's transform does the
display). Export reads the mesh data back the same way, so an unedited
object gives the file's arrays.
"""

import numpy as np


def new_mesh(bpy, name, vertices, triangles=None, edges=None):
    """A Blender mesh of `vertices` (N x 3) and `triangles` (M x 3) or
    `edges` (K x 2), in the order given."""
    mesh = bpy.data.meshes.new(name)
    v = np.ascontiguousarray(vertices, dtype=np.float32)
    mesh.vertices.add(len(v))
    mesh.vertices.foreach_set("co", v.ravel())
    if triangles is not None and len(triangles):
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
