//! The uniform grid an MCOL map is bucketed by, and building its cell
//! lists: the query engine's ([`sylcol_query::geometry::grid`]), and the
//! grid an MCOL header describes ([`SpecFromHeader`]).

use glam::DVec3;
use sylcol_format::mcol::Header;

pub use sylcol_query::geometry::grid::*;

/// The grid of an MCOL header: `GridSpec::from_header(&header)` (with
/// this trait in scope; `use sylcol::prelude::*` brings it).
pub trait SpecFromHeader {
    /// The grid an MCOL header describes: its box's minimum corner, its
    /// cell size per axis and its cells per axis, as stored.
    fn from_header(h: &Header) -> Self;
}

impl SpecFromHeader for GridSpec {
    fn from_header(h: &Header) -> Self {
        GridSpec {
            origin: DVec3::from_array(h.prefix.bbox_min.map(f64::from)),
            cell: DVec3::from_array(h.prefix.cell_size.map(f64::from)),
            dims: h.dims(),
        }
    }
}
