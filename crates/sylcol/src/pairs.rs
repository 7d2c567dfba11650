//! Which REGN goes with which MCOL: by name when both entries are named
//! with one stem (`X.rgn` / `X.col`), else by an identical grid (bbox, cell
//! size and dimensions) that no other candidate shares. The write-ups only
//! know the two formats' distributions match; this makes the pairing an
//! object-to-object fact where the evidence allows, and says where it does
//! not (docs/formats/regn.md).

use std::collections::BTreeMap;

use sylcol_format::grid_prefix::GridPrefix;
use sylcol_format::mcol::Mcol;
use sylcol_format::regn::{self, Regn};

/// What identifies a map's volume: the header prefix MCOL and REGN share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Bbox minimum.
    pub bbox_min: [f32; 3],
    /// Bbox maximum.
    pub bbox_max: [f32; 3],
    /// Cell size per axis.
    pub cell_size: [f32; 3],
    /// Cells per axis, when the object states them readably.
    pub dims: Option<[u64; 3]>,
}

impl Grid {
    /// An MCOL's grid (dimensions from its 0x70 bytes).
    pub fn of_mcol(m: &Mcol) -> Grid {
        Grid::of_prefix(&m.header.prefix, Some(m.header.dims().map(|n| n as u64)))
    }

    /// A REGN's grid (dimensions when a reading of 0x50 matches its bbox
    /// and cell size, see [`regn::grid_reading`]).
    pub fn of_regn(r: &Regn) -> Grid {
        Grid::of_prefix(&r.header.prefix, regn::grid_reading(r).map(|g| g.dims))
    }

    /// The grid of a shared header prefix with the dimensions its format
    /// states.
    fn of_prefix(p: &GridPrefix, dims: Option<[u64; 3]>) -> Grid {
        Grid {
            bbox_min: p.bbox_min,
            bbox_max: p.bbox_max,
            cell_size: p.cell_size,
            dims,
        }
    }

    /// The bit patterns compared: identical means bit-identical floats.
    fn key(&self) -> ([u32; 9], Option<[u64; 3]>) {
        let mut k = [0u32; 9];
        for i in 0..3 {
            k[i] = self.bbox_min[i].to_bits();
            k[3 + i] = self.bbox_max[i].to_bits();
            k[6 + i] = self.cell_size[i].to_bits();
        }
        (k, self.dims)
    }

    /// `min..max, cell C, grid NxNxN` in words.
    pub fn describe(&self) -> String {
        let axis = |v: [f32; 3]| {
            if v[0] == v[1] && v[1] == v[2] {
                format!("{}", v[0])
            } else {
                format!("({}, {}, {})", v[0], v[1], v[2])
            }
        };
        let dims = self.dims.map_or_else(
            || "grid unreadable".into(),
            |d| format!("grid {}x{}x{}", d[0], d[1], d[2]),
        );
        format!(
            "bbox {}..{}, cell {}, {dims}",
            axis(self.bbox_min),
            axis(self.bbox_max),
            axis(self.cell_size)
        )
    }
}

/// One object to pair: how it is shown, its name if known, its grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Display name (`mapmesh_box_500km.rgn`, `$2CF7EB47.MCOL`).
    pub display: String,
    /// The entry's known name.
    pub name: Option<String>,
    /// Its grid.
    pub grid: Grid,
}

/// How a pair was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Both named with one stem.
    Name,
    /// The only MCOL left with an identical grid.
    Grid,
}

/// A REGN and its MCOL (indices into the inputs), and the evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// Index of the REGN.
    pub regn: usize,
    /// Index of the MCOL.
    pub mcol: usize,
    /// What paired them.
    pub by: By,
    /// Whether their grids are identical (always, when paired by grid).
    pub grids_agree: bool,
}

/// A REGN the evidence does not pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ambiguous {
    /// Index of the REGN.
    pub regn: usize,
    /// The unpaired MCOLs with an identical grid (several, or none).
    pub candidates: Vec<usize>,
    /// Other unpaired REGNs with the same grid.
    pub rivals: Vec<usize>,
}

/// The outcome of pairing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pairing {
    /// Pairs, by REGN index.
    pub pairs: Vec<Pair>,
    /// REGNs left unpaired, with why.
    pub ambiguous: Vec<Ambiguous>,
    /// MCOLs no REGN was paired with.
    pub unpaired_mcol: Vec<usize>,
}

/// The stem of a name with extension `ext` (`.rgn` / `.col`, any case),
/// lower-cased with `/` read as `\`.
fn stem(name: &str, ext: &str) -> Option<String> {
    let n = name.len().checked_sub(ext.len())?;
    (name.is_char_boundary(n) && name[n..].eq_ignore_ascii_case(ext))
        .then(|| name[..n].replace('/', "\\").to_ascii_lowercase())
}

