//! Queries as words and answers as JSON: the line format of
//! `sylcol query FILE batch`, and the answer record every query command
//! prints.
//!
//! One query a line, vectors as `X,Y,Z`:
//!
//! ```text
//! ray OX,OY,OZ DX,DY,DZ [MAX]
//! segment AX,AY,AZ BX,BY,BZ
//! inside PX,PY,PZ
//! closest PX,PY,PZ
//! sphere CX,CY,CZ R [MX,MY,MZ]
//! ```

use glam::Vec3;

use super::Collider;
use crate::error::QueryError;
use crate::query::{Ray, RayHit, SphereContact};

/// One query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Query {
    /// First crossing of a ray with 0 < t <= max.
    Ray {
        /// The ray.
        ray: Ray,
        /// Largest time of impact (infinite by default).
        max: f32,
    },
    /// First crossing of a segment.
    Segment {
        /// Start.
        from: Vec3,
        /// End.
        to: Vec3,
    },
    /// Inside the closed hull?
    Inside {
        /// The point.
        point: Vec3,
    },
    /// Nearest surface point.
    Closest {
        /// The point.
        point: Vec3,
    },
    /// A sphere, moving by `motion` (zero: standing still).
    Sphere {
        /// Centre.
        centre: Vec3,
        /// Radius.
        radius: f32,
        /// Motion (zero for an overlap test).
        motion: Vec3,
    },
}

// With the feature `serde`: `Serialize`, and `JsonSchema` for its JSON
// Schema (whose description is the doc comment below).
/// The answer to one query; absent fields are left out of the JSON.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, schemars::JsonSchema))]
pub struct Answer {
    /// The query's kind: `ray`, `segment`, `inside`, `closest`, `sphere`.
    pub query: &'static str,
    /// Whether the ray, segment or sphere touched the surface.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub hit: Option<bool>,
    /// Parameter of the first contact.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub time_of_impact: Option<f32>,
    /// Contact / nearest point.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub point: Option<[f32; 3]>,
    /// Unit normal at the contact.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub normal: Option<[f32; 3]>,
    /// Triangle touched.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub triangle: Option<u32>,
    /// Containment.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub inside: Option<bool>,
    /// Unsigned distance to the surface.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub distance: Option<f32>,
}

/// A line that is not a query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// Parses `X,Y,Z` (three finite-or-not f32 values; checks come later).
pub fn parse_vec3(s: &str) -> Result<Vec3, ParseError> {
    let parts: Vec<&str> = s.split(',').collect();
    let [x, y, z] = parts.as_slice() else {
        return Err(ParseError(format!("`{s}` is not X,Y,Z")));
    };
    let num = |p: &str| {
        p.trim()
            .parse::<f32>()
            .map_err(|_| ParseError(format!("`{p}` in `{s}` is not a number")))
    };
    Ok(Vec3::new(num(x)?, num(y)?, num(z)?))
}

fn parse_f32(s: &str) -> Result<f32, ParseError> {
    s.parse()
        .map_err(|_| ParseError(format!("`{s}` is not a number")))
}

impl std::str::FromStr for Query {
    type Err = ParseError;

    /// Parses one batch line (see the module docs).
    fn from_str(line: &str) -> Result<Query, ParseError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let v = parse_vec3;
        Ok(match words.as_slice() {
            ["ray", o, d] => Query::Ray {
                ray: Ray::new(v(o)?, v(d)?),
                max: f32::INFINITY,
            },
            ["ray", o, d, m] => Query::Ray {
                ray: Ray::new(v(o)?, v(d)?),
                max: parse_f32(m)?,
            },
            ["segment", a, b] => Query::Segment {
                from: v(a)?,
                to: v(b)?,
            },
            ["inside", p] => Query::Inside { point: v(p)? },
            ["closest", p] => Query::Closest { point: v(p)? },
            ["sphere", c, r] => Query::Sphere {
                centre: v(c)?,
                radius: parse_f32(r)?,
                motion: Vec3::ZERO,
            },
            ["sphere", c, r, m] => Query::Sphere {
                centre: v(c)?,
                radius: parse_f32(r)?,
                motion: v(m)?,
            },
            [kind, ..] => {
                return Err(ParseError(format!(
                    "`{kind}` with {} arguments is not a query (ray, segment, inside, closest, sphere)",
                    words.len() - 1
                )));
            }
            [] => return Err(ParseError("empty query".into())),
        })
    }
}

impl Answer {
    fn empty(query: &'static str) -> Self {
        Answer {
            query,
            hit: None,
            time_of_impact: None,
            point: None,
            normal: None,
            triangle: None,
            inside: None,
            distance: None,
        }
    }

