"""A map's debug layers, as `sylcol export --layers` draws them: the
occupied cells (wire boxes), the cell records' spheres and the
triangles' spheres (three great circles each), and the failures (the
triangles and cells a failing `verify` check counts against). Each is
one object in a child collection of the map's own, hidden until its
eye is clicked in the Outliner. The geometry comes from sylcol
(`map_cells`, `Mcol.spheres`, `map_failures`); nothing is decoded here.
"""

import numpy as np
import sylcol

from . import keys
from .mesh_io import new_mesh

NAMES = ("cells", "cell-spheres", "tri-spheres", "failures")

# The 12 edges of a box over its corners numbered by bits (x, y, z).
BOX_EDGES = np.array(
    [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]]
)
CIRCLE = 16


def box_lines(lo, hi):
    """Corners and edges of boxes (lo, hi: K x 3)."""
    bits = np.array([[(i >> k) & 1 for k in range(3)] for i in range(8)], dtype=bool)
    corners = np.where(bits[None], hi[:, None, :], lo[:, None, :]).reshape(-1, 3)
    edges = (BOX_EDGES[None] + 8 * np.arange(len(lo))[:, None, None]).reshape(-1, 2)
    return corners, edges


def sphere_lines(spheres):
    """Three great circles of each sphere (K x 4: centre, radius)."""
    s = np.asarray(spheres, dtype=np.float64).reshape(-1, 4)
    s = s[np.isfinite(s).all(axis=1) & (s[:, 3] > 0)]
    a = 2 * np.pi * np.arange(CIRCLE) / CIRCLE
    c, z = np.cos(a), np.zeros(CIRCLE)
    unit = np.concatenate([np.stack(p, axis=1) for p in ((c, np.sin(a), z), (z, c, np.sin(a)), (np.sin(a), z, c))])
    points = (s[:, None, :3] + s[:, None, 3:] * unit[None]).reshape(-1, 3)
    ring = np.stack([np.arange(CIRCLE), (np.arange(CIRCLE) + 1) % CIRCLE], axis=1)
    one = np.concatenate([ring + CIRCLE * k for k in range(3)])
    edges = (one[None] + 3 * CIRCLE * np.arange(len(s))[:, None, None]).reshape(-1, 2)
    return points, edges


def layer_geometry(mcol, name):
    """(points, edges, triangles) of one layer of a map."""
    if name == "cells":
        cells = sylcol.map_cells(mcol)
        return (*box_lines(cells["lo"], cells["hi"]), None)
    if name == "cell-spheres":
        return (*sphere_lines(sylcol.map_cells(mcol)["sphere"]), None)
    if name == "tri-spheres":
        return (*sphere_lines(mcol.spheres), None)
    flagged = sylcol.map_failures(mcol)
    tris = np.array([f["triangle"] for f in flagged["triangles"]], dtype=np.int64)
    tris = tris[(mcol.triangles[tris] < mcol.vertex_count).all(axis=1)] if len(tris) else tris
    corners = mcol.vertices[mcol.triangles[tris].ravel()] if len(tris) else np.zeros((0, 3))
    grid = np.asarray(mcol.grid)
    cells = [f["cell"] for f in flagged["cells"] if (np.asarray(f["cell"]) < grid).all()]
    lo = mcol.bbox[0] + np.asarray(cells, dtype=np.float64).reshape(-1, 3) * mcol.cell_size
    box_points, box_edges = box_lines(lo, lo + mcol.cell_size)
    points = np.concatenate([corners, box_points]).reshape(-1, 3)
    triangles = np.arange(len(corners)).reshape(-1, 3)
    return points, box_edges + len(corners), triangles


def add_layers(bpy, mcol, name, parent, matrix):
    """The four layers of `mcol` under collection `parent`, each hidden."""
    for layer in NAMES:
        points, edges, triangles = layer_geometry(mcol, layer)
        coll = bpy.data.collections.new(f"{name} {layer}")
        coll[keys.LAYER] = layer
        parent.children.link(coll)
        mesh = new_mesh(bpy, f"{name} {layer}", points, triangles, None)
        if len(edges):
            base = len(mesh.edges)
            mesh.edges.add(len(edges))
            flat = np.empty(2 * len(mesh.edges), dtype=np.int32)
            mesh.edges.foreach_get("vertices", flat)
            flat[2 * base:] = np.asarray(edges, dtype=np.int32).ravel()
            mesh.edges.foreach_set("vertices", flat)
            mesh.update()
        obj = bpy.data.objects.new(f"{name} {layer}", mesh)
        obj[keys.LAYER] = layer
        obj.matrix_world = matrix
        obj.display_type = "WIRE" if layer != "failures" else "SOLID"
        obj.color = (1.0, 0.05, 0.05, 1.0) if layer == "failures" else (0.2, 0.85, 0.9, 1.0)
        coll.objects.link(obj)
        coll.hide_render = True
    return parent