/// Pairs every REGN with an MCOL where the evidence allows.
pub fn pair(regns: &[Object], mcols: &[Object]) -> Pairing {
    let mut out = Pairing::default();
    let mut mcol_taken = vec![false; mcols.len()];
    let mut regn_done = vec![false; regns.len()];
    let by_stem: BTreeMap<String, usize> = (mcols.iter().enumerate())
        .filter_map(|(i, m)| Some((stem(m.name.as_deref()?, ".col")?, i)))
        .collect();
    for (r, regn) in regns.iter().enumerate() {
        let found = regn
            .name
            .as_deref()
            .and_then(|n| stem(n, ".rgn"))
            .and_then(|s| by_stem.get(&s));
        if let Some(&m) = found
            && !mcol_taken[m]
        {
            mcol_taken[m] = true;
            regn_done[r] = true;
            out.pairs.push(Pair {
                regn: r,
                mcol: m,
                by: By::Name,
                grids_agree: regn.grid.key() == mcols[m].grid.key(),
            });
        }
    }
    let mut groups: BTreeMap<String, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    let key = |g: &Grid| format!("{:?}", g.key());
    for (r, regn) in regns.iter().enumerate().filter(|(r, _)| !regn_done[*r]) {
        groups.entry(key(&regn.grid)).or_default().0.push(r);
    }
    for (m, mcol) in mcols.iter().enumerate().filter(|(m, _)| !mcol_taken[*m]) {
        if let Some(g) = groups.get_mut(&key(&mcol.grid)) {
            g.1.push(m);
        }
    }
    for (rs, ms) in groups.into_values() {
        if let ([r], [m]) = (rs.as_slice(), ms.as_slice()) {
            mcol_taken[*m] = true;
            out.pairs.push(Pair {
                regn: *r,
                mcol: *m,
                by: By::Grid,
                grids_agree: true,
            });
            continue;
        }
        for &r in &rs {
            out.ambiguous.push(Ambiguous {
                regn: r,
                candidates: ms.clone(),
                rivals: rs.iter().copied().filter(|&o| o != r).collect(),
            });
        }
    }
    out.pairs.sort_by_key(|p| p.regn);
    out.ambiguous.sort_by_key(|a| a.regn);
    out.unpaired_mcol = (0..mcols.len()).filter(|&m| !mcol_taken[m]).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(half: f32, cell: f32) -> Grid {
        let n = (2.0 * half / cell) as u64;
        Grid {
            bbox_min: [-half; 3],
            bbox_max: [half; 3],
            cell_size: [cell; 3],
            dims: Some([n; 3]),
        }
    }

    fn obj(name: Option<&str>, g: Grid) -> Object {
        Object {
            display: name.unwrap_or("$?").into(),
            name: name.map(str::to_string),
            grid: g,
        }
    }

    #[test]
    fn names_first_then_the_only_identical_grid() {
        let (box_, small, mid) = (
            grid(250_000.0, 50_000.0),
            grid(25_000.0, 10_000.0),
            grid(50_000.0, 10_000.0),
        );
        let mcols = [
            obj(Some("mapmesh_box_500km.col"), box_),
            obj(None, box_),
            obj(None, small),
            obj(Some("dat/S01.col"), mid),
            obj(None, mid),
            obj(None, mid),
        ];
        let regns = [
            obj(None, box_),
            obj(Some("MAPMESH_BOX_500KM.RGN"), box_),
            obj(None, small),
            obj(Some("dat\\s01.rgn"), mid),
            obj(None, mid),
            obj(None, mid),
        ];
        let p = pair(&regns, &mcols);
        let got: Vec<(usize, usize, By)> = p.pairs.iter().map(|p| (p.regn, p.mcol, p.by)).collect();
        assert_eq!(
            got,
            [
                (0, 1, By::Grid),
                (1, 0, By::Name),
                (2, 2, By::Grid),
                (3, 3, By::Name)
            ]
        );
        assert!(p.pairs.iter().all(|p| p.grids_agree));
        // Two REGNs and two MCOLs on one grid: no evidence picks either.
        assert_eq!(p.ambiguous.len(), 2);
        assert_eq!(p.ambiguous[0].candidates, [4, 5]);
        assert_eq!(p.ambiguous[0].rivals, [5]);
        assert_eq!(p.unpaired_mcol, [4, 5]);
    }

    #[test]
    fn a_name_pair_reports_disagreeing_grids_and_a_lone_regn_has_no_candidate() {
        let mcols = [obj(Some("a.col"), grid(50_000.0, 10_000.0))];
        let regns = [
            obj(Some("a.rgn"), grid(25_000.0, 10_000.0)),
            obj(None, grid(1.0, 1.0)),
        ];
        let p = pair(&regns, &mcols);
        assert_eq!(p.pairs.len(), 1);
        assert!(!p.pairs[0].grids_agree);
        assert_eq!(p.ambiguous[0].candidates, Vec::<usize>::new());
        assert_eq!(grid(1.0, 1.0).describe(), "bbox -1..1, cell 1, grid 2x2x2");
    }
}
