//! The peers table (issue 38): rays through sylcol's BVH against Embree's
//! `rtcIntersect1` (robust flag off: its fastest call; feature `embree`),
//! every CPU single-ray layout of tinybvh (feature `tinybvh`) and obvhs'
//! BVH2 and CWBVH (preset `slow`), on the same rays, with hits,
//! disagreements with sylcol, each peer's time over sylcol's and, per
//! family, its fastest tree's.
//!
//! Embree, obvhs and sylcol are called from Rust a ray at a time (Embree
//! `rtcIntersect1` through the `embree3` crate). tinybvh runs in a process
//! of its own (`tinybvh`: `Intersect` on a `Ray` made from the six f32,
//! in a C++ loop over the chunk): after each round of the others, one run
//! of its program times one round of its layouts on the same chunks,
//! staggered alike, and each chunk keeps its fastest time over the rounds,
//! as [`crate::timing`] does for the others.

use std::hint::black_box;

use glam::Vec3A;
use sylcol::prelude::*;
use sylcol::query::Collider;

#[cfg(feature = "embree")]
use crate::embree::EmbreeScene;
use crate::methods::{Answers, answer, disagreement_cells};
use crate::obvhs_peer::{self, PRESETS, Traced};
use crate::scenes::Scene;
use crate::timing::{CHUNK, chunk_times, keep_fastest, per_item};
#[cfg(feature = "tinybvh")]
use crate::tinybvh::{Layout, TinyScene};

/// One column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Peer {
    /// sylcol `cast_ray` through the BVH (the file's collider `with_bvh`).
    Sylcol,
    /// Embree `rtcIntersect1`, robust flag off.
    #[cfg(feature = "embree")]
    Embree,
    /// A tinybvh layout.
    #[cfg(feature = "tinybvh")]
    Tiny(Layout),
    /// obvhs' BVH2, preset `slow`.
    ObvhsBvh2,
    /// obvhs' CWBVH, preset `slow`.
    ObvhsCwbvh,
}

impl Peer {
    /// The columns this build has.
    fn all() -> Vec<Peer> {
        let mut all = vec![Peer::Sylcol];
        #[cfg(feature = "embree")]
        all.push(Peer::Embree);
        #[cfg(feature = "tinybvh")]
        all.extend(Layout::ALL.map(Peer::Tiny));
        all.extend([Peer::ObvhsBvh2, Peer::ObvhsCwbvh]);
        all
    }

    fn name(self) -> &'static str {
        match self {
            Peer::Sylcol => "sylcol BVH",
            #[cfg(feature = "embree")]
            Peer::Embree => "Embree",
            #[cfg(feature = "tinybvh")]
            Peer::Tiny(l) => l.name(),
            Peer::ObvhsBvh2 => "obvhs BVH2 slow",
            Peer::ObvhsCwbvh => "obvhs CWBVH slow",
        }
    }

    /// The family whose fastest tree gets a ratio column.
    fn family(self) -> &'static str {
        match self {
            Peer::Sylcol => "sylcol",
            #[cfg(feature = "embree")]
            Peer::Embree => "Embree",
            #[cfg(feature = "tinybvh")]
            Peer::Tiny(_) => "tinybvh",
            Peer::ObvhsBvh2 | Peer::ObvhsCwbvh => "obvhs",
        }
    }
}

/// Every peer's structure over one scene.
struct Built<'a> {
    scene: &'a Scene,
    bvh: Collider,
    #[cfg(feature = "embree")]
    embree: EmbreeScene,
    #[cfg(feature = "tinybvh")]
    tiny: TinyScene,
    obvhs: [Traced; 2],
    /// The rays as obvhs takes them.
    flat: Vec<(Vec3A, Vec3A)>,
}

impl<'a> Built<'a> {
    fn new(s: &'a Scene) -> Self {
        let tris = obvhs_peer::triangles(s);
        let bvh = Collider::from_mcol(&s.mcol).expect("collider").with_bvh();
        if let Some(first) = s.rays.first() {
            black_box(bvh.cast_ray(first, f32::INFINITY).expect("valid ray"));
        }
        Built {
            scene: s,
            bvh,
            #[cfg(feature = "embree")]
            embree: EmbreeScene::new(&s.mesh, false),
            #[cfg(feature = "tinybvh")]
            tiny: TinyScene::new(&s.mesh, &s.flat).unwrap_or_else(|e| panic!("{}: {e}", s.name)),
            obvhs: [
                obvhs_peer::traced_bvh2(&tris, PRESETS[3].1),
                obvhs_peer::traced_cwbvh(&tris, PRESETS[3].1),
            ],
            flat: s
                .rays
                .iter()
                .map(|r| (r.origin.into(), r.dir.into()))
                .collect(),
        }
    }

    /// Runs `peer` over the rays `range` into `out`.
    fn run(&self, peer: Peer, range: std::ops::Range<usize>, out: &mut Answers) {
        let s = self.scene;
        match peer {
            Peer::Sylcol => {
                for i in range {
                    let hit = self.bvh.cast_ray(&s.rays[i], f32::INFINITY);
                    (out.t[i], out.id[i]) = answer(hit.expect("valid ray"));
                }
            }
            #[cfg(feature = "embree")]
            Peer::Embree => {
                let (t, id) = (&mut out.t[range.clone()], &mut out.id[range.clone()]);
                self.embree.intersect(&s.flat[range], false, t, id);
            }
            #[cfg(feature = "tinybvh")]
            Peer::Tiny(_) => unreachable!("tinybvh runs in its own process (`tiny_round`)"),
            Peer::ObvhsBvh2 | Peer::ObvhsCwbvh => {
                let tree = &self.obvhs[usize::from(peer == Peer::ObvhsCwbvh)];
                for i in range {
                    (out.t[i], out.id[i]) = tree.cast(self.flat[i].0, self.flat[i].1);
                }
            }
        }
    }
}

