"""The add-on in real Blender, headless, installed from its zip
(conftest.py): the five checks of issue 36 on samples/MiscBin.pak, and
the refusals and the cell selection besides."""

import json
import re
import struct

import bmesh
import bpy
import numpy as np
import pytest
from mathutils import Quaternion, Vector

from conftest import PAK, cli, cli_json, cli_object

LARGEST = "$DD89A110"  # the sample map with the most triangles (1 164)


def listing():
    """`sylcol pak list --json` of the samples: entries in index order."""
    return cli_json("pak", "list", PAK)["entries"]


def import_default():
    assert bpy.ops.import_scene.sylcol(filepath=str(PAK), entries="default") == {"FINISHED"}


def map_objects():
    return {o["sylcol_hash"]: o for o in bpy.data.objects if o.get("sylcol_kind") == "MCOL"}


def library_collection():
    (coll,) = [c for c in bpy.data.collections if c.get("sylcol_kind") == "CollisionSet"]
    return coll


def activate(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def largest_map():
    return next(o for o in map_objects().values() if o.name.startswith(LARGEST) or o["sylcol_hash"] == LARGEST[1:])


def test_1_import_gives_every_map_and_library_part(scene, addon):
    import_default()
    entries = listing()
    maps = {e["hash"]: e for e in entries if e.get("magic") == "MCOL"}
    got = map_objects()
    assert sorted(got) == sorted(m.upper() for m in maps), (sorted(got), sorted(maps))
    for h, obj in got.items():
        facts = cli_object("info", f"{PAK}+${h}")
        assert len(obj.data.polygons) == obj["sylcol_triangles"] == facts["triangles"], h
        assert len(obj.data.vertices) == facts["vertices"], h
        assert list(obj["sylcol_grid"]) == facts["grid"]["dims"], h
        assert list(obj["sylcol_cell_size"]) == facts["grid"]["cell_size"], h
        assert list(obj["sylcol_bbox_min"]) == facts["bbox_min"] and list(obj["sylcol_bbox_max"]) == facts["bbox_max"], h
        assert obj["sylcol_archive"] == str(PAK.resolve())
        # The debug layers: four child collections, hidden in the view layer.
        home = obj.users_collection[0]
        layers = {c["sylcol_layer"]: c for c in home.children}
        assert sorted(layers) == ["cell-spheres", "cells", "failures", "tri-spheres"]
        for coll in layers.values():
            lc = addon.importer.find_layer_collection(bpy.context.view_layer.layer_collection, coll)
            assert lc.hide_viewport and len(coll.objects) == 1
    regions = {e["hash"]: e for e in entries if e.get("magic") == "REGN"}
    clouds = {o["sylcol_hash"]: o for o in bpy.data.objects if o.get("sylcol_kind") == "REGN"}
    assert sorted(clouds) == sorted(h.upper() for h in regions)
    for h, obj in clouds.items():
        assert len(obj.data.vertices) > 0 and len(obj.data.polygons) == 0, h
    lib = library_collection()
    names = [o["sylcol_record"] for o in sorted(lib.objects, key=lambda o: o["sylcol_index"])]
    facts = cli_object("info", f"{PAK}+CollisionSet_S01.bin")
    assert names == [m["name"] for m in facts["meshes"]]
    assert len(names) == 158
    assert [o.name for o in sorted(lib.objects, key=lambda o: o["sylcol_index"])][:3] == names[:3]


def test_the_archive_dialog_lists_maps_libraries_and_regions_with_copies_unticked(addon):
    import sylcol

    rows = addon.importer.describe(sylcol.open_archive(PAK))
    by_kind = {}
    for key, label, kind, detail, ticked, same_as in rows:
        by_kind.setdefault(kind, []).append((label, ticked, same_as))
    entries = listing()
    assert len(by_kind["MCOL"]) == sum(e.get("magic") == "MCOL" for e in entries)
    assert len(by_kind["REGN"]) == sum(e.get("magic") == "REGN" for e in entries)
    libraries = by_kind["CollisionSet"]
    assert len(libraries) == 18 and sum(t for _, t, _ in libraries) == 1
    (first,) = [label for label, t, _ in libraries if t]
    assert all(same == first for label, t, same in libraries if not t)
    assert ("mapmesh_box_500km.col", True, "") in by_kind["MCOL"]


def test_2_unchanged_exports_are_byte_identical_and_save_into_archive_verifies(scene, extracted, tmp_path):
    import_default()
    for h, obj in map_objects().items():
        activate(obj)
        out = tmp_path / f"{h}.MCOL"
        assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
        assert out.read_bytes() == original_bytes(extracted, h), h
    lib = library_collection()
    activate(lib.objects[0])
    out = tmp_path / "library.bin"
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == extracted["CollisionSet_S01.bin"]
    # Save into archive: a copy; the original is refused without Overwrite.
    with pytest.raises(RuntimeError, match="is the original archive"):
        bpy.ops.sylcol.save_into_archive(source=str(PAK), filepath=str(PAK))
    mod = tmp_path / "mod" / "MiscBin.pak"
    assert bpy.ops.sylcol.save_into_archive(source=str(PAK), filepath=str(mod)) == {"FINISHED"}
    report = bpy.context.window_manager.sylcol_report
    assert "0 replaced (nothing changed); verify ok" in report, report
    # Nothing changed: pak replace of nothing, the original byte for byte
    # (so `sylcol verify` of it is the samples' own; an edited copy is
    # verified whole in the library test below).
    for name in ("MiscBin.pak", "MiscBin.p00"):
        assert (mod.parent / name).read_bytes() == (PAK.parent / name).read_bytes(), name
    new = cli_json("pak", "list", mod)["entries"]
    key = lambda e: (e["hash"], e["name"], e["entry"], e["bytes"], e["magic"], e["compressed"])  # noqa: E731
    assert [key(e) for e in new] == [key(e) for e in listing()]


def collisionset_record(name, vertices, triangles):
    """One big-endian CollisionSet record as the seed lays it out (size,
    name_len, the NUL-padded name, counts, f32 vertices, u32 indices),
    written here by hand rather than by sylcol's encoder."""
    field = name.encode() + b"\0" * (8 - len(name) % 8)
    body = struct.pack(">I", len(field)) + field + struct.pack(">II", len(vertices), len(triangles))
    body += b"".join(struct.pack(">3f", *v) for v in vertices)
    body += b"".join(struct.pack(">3I", *t) for t in triangles)
    return struct.pack(">I", len(body) - 4) + body


def test_double_sided_and_unwelded_records_export_byte_identical(scene, tmp_path):
    # A double-sided quad (each triangle also in the other winding, on the
    # same vertices), a tetrahedron with one corner stored twice at one
    # position, and a tetrahedron with a double-sided fin sharing its edge.
    quad = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    sheet = [(0, 1, 2), (0, 2, 3), (0, 2, 1), (0, 3, 2)]
    tetra = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0)]
    closed = [(0, 2, 1), (4, 1, 3), (0, 3, 2), (1, 2, 3)]
    fin = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.5, -1, 0.5)]
    finned = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3), (0, 1, 4), (1, 0, 4)]
    records = [("two_sided_cmesh", quad, sheet), ("split_corner_cmesh", tetra, closed), ("finned_cmesh", fin, finned)]
    path = tmp_path / "hand.bin"
    path.write_bytes(b"".join(collisionset_record(*r) for r in records))
    assert bpy.ops.import_scene.sylcol(filepath=str(path)) == {"FINISHED"}
    lib = library_collection()
    parts = sorted(lib.objects, key=lambda o: o["sylcol_index"])
    assert [len(o.data.polygons) for o in parts] == [len(t) for _, _, t in records]
    for obj in parts:
        # Blender holds every face: validation finds nothing to remove.
        assert not obj.data.validate(), obj.name
    # The back of the sheet got its own vertices: 4 + 4.
    assert len(parts[0].data.vertices) == 8
    out = tmp_path / "back.bin"
    activate(parts[0])
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()
    # Still so after a round through Edit Mode (BMesh), and a moved
    # vertex moves on both sides of the sheet only when both copies move.
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()
    mesh = parts[0].data
    ids = [a.value for a in mesh.attributes["sylcol_vertex"].data]
    for v, i in zip(mesh.vertices, ids):
        if i == 2:
            v.co.z = 0.5
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    (sheet_back, *_) = cli_object("info", out)["meshes"]
    assert (sheet_back["vertices"], sheet_back["triangles"]) == (4, 4)
    assert sylcol_part(out, 0).vertices[2][2] == np.float32(0.5)


