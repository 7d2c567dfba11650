//! sylcol's benchmark harness against Embree 3, tinybvh 1.6.8, parry3d 0.31 and obvhs 0.4.
//!
//! ```text
//! sylcol-bench [rays]        the single-thread table (ns per ray, hits, ratios)
//! sylcol-bench setup         the same table on rays that start outside the box and
//!                            leave it (every ray misses: each method's fixed cost a query)
//! sylcol-bench made          the `rays` table with each sylcol ray made from its row of
//!                            six f32 just before the call, as the Embree methods make
//!                            theirs (a caller's usual way; `rays` reads an array made before)
//! sylcol-bench peers         the rays through sylcol's BVH against Embree (rtcIntersect1),
//!                            every CPU single-ray layout of tinybvh and obvhs' BVH2 and
//!                            CWBVH (hits, disagreements, ratios, each family's fastest)
//! sylcol-bench batch         rays per second at 1 and 2 threads (`THREADS=1`: one only)
//! sylcol-bench count METHOD  one run of METHOD (for callgrind)
//! sylcol-bench sweep         the MCOL grid sweep of `build mcol`
//! sylcol-bench kernels       the rays through the own grid and the BVH with each kernel path
//!                            this CPU runs (portable, AVX2, AVX-512), ratios to AVX2
//! sylcol-bench parry [ONE]   sweep_sphere, closest_point and contains_point against
//!                            parry3d's ball cast, project_point and contains_point, with
//!                            every disagreement listed (QUERIES inputs a scene, default 20 000)
//! sylcol-bench obvhs        the rays through sylcol's BVH and obvhs 0.4's BVH2 and CWBVH
//!                            (hits, disagreements, ratios)
//! sylcol-bench obvhs-build   Bvh::build against obvhs' builders, each tree's SAH beside its time
//! sylcol-bench prep          preparation cost (construction and the first ray): colliders and
//!                            the BVH against parry3d's BVH build (`build` is the same table)
//! sylcol-bench tree          the BVH's shape and expected cost (SAH) per scene; with Embree and
//!                            `EMBREE_CONFIG=verbose=2`, Embree's tree statistics below each row
//! ```
//!
//! Environment: `RAYS` (default 1 000 000 a scene), `ROUNDS` (default 3;
//! each figure is the fastest of its interleaved rounds), `SCENE` (keep
//! the scenes whose name contains it), `EMBREE_CONFIG` (`key=value,...` added to
//! Embree's device configuration, e.g. `max_isa=avx2`; the keys `embree` lists),
//! `THREADS` (`batch`). Embree's methods exist only with the `embree` feature
//! (`benches/embree.sh` installs Debian's libembree-dev and turns it on),
//! tinybvh's only with the `tinybvh` feature: build.rs compiles the C++
//! program `tinybvh/sylcol_tinybvh.cpp` from the single header `tiny_bvh.h`
//! carried by the tinybvh-rs 0.1.0-beta.3 crate's source (found in Cargo's
//! registry, or at `TINYBVH_INCLUDE`), with `-march=native`, and `tinybvh`
//! runs it on files (`benches/embree.sh` fetches the crate's source and
//! turns the feature on). See `benches/README.md` for the figures.
//!
//! Embree comes through the `embree3` crate (safe bindings to Embree
//! 3.13.5, linked against Debian's libembree-dev) and tinybvh through a
//! process of its own: no `unsafe` here.

#![forbid(unsafe_code)]

mod batch;
#[cfg(feature = "embree")]
mod embree;
mod kernel_paths;
mod methods;
mod obvhs_peer;
mod parry;
mod peers;
mod prep;
mod scenes;
mod sweep;
mod timing;
#[cfg(feature = "tinybvh")]
mod tinybvh;
mod tree;

use std::hint::black_box;

use batch::{BatchMethod, BatchRunner};
use methods::{Answers, Method, Prepared, disagreement_cells, run_method};
use scenes::{RaySet, Scene};
use timing::{BATCH_CHUNK, CHUNK, interleaved};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The modes, for the usage line.
const USAGE: &str = "usage: sylcol-bench [rays | setup | made | batch | prep | build | count METHOD | sweep | tree | kernels | parry [ONE] | obvhs | obvhs-build | peers] \
                     (environment: RAYS, ROUNDS, SCENE, QUERIES, EMBREE_CONFIG, THREADS; see the crate's notes)";