impl Built<'_> {
    /// Each peer's ns per ray and answers: `rounds` rounds of the peers
    /// called from Rust, interleaved (`timing`), each followed by one run
    /// of the tinybvh program; a peer's figure sums its fastest time on
    /// each chunk.
    fn time(&self, peers: &[Peer], rounds: usize) -> (Vec<f64>, Vec<Answers>) {
        let n = self.scene.rays.len();
        let here: Vec<usize> = (0..peers.len())
            .filter(|&k| peers[k].family() != "tinybvh")
            .collect();
        let mut answers: Vec<Answers> = peers.iter().map(|_| Answers::new(n)).collect();
        let mut best = vec![vec![f64::INFINITY; n.div_ceil(CHUNK)]; peers.len()];
        for _round in 0..rounds {
            let times = chunk_times(here.len(), n, 1, CHUNK, |k, range| {
                self.run(peers[here[k]], range, black_box(&mut answers[here[k]]));
            });
            for (&k, t) in here.iter().zip(&times) {
                keep_fastest(&mut best[k], t);
            }
            #[cfg(feature = "tinybvh")]
            self.tiny_round(peers, _round == 0, &mut best, &mut answers);
        }
        (per_item(&best, n), answers)
    }

    /// One run of the tinybvh program: its chunk times kept where faster,
    /// its answers taken from the `first` round.
    #[cfg(feature = "tinybvh")]
    fn tiny_round(
        &self,
        peers: &[Peer],
        first: bool,
        best: &mut [Vec<f64>],
        answers: &mut [Answers],
    ) {
        let round = (self.tiny.run(CHUNK, first))
            .unwrap_or_else(|e| panic!("{}: tinybvh: {e}", self.scene.name));
        let column = |l: Layout| peers.iter().position(|&p| p == Peer::Tiny(l));
        for (l, ns) in Layout::ALL.into_iter().zip(&round.ns) {
            keep_fastest(&mut best[column(l).expect("a column a layout")], ns);
        }
        for (l, a) in Layout::ALL.into_iter().zip(round.answers) {
            answers[column(l).expect("a column a layout")] = a;
        }
    }
}

/// The table (see the module docs), then the geometric means.
pub fn run(scenes: &[Scene], rounds: usize) {
    let peers = Peer::all();
    let names: Vec<&str> = peers.iter().map(|p| p.name()).collect();
    let mut families: Vec<&str> = peers[1..].iter().map(|p| p.family()).collect();
    families.dedup();
    if !cfg!(feature = "tinybvh") || !cfg!(feature = "embree") {
        println!("(built without the `embree` or `tinybvh` feature: those columns are missing)");
    }
    println!(
        "| scene | triangles | {} ns/ray | hits {} | disagreements vs sylcol (hit/miss, distance) | peer / sylcol | {} |",
        names.join(" | "),
        names.join(" / "),
        families
            .iter()
            .map(|f| format!("fastest {f} / sylcol"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|{}", "---|".repeat(names.len() + 5 + families.len()));
    let mut logs = vec![0.0f64; peers.len()];
    let mut first_misses = Vec::new();
    for s in scenes {
        let built = Built::new(s);
        let (ns, answers) = built.time(&peers, rounds);
        for (l, t) in logs.iter_mut().zip(&ns) {
            *l += t.ln();
        }
        let tol = s.diagonal() * 1e-4;
        let disagree = disagreement_cells(&answers, tol);
        for (p, a) in peers[1..].iter().zip(&answers[1..]) {
            if let Some(i) =
                (0..s.rays.len()).find(|&i| a.t[i].is_finite() != answers[0].t[i].is_finite())
            {
                first_misses.push(format!(
                    "{}, {}: ray {i} {:?}, sylcol t {} triangle {}, peer t {} triangle {}",
                    s.name,
                    p.name(),
                    s.flat[i],
                    answers[0].t[i],
                    answers[0].id[i],
                    a.t[i],
                    a.id[i]
                ));
            }
        }
        let ratio = |t: f64| format!("{:.2}", t / ns[0]);
        let fastest: Vec<String> = families
            .iter()
            .map(|f| {
                let (k, t) = (1..peers.len())
                    .filter(|&k| peers[k].family() == *f)
                    .map(|k| (k, ns[k]))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .expect("a family has a member");
                format!("{} ({})", ratio(t), peers[k].name())
            })
            .collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            s.name,
            s.mesh.triangles.len(),
            ns.iter()
                .map(|t| format!("{t:.0}"))
                .collect::<Vec<_>>()
                .join(" | "),
            answers
                .iter()
                .map(|a| a.hits().to_string())
                .collect::<Vec<_>>()
                .join(" / "),
            disagree.join(", "),
            ns[1..]
                .iter()
                .map(|&t| ratio(t))
                .collect::<Vec<_>>()
                .join(", "),
            fastest.join(" | ")
        );
    }
    let n = scenes.len().max(1) as f64;
    let geo: Vec<String> = peers
        .iter()
        .zip(&logs)
        .map(|(p, l)| format!("{} {:.0}", p.name(), (l / n).exp()))
        .collect();
    println!(
        "\ngeometric mean ns/ray over {} scenes: {}",
        scenes.len(),
        geo.join(", ")
    );
    if !first_misses.is_empty() {
        println!("\nthe first hit/miss disagreement of each peer and scene:");
        for m in first_misses {
            println!("- {m}");
        }
    }
}
