//! An object a FILE argument names: its name and bytes ([`Input`]), or
//! why it was not held whole ([`Item`]).

use std::sync::Arc;

use sylcol_format::{AnyError, Object, decode_any};

use crate::errors::ObjectError;

/// An object: how it is named and its bytes.
#[derive(Debug, Clone)]
pub struct Input {
    /// How to name it in messages and reports (the path, or
    /// `ARCHIVE.pak+ENTRY.MAGIC`).
    pub name: String,
    /// The whole object (shared by the index rows that point at its
    /// stored bytes).
    pub bytes: Arc<Vec<u8>>,
}

impl Input {
    /// Decodes the object, whatever format it is.
    pub fn decode(&self) -> Result<Object, ObjectError> {
        decode_any(&self.bytes).map_err(|error| ObjectError {
            path: self.name.clone(),
            error,
        })
    }
}

/// One object of a FILE argument, sniffed (see the module docs).
#[derive(Debug)]
pub enum Item {
    /// Read whole: it may be a format sylcol decodes.
    Whole(Input),
    /// Its first bytes show no format sylcol decodes, or it declares more
    /// bytes than sylcol holds of it: never held whole (in an archive walk
    /// a Z1 entry of another format is still inflated into nothing, to
    /// check it). The error is what decoding it whole would say, or
    /// [`AnyError::TooLarge`].
    Other(ObjectError),
}

impl Item {
    /// The object read whole, or why it is no format sylcol decodes.
    pub fn whole(self) -> Result<Input, ObjectError> {
        match self {
            Item::Whole(input) => Ok(input),
            Item::Other(e) => Err(e),
        }
    }

    /// The object decoded (see [`Input::decode`]), with its input.
    pub fn decode(self) -> Result<(Input, Object), ObjectError> {
        let input = self.whole()?;
        let object = input.decode()?;
        Ok((input, object))
    }

    /// An item named `name` from what reading an object gave.
    pub(super) fn of(name: String, read: Result<Vec<u8>, AnyError>) -> Item {
        match read {
            Ok(bytes) => Item::Whole(Input {
                name,
                bytes: Arc::new(bytes),
            }),
            Err(error) => Item::Other(ObjectError { path: name, error }),
        }
    }
}
