//! `sylcol query FILE <ray|segment|inside|sphere|closest|batch|grid>`:
//! runtime collision queries through the map's own grid.

use std::io::{BufRead, Read, Write};

use anyhow::{Context as _, bail};
use glam::Vec3;
use sylcol::query::script::parse_vec3;
use sylcol::query::{Collider, Query, Ray};
use sylcol::report::error::{ErrorKind, ErrorReport, ReadError, Unsupported, UsageError};
use sylcol::report::query::{grid_fit, inside_refusal};
use sylcol::report::schema::BatchLine;
use sylcol::source::spec::{PickError, target};
use sylcol::source::{Accel, ColliderSpec, Grid, SpecError};

use crate::input::Input;
use crate::{Context, Outcome, print};

/// Arguments of `sylcol query`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: an MCOL (or a CollisionSet with --mesh),
    /// `ARCHIVE.pak+INNER`, or `-` (standard input).
    pub file: String,
    /// For a CollisionSet: the name of the mesh to query.
    #[arg(long, global = true)]
    pub mesh: Option<String>,
    /// The grid to walk: `file` (the map's own), `derived` (sized for the
    /// mesh), or a number of cells along the longest axis. Default: the
    /// map's own, a derived one for a CollisionSet mesh (which has none).
    #[arg(long, global = true, value_parser = grid)]
    pub grid: Option<Grid>,
    /// What rays, segments, sphere sweeps and nearest points go through:
    /// `grid` (the grid above) or `bvh` (sylcol's own acceleration, an
    /// eight-wide BVH built from the mesh). `inside` always uses the grid.
    /// (The rays of a mesh of at most 64 triangles skip the grid either
    /// way.)
    #[arg(long, global = true, value_parser = AccelParser, default_value = "grid")]
    pub accel: Accel,
    #[command(subcommand)]
    pub query: Kind,
}

fn grid(s: &str) -> Result<Grid, SpecError> {
    s.parse()
}

/// `--accel`: the library's parser, with its spellings offered to help
/// and shell completion.
#[derive(Clone)]
struct AccelParser;

impl clap::builder::TypedValueParser for AccelParser {
    type Value = Accel;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Accel, clap::Error> {
        let parse = |s: &str| s.parse::<Accel>();
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use clap::builder::PossibleValue;
        Some(Box::new(
            [
                PossibleValue::new("grid").help("The grid chosen by `--grid`"),
                PossibleValue::new("bvh").help("An eight-wide BVH built from the mesh"),
            ]
            .into_iter(),
        ))
    }
}

/// The long help of `query FILE batch`: the line format.
const BATCH_HELP: &str = "\
Many queries, one a line; one JSON answer a line out, in order.

A line is one of:

  ray OX,OY,OZ DX,DY,DZ [MAX]
  segment AX,AY,AZ BX,BY,BZ
  inside PX,PY,PZ
  closest PX,PY,PZ
  sphere CX,CY,CZ R [MX,MY,MZ]

Blank lines and lines starting with `#` are skipped. Each answer is what
the single query prints with `--json`; a bad line is answered in its place
by `{\"line\": N, \"error\": {...}}` and the others still run (exit status 2
at the end). Example:

  printf 'ray 0,0,0 1,0,0\\ninside 0,0,0\\n' | sylcol query MAP batch -";

/// The query to run.
#[derive(clap::Subcommand)]
pub enum Kind {
    /// First surface crossing of a ray (t > 0, t <= --max).
    Ray {
        /// Ray origin X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        origin: Vec3,
        /// Ray direction X,Y,Z (not normalised: t is in its units).
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        dir: Vec3,
        /// Largest time of impact.
        #[arg(long, allow_hyphen_values = true)]
        max: Option<f32>,
    },
    /// First surface crossing of a segment (t in (0, 1]).
    Segment {
        /// Start X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        from: Vec3,
        /// End X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        to: Vec3,
    },
    /// Whether a point lies inside the closed hull (or on it).
    Inside {
        /// The point X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        point: Vec3,
    },
    /// A sphere: does it touch the surface, or where does it first touch
    /// it moving by --motion.
    Sphere {
        /// Centre X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        centre: Vec3,
        /// Radius (>= 0).
        #[arg(long, allow_hyphen_values = true)]
        radius: f32,
        /// Motion X,Y,Z (default: none).
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        motion: Option<Vec3>,
    },
    /// The nearest surface point and the unsigned distance to it.
    Closest {
        /// The point X,Y,Z.
        #[arg(long, allow_hyphen_values = true, value_parser = vec3)]
        point: Vec3,
    },
    /// Many queries, one a line; one JSON answer a line out, in order.
    #[command(long_about = BATCH_HELP)]
    Batch {
        /// The file of queries, one a line (`-`: standard input).
        queries: String,
    },
    /// How well the grid fits the mesh: list lengths, coverage, and
    /// triangles missing from cells they touch.
    Grid,
}