def sylcol_part(path, n):
    import sylcol

    return sylcol.load(str(path)).meshes[n]


def original_bytes(extracted, h):
    """An extracted map's bytes: extract names unnamed entries $HASH.MCOL
    and named ones by their name."""
    for name, data in extracted.items():
        if name.upper().startswith(f"${h}"):
            return data
    obj = next(o for o in map_objects().values() if o["sylcol_hash"] == h)
    return extracted[obj["sylcol_entry"]]


def test_3_a_moved_vertex_survives_export_and_reimport_and_verifies(scene, tmp_path):
    import_default()
    obj = largest_map()
    h = obj["sylcol_hash"]
    v = obj.data.vertices[7]
    moved = Vector(v.co) + Vector((125.0, -60.0, 40.0))
    v.co = moved
    activate(obj)
    out = tmp_path / "moved.MCOL"
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    code, text, err = cli("verify", out, check=False)
    assert code == 0, text + err
    # Into a copy of the archive, and back.
    mod = tmp_path / "mod" / "MiscBin.pak"
    assert bpy.ops.sylcol.save_into_archive(source=str(PAK), filepath=str(mod)) == {"FINISHED"}
    report = bpy.context.window_manager.sylcol_report
    assert "1 replaced" in report and "verify ok" in report, report
    code, text, err = cli("verify", f"{mod}+${h}", check=False)
    assert code == 0, text + err
    for source in (str(out), f"{mod}+${h}"):
        before = set(bpy.data.objects)
        assert bpy.ops.import_scene.sylcol(filepath=source) == {"FINISHED"}
        (back,) = [o for o in set(bpy.data.objects) - before if o.get("sylcol_kind") == "MCOL"]
        assert tuple(back.data.vertices[7].co) == tuple(np.float32(moved)), source
        assert len(back.data.polygons) == len(obj.data.polygons)
        assert back["sylcol_hash"] == (h if "+" in source else "")


