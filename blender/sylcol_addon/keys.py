"""The custom properties the add-on stores on what it imports.

They are ordinary ID properties (Object > Custom Properties), so they
travel with the .blend file and the user can read them. Hashes are hex
strings: Blender's integer properties are signed 32-bit.
"""

KIND = "sylcol_kind"  # "MCOL", "CollisionSet", "part", "REGN"
ARCHIVE = "sylcol_archive"  # absolute path of the .pak, "" for a loose file
ENTRY = "sylcol_entry"  # the entry as sylcol shows it (name or $HASH.MAGIC)
HASH = "sylcol_hash"  # the entry's hash, 8 hex digits ("" for a loose file)
FILE = "sylcol_file"  # a loose file's path ("" for an archive entry)
BBOX_MIN = "sylcol_bbox_min"
BBOX_MAX = "sylcol_bbox_max"
CELL = "sylcol_cell_size"
GRID = "sylcol_grid"
VERTICES = "sylcol_vertices"  # counts at import
TRIANGLES = "sylcol_triangles"
ENDIAN = "sylcol_endian"  # a library's byte order
RECORD = "sylcol_record"  # a part's record name
INDEX = "sylcol_index"  # a part's record number
LAYER = "sylcol_layer"  # on a debug layer's collection and object: its name
DISPLAY = "sylcol_display"  # the object transform import gave (display only)

MAP, LIBRARY, PART, REGN = "MCOL", "CollisionSet", "part", "REGN"


def source_of(idb):
    """(archive, entry hash or None, loose file) of an imported ID."""
    return idb.get(ARCHIVE, ""), idb.get(HASH, "") or None, idb.get(FILE, "")
