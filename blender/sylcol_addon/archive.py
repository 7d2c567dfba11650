"""Save into archive: the maps and libraries imported from an archive,
built back, written into a copy of that archive as `sylcol pak replace`
writes it (`sylcol.replace_entries`, the same library code).

An entry whose object builds to other bytes than it holds is replaced;
every other stored byte stays where it was, and entries that share a
stored copy keep sharing it. A replaced entry whose stored copy other
entries share (the disc stores its CollisionSet library once for
eighteen names) gives the new content to all of them (`pak replace
--all-aliases`), and the report names them. The copy is never written
over the original unless `overwrite` is set; it is then read back: every
entry must be where it was or where the replacement put it, and every
replaced entry must pass `verify`.
"""

import os

import bpy
import sylcol
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import exporter, keys
from .importer import names_beside, open_pak


def sources_in(scene, archive):
    """The maps and libraries of `scene` imported from `archive`:
    (hash hex, kind, object or collection)."""
    archive = os.path.abspath(archive)
    found = []
    for obj in scene.objects:
        if obj.get(keys.KIND) == keys.MAP and keys.LAYER not in obj and obj.get(keys.ARCHIVE) == archive:
            found.append((obj[keys.HASH], keys.MAP, obj))
    for coll in bpy.data.collections:
        if coll.get(keys.KIND) == keys.LIBRARY and coll.get(keys.ARCHIVE) == archive:
            if any(o.name in scene.objects for o in coll.objects):
                found.append((coll[keys.HASH], keys.LIBRARY, coll))
    return found


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def changes(scene, source):
    """({hash hex: (object name, new bytes)} of the entries whose objects
    build to other bytes, names of the unchanged objects). Raises
    exporter.Refused for a mesh the hull checks refuse."""
    pak = open_pak(source)
    original = {f"{e.hash:08X}": e for e in pak}
    changed, unchanged = {}, []
    for key, kind, thing in sources_in(scene, source):
        if key not in original:
            raise sylcol.NotFoundError(f"{source}: no entry ${key} (imported as {thing.name})", source, None, "not_found")
        data = exporter.map_bytes(thing) if kind == keys.MAP else exporter.library_bytes(thing)
        if data == original[key].read():
            unchanged.append(thing.name)
        else:
            changed[key] = (thing.name, data)
    return changed, unchanged


def check_written(source, output, done):
    """Reads the written archive back: the same entries, each stored where
    the source stores it unless replaced; each replaced entry verified.
    Returns the hashes (hex) whose verify failed; raises ValueError on a
    mismatch."""
    before = {e.hash: (e.part, e.offset, e.stored_size) for e in open_pak(source)}
    after = {e.hash: e for e in sylcol.open_archive(output)}
    if sorted(before) != sorted(after):
        raise ValueError(f"{output}: the index holds other entries than {source}")
    moved = {(r["part"], r["offset"], r["stored_bytes"]) for r in done["replaced"]}
    failed = []
    for h, e in after.items():
        where = (e.part, e.offset, e.stored_size)
        if where == before[h] and where not in moved:
            continue
        if where not in moved:
            raise ValueError(f"{output}: entry ${h:08X} is stored elsewhere than the source stores it, yet was not replaced")
        if not e.decode().verify()["ok"]:
            failed.append(f"{h:08X}")
    return failed


def save_into_archive(scene, source, output, overwrite=False):
    """Writes the copy and checks it; returns a summary dict."""
    if same_file(source, output) and not overwrite:
        raise PermissionError(f"{output}: is the original archive; choose another path or tick Overwrite original")
    changed, unchanged = changes(scene, source)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    replacements = [(f"${key}", data) for key, (_, data) in changed.items()]
    done = sylcol.replace_entries(source, output, replacements, aliases="all", names=names_beside(source))
    failed = check_written(source, output, done)
    return {
        "output": output,
        "entries": done["entries"],
        # Per object changed: the other entries given its bytes (sharing its entry's stored copy).
        "replaced": {name: shared_names(key, row) for (key, (name, _)), row in zip(changed.items(), done["replaced"])},
        "unchanged": unchanged,
        "verify_failed": failed,
        "ok": not failed,
    }


def shared_names(key, row):
    """The entries of a `replace_entries` report row other than `key`'s own."""
    return [e for e in row["entries"] if sylcol.entry_hash(e) != int(key, 16)]


def summary_text(s):
    parts = []
    for name, shared in s["replaced"].items():
        also = f" and the {len(shared)} entries sharing its stored copy ({', '.join(shared)})" if shared else ""
        parts.append(f"{name}{also}")
    count = sum(1 + len(shared) for shared in s["replaced"].values())
    what = "; ".join(parts) or "nothing changed"
    verdict = "verify ok" if s["ok"] else f"verify FAILED for {', '.join('$' + k for k in s['verify_failed'])}"
    return f"{s['output']}: {s['entries']} entries, {count} replaced ({what}); {verdict}"


def default_output(source):
    """`<folder>/mod/<NAME>.pak`: the copy keeps the archive's name, which
    the game looks for."""
    return os.path.join(os.path.dirname(os.path.abspath(source)), "mod", os.path.basename(source))


def source_of_context(context):
    obj = context.active_object
    if obj is not None and obj.get(keys.ARCHIVE):
        return obj[keys.ARCHIVE]
    coll = exporter.library_of(obj)
    if coll is not None and coll.get(keys.ARCHIVE):
        return coll[keys.ARCHIVE]
    for o in context.scene.objects:
        if o.get(keys.ARCHIVE):
            return o[keys.ARCHIVE]
    return ""


class SYLCOL_OT_save_into_archive(bpy.types.Operator, ExportHelper):
    """Write the edited maps and libraries into a copy of the archive they came from, then read it back and verify it"""

    bl_idname = "sylcol.save_into_archive"
    bl_label = "Save into archive"
    bl_options = {"REGISTER"}

    filename_ext = ".pak"
    filter_glob: StringProperty(default="*.pak", options={"HIDDEN"})
    source: StringProperty(name="Original archive", description="The archive the objects were imported from", subtype="FILE_PATH")
    overwrite: BoolProperty(
        name="Overwrite original",
        description="Allow writing over the original archive (its files are replaced only once the new ones are whole)",
        default=False,
    )

    def invoke(self, context, event):
        if not self.source:
            self.source = source_of_context(context)
        if not self.source:
            self.report({"ERROR"}, "nothing here was imported from an archive")
            return {"CANCELLED"}
        self.filepath = default_output(self.source)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        source = self.source or source_of_context(context)
        if not source:
            self.report({"ERROR"}, "nothing here was imported from an archive")
            return {"CANCELLED"}
        try:
            s = save_into_archive(context.scene, source, self.filepath, self.overwrite)
        except exporter.Refused as r:
            return exporter.refuse(self, context, r)
        except (sylcol.SylcolError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            context.window_manager.sylcol_report = str(e)
            return {"CANCELLED"}
        text = summary_text(s)
        context.window_manager.sylcol_report = text
        self.report({"INFO"} if s["ok"] else {"ERROR"}, text)
        return {"FINISHED"} if s["ok"] else {"CANCELLED"}


CLASSES = (SYLCOL_OT_save_into_archive,)