/// Prints `why` and the usage line and exits with 2 (a usage error).
fn usage_error(why: &str) -> ! {
    eprintln!("sylcol-bench: {why}\n{USAGE}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rays = env_usize("RAYS", 1_000_000);
    let rounds = env_usize("ROUNDS", 3).max(1);
    let filter = std::env::var("SCENE").ok();
    let mode = args.first().map_or("rays", String::as_str);
    if matches!(mode, "-h" | "--help" | "help") {
        println!("{USAGE}");
        return;
    }
    if !matches!(
        mode,
        "rays"
            | "setup"
            | "made"
            | "batch"
            | "prep"
            | "build"
            | "count"
            | "sweep"
            | "tree"
            | "parry"
            | "kernels"
            | "obvhs"
            | "obvhs-build"
            | "peers"
    ) {
        usage_error(&format!("unknown mode {mode}"));
    }
    let count = (mode == "count").then(|| {
        args.get(1)
            .and_then(|s| Method::parse(s))
            .unwrap_or_else(|| usage_error(&format!("count METHOD, one of {:?}", names())))
    });
    if mode == "sweep" {
        sweep::run(filter.as_deref(), rays, rounds);
        return;
    }
    if mode == "parry" {
        let scenes = scenes::load(filter.as_deref(), 1, RaySet::Issue);
        let n = env_usize("QUERIES", 20_000);
        match args.get(1) {
            Some(one) => parry::one(&scenes, n, one).unwrap_or_else(|e| usage_error(&e)),
            None => parry::run(&scenes, n, rounds),
        }
        return;
    }
    // `count` with `COUNT_AWAY=1`: the rays of `setup` (all miss).
    let away = mode == "count" && std::env::var("COUNT_AWAY").is_ok_and(|v| v == "1");
    let set = if mode == "setup" || away {
        RaySet::Away
    } else {
        RaySet::Issue
    };
    let scenes = scenes::load(filter.as_deref(), rays, set);
    #[cfg(feature = "embree")]
    {
        let config = embree::config();
        if !config.is_empty() {
            println!("(Embree's device configuration adds: {config})");
        }
    }
    match mode {
        "rays" | "setup" => rays_table(&scenes, rounds, false),
        "made" => rays_table(&scenes, rounds, true),
        "batch" => batch_table(&scenes, rounds),
        "prep" => prep::run(&scenes, rounds.max(5)),
        "build" => prep::run(&scenes, rounds.max(5)),
        "tree" => tree::run(&scenes),
        "kernels" => kernel_paths::run(&scenes, rounds),
        "obvhs" => obvhs_peer::rays(&scenes, rounds),
        "obvhs-build" => obvhs_peer::build(&scenes, rounds.max(5)),
        "peers" => peers::run(&scenes, rounds),
        "count" => {
            let m = count.expect("parsed above");
            for s in &scenes {
                let p = Prepared::new(s);
                let mut out = Answers::new(s.rays.len());
                run_method(m, &p, 0..s.rays.len(), &mut out);
                println!(
                    "{} {}: {} rays, {} hits",
                    s.name,
                    m.name(),
                    s.rays.len(),
                    out.hits()
                );
            }
        }
        other => unreachable!("mode {other} checked above"),
    }
}

fn names() -> Vec<&'static str> {
    let mut m = Method::all();
    m.extend(Method::batches());
    m.into_iter().map(Method::name).collect()
}