def test_save_into_archive_gives_an_edited_library_to_every_name_sharing_its_copy(scene, tmp_path):
    import_default()
    lib = library_collection()
    part = sorted(lib.objects, key=lambda o: o["sylcol_index"])[0]
    part.data.vertices[0].co.x += 10.0
    mod = tmp_path / "mod" / "MiscBin.pak"
    assert bpy.ops.sylcol.save_into_archive(source=str(PAK), filepath=str(mod)) == {"FINISHED"}
    report = bpy.context.window_manager.sylcol_report
    before = {e["hash"]: e for e in listing()}
    libraries = {h for h, e in before.items() if (e["name"] or "").startswith("CollisionSet_")}
    assert f"18 replaced ({lib.name} and the 17 entries sharing its stored copy (" in report, report
    assert "verify ok" in report, report
    after = {e["hash"]: e for e in cli_json("pak", "list", mod)["entries"]}
    # The eighteen names still share one stored copy, the new one; every
    # other entry is stored where it was.
    assert len({(after[h]["part"], after[h]["offset"]) for h in libraries}) == 1
    where = lambda e: (e["part"], e["offset"], e["stored_bytes"])  # noqa: E731
    assert {h: where(e) for h, e in after.items() if h not in libraries} == {h: where(e) for h, e in before.items() if h not in libraries}
    code, text, err = cli("verify", mod, check=False)
    assert code == 0, text + err


def open_hull(obj, face):
    """Deletes one face (its edges and vertices stay): an opened hull."""
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.faces[face]], context="FACES_ONLY")
    bm.to_mesh(obj.data)
    bm.free()


def test_4_an_opened_hull_is_refused_naming_the_open_edge_with_the_open_edges_selected(scene, tmp_path):
    import_default()
    obj = largest_map()
    corners = list(obj.data.polygons[100].vertices)
    open_hull(obj, 100)
    activate(obj)
    out = tmp_path / "open.MCOL"
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.sylcol(filepath=str(out))
    text = str(refused.value)
    assert not out.exists()
    assert f"{obj.name} is not a closed, consistently oriented hull; nothing written:" in text, text
    assert "(3 open edges)" in text, text
    named = re.search(r"edge from vertex (\d+) \([^)]*\) to vertex (\d+) \([^)]*\) is open", text)
    assert named, text
    hole = {frozenset(p) for p in zip(corners, corners[1:] + corners[:1])}
    assert frozenset(map(int, named.groups())) in hole
    assert obj.mode == "EDIT" and bpy.context.view_layer.objects.active == obj
    bm = bmesh.from_edit_mesh(obj.data)
    selected = {frozenset(v.index for v in e.verts) for e in bm.edges if e.select}
    boundary = {frozenset(v.index for v in e.verts) for e in bm.edges if len(e.link_faces) == 1}
    assert selected == boundary == hole
    assert not any(f.select for f in bm.faces)
    assert bpy.context.window_manager.sylcol_report == text.removeprefix("Error: ").strip()
    bpy.ops.object.mode_set(mode="OBJECT")


def test_an_inside_out_asteroid_is_refused_with_its_faces_selected(scene, tmp_path):
    import_default()
    obj = largest_map()
    # The last component (an asteroid): flip every face of it.
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    last = bm.faces[-1]
    island, todo = {last}, [last]
    while todo:
        f = todo.pop()
        for e in f.edges:
            for g in e.link_faces:
                if g not in island:
                    island.add(g)
                    todo.append(g)
    bmesh.ops.reverse_faces(bm, faces=list(island))
    flipped = {f.index for f in island}
    bm.to_mesh(obj.data)
    bm.free()
    activate(obj)
    with pytest.raises(RuntimeError, match="faces against the others"):
        bpy.ops.export_scene.sylcol(filepath=str(tmp_path / "flipped.MCOL"))
    bm = bmesh.from_edit_mesh(obj.data)
    assert {f.index for f in bm.faces if f.select} == flipped
    bpy.ops.object.mode_set(mode="OBJECT")


