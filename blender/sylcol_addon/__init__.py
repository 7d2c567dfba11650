"""sylcol for Blender: import Project Sylpheed's collision files (from the
game's archive or loose), edit them, export them back or save them into
a copy of the archive; verify, rays and cells in the sidebar.

Everything is done by the bundled `sylcol` package (its wheel is listed
in blender_manifest.toml); this add-on only moves arrays between sylcol
and Blender. docs/blender.md in the repository is its manual.
"""

import bpy
from bpy.props import IntProperty, StringProperty

from . import archive, exporter, importer, panel

CLASSES = importer.CLASSES + exporter.CLASSES + archive.CLASSES + panel.CLASSES


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(importer.menu_import)
    bpy.types.TOPBAR_MT_file_export.append(exporter.menu_export)
    bpy.types.Object.sylcol_verify = StringProperty(description="The last verify report (JSON)", options={"SKIP_SAVE"})
    bpy.types.Collection.sylcol_verify = StringProperty(description="The last verify report (JSON)", options={"SKIP_SAVE"})
    bpy.types.WindowManager.sylcol_report = StringProperty(description="What the last sylcol operation said")
    bpy.types.WindowManager.sylcol_hit = IntProperty(description="The triangle the last ray hit (-1: none)", default=-1)


def unregister():
    del bpy.types.WindowManager.sylcol_hit
    del bpy.types.WindowManager.sylcol_report
    del bpy.types.Collection.sylcol_verify
    del bpy.types.Object.sylcol_verify
    bpy.types.TOPBAR_MT_file_export.remove(exporter.menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(importer.menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