/// ns per ray of each method, from `rounds` interleaved rounds (`timing`);
/// `made`: sylcol's rays made just before each call (`Prepared::made`).
fn rays_table(scenes: &[Scene], rounds: usize, made: bool) {
    let methods = Method::all();
    if !cfg!(feature = "embree") {
        println!("(built without the `embree` feature: no Embree columns; see benches/embree.sh)");
    }
    let head: Vec<&str> = methods.iter().map(|m| m.name()).collect();
    println!(
        "| scene | triangles | own grid | {} ns/ray | hits {} | disagreements vs sylcol-own (hit/miss, distance) | speed vs Embree robust: own, derived, bvh | vs Embree: own, derived, bvh | vs parry3d: own, derived, bvh |",
        head.join(" | "),
        head.join(" / ")
    );
    println!("|{}", "---|".repeat(head.len() + 7));
    let mut logs = vec![Vec::new(); methods.len()];
    for s in scenes {
        let p = Prepared {
            made,
            ..Prepared::new(s)
        };
        let mut answers: Vec<Answers> =
            methods.iter().map(|_| Answers::new(s.rays.len())).collect();
        let best = interleaved(methods.len(), s.rays.len(), rounds, CHUNK, |k, range| {
            run_method(methods[k], &p, range, black_box(&mut answers[k]));
        });
        for (k, ns) in best.iter().enumerate() {
            logs[k].push(ns.ln());
        }
        let tol = s.diagonal() * 1e-4;
        let disagree: Vec<String> = disagreement_cells(&answers, tol)
            .iter()
            .zip(&methods[1..])
            .map(|(cell, m)| format!("{} {cell}", m.name()))
            .collect();
        let ns = |m: Method| {
            methods
                .iter()
                .position(|&x| x == m)
                .map_or(f64::NAN, |k| best[k])
        };
        let ratio = |other: Method| {
            format!(
                "{:.2}, {:.2}, {:.2}",
                ns(other) / ns(Method::Own),
                ns(other) / ns(Method::Derived),
                ns(other) / ns(Method::Bvh)
            )
        };
        let st = p.own.grid_stats();
        let times: Vec<String> = best.iter().map(|t| format!("{t:.0}")).collect();
        let hits: Vec<String> = answers.iter().map(|a| a.hits().to_string()).collect();
        println!(
            "| {} | {} | {}x{}x{} | {} | {} | {} | {} | {} | {} |",
            s.name,
            s.mesh.triangles.len(),
            st.dims[0],
            st.dims[1],
            st.dims[2],
            times.join(" | "),
            hits.join(" / "),
            disagree.join(", "),
            ratio(Method::EmbreeRobust),
            ratio(Method::Embree),
            ratio(Method::Parry),
        );
    }
    let geo: Vec<String> = methods
        .iter()
        .zip(&logs)
        .map(|(m, l)| {
            format!(
                "{} {:.0}",
                m.name(),
                (l.iter().sum::<f64>() / l.len().max(1) as f64).exp()
            )
        })
        .collect();
    println!(
        "\ngeometric mean ns/ray over {} scenes: {}",
        scenes.len(),
        geo.join(", ")
    );
}

/// Rays per second at 1 and 2 threads (`THREADS=1`: at one only), from
/// `rounds` interleaved rounds over chunks of [`BATCH_CHUNK`] rays.
fn batch_table(scenes: &[Scene], rounds: usize) {
    let methods = BatchMethod::all();
    let threads: &[usize] = if env_usize("THREADS", 2) == 1 {
        &[1]
    } else {
        &[1, 2]
    };
    let cols: Vec<String> = methods
        .iter()
        .flat_map(|m| threads.iter().map(move |t| format!("{} {t}t", m.name())))
        .collect();
    println!("| scene | {} (Mrays/s) | hits |", cols.join(" | "));
    println!("|{}", "---|".repeat(cols.len() + 2));
    let n = scenes.iter().map(|s| s.rays.len()).max().unwrap_or(0);
    let mut runner = BatchRunner::new(2, n);
    for s in scenes {
        let p = Prepared::new(s);
        let mut hits = vec![0; cols.len()];
        let ns = interleaved(cols.len(), s.rays.len(), rounds, BATCH_CHUNK, |k, range| {
            let (m, t) = (methods[k / threads.len()], threads[k % threads.len()]);
            hits[k] += runner.run(m, &p, t, range);
        });
        let rates: Vec<String> = ns.iter().map(|ns| format!("{:.2}", 1e3 / ns)).collect();
        let hits: Vec<String> = hits.iter().map(|h| (h / rounds).to_string()).collect();
        println!(
            "| {} | {} | {} |",
            s.name,
            rates.join(" | "),
            hits.join(" / ")
        );
    }
}