def test_5_the_panel_ray_hits_the_triangle_the_cli_reports(scene, addon):
    import_default()
    obj = largest_map()
    activate(obj)
    # A view looking down -Z turned 30 degrees about X and 20 about Z, from
    # the cursor: the panel's direction for such a view.
    view = Quaternion((0, 0, 1), 0.35) @ Quaternion((1, 0, 0), 0.5)
    direction = addon.panel.view_direction(type("View", (), {"view_rotation": view})())
    bpy.context.scene.cursor.location = (1.5, -2.0, 3.0)
    origin = Vector(bpy.context.scene.cursor.location)
    assert bpy.ops.sylcol.cast_ray(origin=origin, direction=direction) == {"FINISHED"}
    hit = bpy.context.window_manager.sylcol_hit
    assert hit >= 0
    inv = obj.matrix_world.inverted()
    o, d = inv @ origin, inv.to_3x3() @ direction
    fmt = lambda v: ",".join(repr(float(np.float32(x))) for x in v)  # noqa: E731
    q = cli_json("query", f"{PAK}+${obj['sylcol_hash']}", "ray", "--origin", fmt(o), "--dir", fmt(d))
    answer = q
    assert answer["hit"] and answer["triangle"] == hit, (answer, hit)
    bm = bmesh.from_edit_mesh(obj.data)
    assert [f.index for f in bm.faces if f.select] == [hit]
    bpy.ops.object.mode_set(mode="OBJECT")
    # The cursor moved to the hit point.
    assert (Vector(bpy.context.scene.cursor.location) - obj.matrix_world @ Vector(answer["point"])).length < 1e-3


def test_the_cell_under_the_cursor_selects_the_triangles_it_lists(scene):
    import sylcol

    import_default()
    obj = largest_map()
    activate(obj)
    m = sylcol.load(f"{PAK}+${obj['sylcol_hash']}")
    cells = m.cells
    occupied = [i for i in range(len(cells)) if cells["count"][i] > 0 and cells["record"][i] >= 0]
    i = occupied[len(occupied) // 2]
    nx, ny, _ = m.grid
    c = np.array([i % nx, (i // nx) % ny, i // (nx * ny)])
    centre = m.bbox[0] + (c + 0.5) * m.cell_size
    first = int(cells["record"][i])
    listed = set()
    for r in range(first, first + int(cells["count"][i])):
        listed.update(int(x) for x in m.lists[r])
    bpy.context.scene.cursor.location = obj.matrix_world @ Vector(centre.tolist())
    assert bpy.ops.sylcol.select_cell() == {"FINISHED"}
    bm = bmesh.from_edit_mesh(obj.data)
    assert {f.index for f in bm.faces if f.select} == listed
    bpy.ops.object.mode_set(mode="OBJECT")


def test_verify_fills_the_panel_report(scene):
    import_default()
    obj = largest_map()
    activate(obj)
    assert bpy.ops.sylcol.verify() == {"FINISHED"}
    report = json.loads(obj.sylcol_verify)
    assert report["ok"] and report["checks"] and report["format"] == "MCOL"


def test_new_objects_export_as_a_new_map_and_a_new_library_part(scene, tmp_path):
    import_default()
    # A new mesh: a map on the builder's cost-model grid.
    bpy.ops.mesh.primitive_ico_sphere_add(radius=1000.0)
    ico = bpy.context.active_object
    out = tmp_path / "new.MCOL"
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    code, text, err = cli("verify", out, check=False)
    assert code == 0, text + err
    assert cli_object("info", out)["triangles"] == len(ico.data.polygons)
    # A cube (quads, cut into triangles) put into the library: its last part.
    bpy.ops.mesh.primitive_cube_add(size=500.0)
    cube = bpy.context.active_object
    cube.name = "rou_x900_cmesh"
    lib = library_collection()
    for coll in list(cube.users_collection):
        coll.objects.unlink(cube)
    lib.objects.link(cube)
    activate(cube)
    out = tmp_path / "library.bin"
    assert bpy.ops.export_scene.sylcol(filepath=str(out)) == {"FINISHED"}
    meshes = cli_object("info", out)["meshes"]
    original = cli_object("info", f"{PAK}+CollisionSet_S01.bin")["meshes"]
    assert meshes[:-1] == original
    assert (meshes[-1]["name"], meshes[-1]["vertices"], meshes[-1]["triangles"]) == ("rou_x900_cmesh", 8, 12)