    fn from_hit(query: &'static str, h: Option<RayHit>) -> Self {
        let mut a = Answer::empty(query);
        a.hit = Some(h.is_some());
        if let Some(h) = h {
            a.time_of_impact = Some(h.time_of_impact);
            a.point = Some(h.point.to_array());
            a.normal = Some(h.normal.to_array());
            a.triangle = Some(h.triangle);
        }
        a
    }

    fn from_contact(c: Option<SphereContact>) -> Self {
        let hit = c.map(|c| RayHit {
            time_of_impact: c.time_of_impact,
            point: c.point,
            normal: c.normal,
            triangle: c.triangle,
        });
        Answer::from_hit("sphere", hit)
    }

    /// One human-readable line.
    pub fn text(&self) -> String {
        let v = |p: [f32; 3]| format!("({}, {}, {})", p[0], p[1], p[2]);
        if let Some(inside) = self.inside {
            return if inside { "inside" } else { "outside" }.to_string();
        }
        if let Some(d) = self.distance {
            let (p, t) = (self.point.unwrap_or_default(), self.triangle.unwrap_or(0));
            return format!("distance {d} to triangle {t} at {}", v(p));
        }
        match (
            self.hit,
            self.time_of_impact,
            self.point,
            self.normal,
            self.triangle,
        ) {
            (Some(true), Some(t), Some(p), Some(n), Some(tri)) => format!(
                "hit triangle {tri} at t = {t}, point {}, normal {}",
                v(p),
                v(n)
            ),
            (Some(false), ..) => "no hit".to_string(),
            _ => "no surface".to_string(),
        }
    }
}

impl Collider {
    /// Answers one query.
    pub fn answer(&self, q: &Query) -> Result<Answer, QueryError> {
        Ok(match *q {
            Query::Ray { ray, max } => Answer::from_hit("ray", self.cast_ray(&ray, max)?),
            Query::Segment { from, to } => {
                Answer::from_hit("segment", self.cast_segment(from, to)?)
            }
            Query::Inside { point } => Answer {
                inside: Some(self.contains_point(point)?),
                ..Answer::empty("inside")
            },
            Query::Closest { point } => {
                let mut a = Answer::empty("closest");
                if let Some(c) = self.closest_point(point)? {
                    a.distance = Some(c.distance);
                    a.point = Some(c.point.to_array());
                    a.triangle = Some(c.triangle);
                }
                a
            }
            Query::Sphere {
                centre,
                radius,
                motion,
            } => Answer::from_contact(self.sweep_sphere(centre, radius, motion)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::cuboid;

    #[test]
    fn lines_parse() {
        let q: Query = "ray 1,2,3 0,0,-1 5".parse().unwrap();
        assert_eq!(
            q,
            Query::Ray {
                ray: Ray::new(Vec3::new(1.0, 2.0, 3.0), -Vec3::Z),
                max: 5.0
            }
        );
        let s: Query = "sphere 0,0,0 2".parse().unwrap();
        assert!(matches!(
            s,
            Query::Sphere {
                radius: 2.0,
                motion: Vec3::ZERO,
                ..
            }
        ));
        assert!("ray 1,2 0,0,1".parse::<Query>().is_err());
        assert!("walk 1,2,3".parse::<Query>().is_err());
        assert!("inside 1,x,3".parse::<Query>().is_err());
    }

    #[test]
    fn answers_serialise_with_the_contract_keys() {
        let c = Collider::from_mesh(&cuboid(Vec3::splat(-1.0), Vec3::ONE)).unwrap();
        let a = c.answer(&"ray 0,0,0 1,0,0".parse().unwrap()).unwrap();
        let j = serde_json::to_value(a).unwrap();
        assert_eq!(j["hit"], true);
        assert_eq!(j["time_of_impact"], 1.0);
        assert_eq!(j["point"], serde_json::json!([1.0, 0.0, 0.0]));
        assert_eq!(j["normal"], serde_json::json!([1.0, 0.0, 0.0]));
        assert!(j["triangle"].is_u64());
        assert_eq!(
            a.text(),
            format!(
                "hit triangle {} at t = 1, point (1, 0, 0), normal (1, 0, 0)",
                j["triangle"]
            )
        );
        let i = c.answer(&"inside 0,0,0".parse().unwrap()).unwrap();
        assert_eq!(
            serde_json::to_string(&i).unwrap(),
            r#"{"query":"inside","inside":true}"#
        );
        let d = c.answer(&"closest 3,0,0".parse().unwrap()).unwrap();
        assert_eq!(d.distance, Some(2.0));
        let miss = c.answer(&"segment 2,2,2 3,3,3".parse().unwrap()).unwrap();
        assert_eq!(miss.text(), "no hit");
    }
}