fn vec3(s: &str) -> Result<Vec3, String> {
    parse_vec3(s).map_err(|e| e.to_string())
}

/// Runs the command.
pub fn run(args: Args, ctx: Context) -> anyhow::Result<Outcome> {
    if matches!(&args.query, Kind::Batch { queries } if queries == "-") && args.file == "-" {
        bail!(UsageError(
            "the map and the queries cannot both come from standard input".into()
        ));
    }
    let input = ctx.open.object(&args.file)?.whole()?;
    let spec = ColliderSpec {
        grid: args.grid,
        accel: args.accel,
    };
    let collider = load(&input, args.mesh.as_deref(), spec)?;
    let name = match &args.mesh {
        Some(mesh) => format!("{}+{mesh}", input.name),
        None => input.name.clone(),
    };
    let query = match args.query {
        Kind::Batch { queries } => return batch(&collider, &queries, ctx),
        Kind::Grid => {
            let fit = grid_fit(&name, &collider);
            print::report(ctx, &fit, || fit.text())?;
            return Ok(Outcome::Ok);
        }
        Kind::Ray { origin, dir, max } => Query::Ray {
            ray: Ray::new(origin, dir),
            max: max.unwrap_or(f32::INFINITY),
        },
        Kind::Segment { from, to } => Query::Segment { from, to },
        Kind::Inside { point } => Query::Inside { point },
        Kind::Closest { point } => Query::Closest { point },
        Kind::Sphere {
            centre,
            radius,
            motion,
        } => Query::Sphere {
            centre,
            radius,
            motion: motion.unwrap_or(Vec3::ZERO),
        },
    };
    if let Query::Inside { .. } = query
        && let Some(detail) = inside_refusal(&collider)
    {
        bail!(Unsupported { path: name, detail });
    }
    let answer = collider
        .answer(&query)
        .with_context(|| format!("{}: bad query", input.name))?;
    if ctx.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!("{}", sylcol_format::text::escape_lines(&answer.text()));
    }
    Ok(Outcome::Ok)
}

/// The collider `spec` makes over `input` (its part `mesh`, for a
/// library), the flag named where the library's error says "a part".
fn load(input: &Input, mesh: Option<&str>, spec: ColliderSpec) -> anyhow::Result<Collider> {
    let object = input.decode()?;
    let target = target(&input.name, &object, mesh).map_err(|e| match e {
        PickError::MapHasNoParts { path, mesh } => anyhow::Error::new(Unsupported {
            path,
            detail: format!("--mesh {mesh} picks a CollisionSet mesh, but this is an MCOL"),
        }),
        PickError::NoPartNamed { path, records } => anyhow::Error::new(UsageError(format!(
            "{path}: a CollisionSet holds {records} meshes; pick one with --mesh NAME (`sylcol info` lists them)"
        ))),
        other => other.into(),
    })?;
    let name = match mesh {
        Some(mesh) => format!("{}+{mesh}", input.name),
        None => input.name.clone(),
    };
    Ok(spec.collider(&name, target)?)
}

/// Lines answered together at most (one call of `answer_many`).
const BATCH_BLOCK: usize = 65_536;

/// The longest query line, in bytes with its newline (a query is a few
/// dozen): a longer one is answered with an error, and no line, however
/// long, is held in memory whole.
const MAX_LINE: u64 = 64 * 1024;

