"""Save into archive: the maps and libraries imported from an archive,
built back, written into a copy of that archive.

Every entry of the original is carried over (by hash, in index order,
compressed as it was); an entry whose object was imported is replaced by
what the object builds to when that differs from its bytes; a replaced
library also replaces every entry holding the same bytes (the disc's
eighteen copies) unless told not to. The new archive is written by
`sylcol.write_archive` (temporary files renamed into place together),
never over the original unless `overwrite` is set, and then read back:
every entry must be there with the bytes meant for it, and every
replaced entry must pass `verify`.
"""

import os

import bpy
import sylcol
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import exporter, keys
from .importer import open_pak


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


def plan(scene, source, all_copies=True):
    """(entries to write, {hash hex: (what, new bytes)} replaced, names of
    unchanged objects). Raises exporter.Refused for a mesh the hull checks
    refuse."""
    pak = open_pak(source)
    original = {f"{e.hash:08X}": e for e in pak}
    replaced, unchanged = {}, []
    for key, kind, thing in sources_in(scene, source):
        if key not in original:
            raise sylcol.NotFoundError(f"{source}: no entry ${key} (imported as {thing.name})", source, None, "not_found")
        data = exporter.map_bytes(thing) if kind == keys.MAP else exporter.library_bytes(thing)
        old = original[key].read()
        if data == old:
            unchanged.append(thing.name)
            continue
        replaced[key] = (thing.name, data)
        if all_copies and kind == keys.LIBRARY:
            for other, e in original.items():
                if other not in replaced and e.size == len(old) and e.read() == old:
                    replaced[other] = (f"{thing.name} (copy)", data)
    entries = []
    for key, e in original.items():
        data = replaced[key][1] if key in replaced else e.read()
        entries.append((int(key, 16), data, bool(e.compressed)))
    return entries, replaced, unchanged


def check_written(path, entries, replaced):
    """Reads the written archive back: the same entries with the bytes
    meant for them; each replaced entry verified. Returns the verify
    reports of the replaced entries; raises ValueError on a mismatch."""
    pak = sylcol.open_archive(path)
    got = {e.hash: e for e in pak}
    if sorted(got) != sorted(h for h, _, _ in entries):
        raise ValueError(f"{path}: the index holds other entries than were written")
    reports = {}
    for h, data, _ in entries:
        if got[h].read() != data:
            raise ValueError(f"{path}: entry ${h:08X} reads back other bytes than were written")
        key = f"{h:08X}"
        if key in replaced:
            reports[key] = got[h].decode().verify()
    return reports


def save_into_archive(scene, source, output, overwrite=False, all_copies=True):
    """Writes the copy and checks it; returns a summary dict."""
    if same_file(source, output) and not overwrite:
        raise PermissionError(f"{output}: is the original archive; choose another path or tick Overwrite original")
    entries, replaced, unchanged = plan(scene, source, all_copies)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    written = sylcol.write_archive(output, entries)
    reports = check_written(output, entries, replaced)
    failed = sorted(k for k, r in reports.items() if not r["ok"])
    return {
        "output": output,
        "entries": written["entries"],
        "parts": written["parts"],
        "replaced": {k: name for k, (name, _) in replaced.items()},
        "unchanged": unchanged,
        "verify_failed": failed,
        "ok": not failed,
    }


def summary_text(s):
    what = ", ".join(sorted(set(s["replaced"].values()))) or "nothing changed"
    verdict = "verify ok" if s["ok"] else f"verify FAILED for {', '.join('$' + k for k in s['verify_failed'])}"
    return f"{s['output']}: {s['entries']} entries, {len(s['replaced'])} replaced ({what}); {verdict}"


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
    all_copies: BoolProperty(
        name="Every copy of a library",
        description="Also replace the entries that hold the same bytes as a replaced library (the disc's eighteen copies)",
        default=True,
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
            s = save_into_archive(context.scene, source, self.filepath, self.overwrite, self.all_copies)
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
