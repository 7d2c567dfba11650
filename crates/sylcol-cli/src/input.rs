//! FILE arguments, through the library's front door ([`sylcol::source`]):
//! the [`Opener`] `main` makes once from `--names` and passes down in
//! [`crate::Context`]. Only the error type is the CLI's own (`anyhow`,
//! so that a command adds its context).

use sylcol::source::Objects;
pub use sylcol::source::{Input, Item, Opener, is_archive, read_file};

/// Every object a FILE argument holds (each entry of a whole archive, in
/// index order), one result each: [`Opener::objects`].
pub fn inputs(open: &Opener, path: &str) -> anyhow::Result<Inputs> {
    Ok(Inputs(open.objects(path)?))
}

/// The objects of a FILE argument; see [`inputs`].
pub struct Inputs(Objects);

impl Inputs {
    /// The archive being walked, if the FILE was one.
    pub fn archive(&self) -> Option<&sylcol_format::ipfb::Archive> {
        self.0.archive()
    }
}

impl Iterator for Inputs {
    type Item = anyhow::Result<Item>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.0.next()?.map_err(anyhow::Error::from))
    }
}