/// Answers every line of `path` in order, in blocks answered on every
/// core (`Collider::answer_many`); a bad line becomes `{"line": N,
/// "error": {...}}` in its place and the exit status is 2 at the end. A
/// block ends when the input has no more lines ready, so a caller feeding
/// standard input a line at a time gets each answer at once.
fn batch(c: &Collider, path: &str, ctx: Context) -> anyhow::Result<Outcome> {
    let source: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|error| ReadError {
            path: path.to_string(),
            error,
        })?)
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, source);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut bad = 0usize;
    let mut block = Block::default();
    // Why `inside` lines are refused, worked out at the first one.
    let refusal = std::cell::OnceCell::new();
    let inside_refused = || refusal.get_or_init(|| inside_refusal(c)).clone();
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("{path}: cannot read line {}", number + 1))?;
        if read > 0 {
            number += 1;
            if read as u64 == MAX_LINE && line.last() != Some(&b'\n') {
                // The rest of an over-long line is read and dropped (an
                // endless one, such as /dev/zero, is read forever, in
                // constant memory).
                reader
                    .skip_until(b'\n')
                    .with_context(|| format!("{path}: cannot read line {number}"))?;
                block.refuse(number, format!("line is longer than {MAX_LINE} bytes"));
            } else {
                match std::str::from_utf8(&line) {
                    Ok(text) => block.push(number, text.trim(), &inside_refused),
                    Err(e) => block.refuse(number, format!("line is not UTF-8: {e}")),
                }
            }
        }
        if read == 0 || block.len() >= BATCH_BLOCK || reader.buffer().is_empty() {
            bad += block.answer(c, path, &mut out)?;
            out.flush()?;
        }
        if read == 0 {
            break;
        }
    }
    if bad > 0 {
        print::errors(
            &[ErrorReport {
                message: format!(
                    "{path}: {bad} line(s) were not valid queries (answered with error objects)"
                ),
                path: Some(path.to_string()),
                offset: None,
                kind: ErrorKind::Query,
            }],
            ctx,
        );
        return Ok(Outcome::InputErrors);
    }
    Ok(Outcome::Ok)
}

/// Lines read but not yet answered: the parsed queries, and per line
/// (number, parse error or index into the queries).
#[derive(Default)]
struct Block {
    queries: Vec<Query>,
    lines: Vec<(usize, Result<usize, String>)>,
}

impl Block {
    fn len(&self) -> usize {
        self.lines.len()
    }

    /// Takes line `number`; blank lines and `#` comments are skipped, and
    /// an `inside` query is refused with `inside_refused()` when that says
    /// why.
    fn push(&mut self, number: usize, text: &str, inside_refused: &dyn Fn() -> Option<String>) {
        if text.is_empty() || text.starts_with('#') {
            return;
        }
        let entry = match text.parse::<Query>() {
            Ok(Query::Inside { .. }) if let Some(why) = inside_refused() => Err(why),
            Ok(q) => {
                self.queries.push(q);
                Ok(self.queries.len() - 1)
            }
            Err(e) => Err(e.to_string()),
        };
        self.lines.push((number, entry));
    }

    /// Takes line `number` as a bad line with `error`.
    fn refuse(&mut self, number: usize, error: String) {
        self.lines.push((number, Err(error)));
    }

    /// Answers the block in order, one JSON object a line; empties it and
    /// returns how many lines were bad.
    fn answer(&mut self, c: &Collider, path: &str, out: &mut impl Write) -> anyhow::Result<usize> {
        let answers = c.answer_many(&self.queries);
        let mut bad = 0;
        for (number, entry) in self.lines.drain(..) {
            let line = match entry.and_then(|i| answers[i].map_err(|e| e.to_string())) {
                Ok(a) => BatchLine::Answer(a),
                Err(message) => {
                    bad += 1;
                    BatchLine::Error {
                        line: number,
                        error: ErrorReport {
                            message,
                            path: Some(path.to_string()),
                            offset: None,
                            kind: ErrorKind::Query,
                        },
                    }
                }
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        }
        self.queries.clear();
        Ok(bad)
    }
}
