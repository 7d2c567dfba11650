//! The front door: what a user's FILE argument names, as named objects.
//!
//! Every front (the CLI, the Python package, the viewer's server) turns
//! what a user gives into objects here, so that all of them name, cap and
//! refuse alike. A FILE is a path on disk, or `ARCHIVE.pak+INNER` — the
//! game's own way to name a file inside an archive
//! (`dat\tables.pak+eng\GP_TITLE.tbl`). INNER is a name (`\` or `/`,
//! hashed as `\`, any letter case) or `$XXXXXXXX`, optionally followed by
//! `.MAGIC`. [`Opener::objects`] walks every entry of a whole `.pak`, one
//! result per entry, so one bad entry does not stop the rest. `-` reads
//! standard input (at most [`MAX_STREAM`] bytes); [`from_bytes`] takes
//! bytes a caller holds, and [`Opener::objects_in`] the files of a
//! [`MemoryFolder`] (a browser page's dropped files) as if on disk.
//!
//! Archives are opened with a [`NameList`]: the built-in names, the
//! names the user gave, a `names.txt` beside the archive and its cache
//! entry; the [`Opener`] remembers where each archive's names came from
//! ([`Opener::names_used`]), for every front to say it.
//!
//! [`Opener::object`] and [`Opener::objects`] hold an object whole only
//! when its first bytes show a format sylcol decodes
//! (`sylcol_format::sniff`) and its declared size is within what its
//! header allows and the budget of one object (`sylcol_format::budget`);
//! any other is refused from its first bytes, so a 1 GiB entry costs a
//! fixed buffer, not 1 GiB. What is held is reserved with `try_reserve`:
//! memory that cannot be had is an error naming the object. In a whole
//! archive, index rows that point at one stored stream share one read of
//! it ([`shared`]).
//!
//! A collider is made from an object by [`ColliderSpec`] ([`spec`]), the
//! one reading of the grid and acceleration choices.

mod error;
mod item;
mod memory;
mod names;
mod open;
mod parts;
mod read;
pub mod shared;
pub mod spec;

pub use error::SourceError;
pub use item::{Input, Item};
pub use memory::MemoryFolder;
pub use names::{NAMES_BESIDE, NameList, cache_file, keep};
pub use open::{Objects, Opener, from_bytes};
pub use parts::{MissingPart, missing_parts, part_hint};
pub use read::{MAX_STREAM, is_archive, read_file};
pub use spec::{Accel, ColliderSpec, Grid, SpecError};

#[cfg(test)]
mod tests;
