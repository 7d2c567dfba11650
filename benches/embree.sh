#!/usr/bin/env bash
# sylcol's ray queries against Embree 3 (Debian's libembree-dev, 3.13),
# tinybvh 1.6.8, parry3d 0.31 and obvhs 0.4, from one run with interleaved
# rounds (benches/queries.md).
#
#   benches/embree.sh [rays|peers|setup|made|batch|prep|build|count|branches|phases|sweep|tree|kernels|parry|obvhs|obvhs-build|all]   (default: all)
#
# rays   the single-thread table: ns per ray, hits, disagreements, ratios
# peers  the rays through sylcol's BVH against Embree (rtcIntersect1,
#        robust flag off), every CPU single-ray layout of tinybvh (BVH,
#        BVH HQ, BVH_SoA, BVH4_CPU, BVH8_CPU, BVH8_CPU HQ) and obvhs'
#        BVH2 and CWBVH: hits, disagreements, each peer's time over
#        sylcol's and each family's fastest (not part of `all`)
# setup  the same table on rays from outside the box pointing away from it
#        (all miss): what each method pays a query before any triangle
# made   the rays table with each sylcol ray made from its row of six f32
#        just before the call, as the Embree methods make theirs (a caller's
#        usual way; `rays` reads sylcol's rays from an array made before)
# batch  rays per second at 1 and 2 threads (THREADS=1: one only;
#        sylcol cast_rays through the
#        own grid, the derived grid and the BVH; Embree
#        rtcIntersect1 / rtcIntersect8, robust flag off and on)
# prep   preparation cost, construction plus the first ray:
#        Collider::from_mcol, Bvh::build, from_mcol + with_bvh, from_mesh
#        and from_mesh + with_bvh (the BVH-only collider) against
#        parry3d's TriMesh::new and Embree's scene build (`build` prints
#        the same table)
# count  instructions per ray under callgrind, on two maps and one sphere,
#        split by benches/ray_phases.py into those executed once for
#        every ray (checks, set-up, finish) and the rest (the walk, node
#        and packet tests)
# phases instructions, D1 misses and mispredicted branches per ray under
#        callgrind's cache and branch simulators, split by
#        benches/batch_phases.py into set-up, walk and leaf tests, for
#        sylcol's batch (cast_rays_into through the BVH), Embree's
#        rtcIntersect8 and both single-ray methods, on the 16 k sphere and
#        d84a95fb (PHASE_SCENES: other scenes, one a line; not part of
#        `all`); each method's "fixed" row is its total on the rays of
#        `setup` (COUNT_AWAY=1: all miss the box), what a ray pays
#        before any node below the root or any triangle
# branches  instructions, conditional branches and mispredicted ones per
#        ray under callgrind's branch simulator (a simple predictor model:
#        indicative, not the CPU's own), on d84a95fb, db066592 and the 4 k
#        sphere (not part of `all`)
# sweep  the grid sweep of `build mcol` (no Embree needed)
# kernels  the rays through the own grid and the BVH with each kernel path
#        this CPU runs (portable, AVX2, AVX-512), ratios to AVX2, answers
#        compared bit for bit (not part of `all`)
# parry  sweep_sphere, closest_point and contains_point against parry3d's
#        ball cast, project_point and contains_point on the same inputs,
#        every disagreement listed (QUERIES a scene, default 20000; not
#        part of `all`; no Embree needed: also
#        `cargo run --release -p sylcol-bench -- parry`)
# obvhs  the rays through sylcol's BVH and obvhs 0.4's BVH2 (preset
#        `slow`) and CWBVH (presets `medium`, `slow`; its CPU traversal),
#        hits, disagreements, the peers' time over sylcol's (not part
#        of `all`; no Embree needed)
# obvhs-build  Bvh::build against obvhs' BVH2 and CWBVH builders at each
#        preset, one thread, each tree's SAH beside its µs (not part of
#        `all`; no Embree needed)
# tree   per scene the BVH's nodes, leaves, packets, depth and expected cost
#        (SAH, Embree's convention), each row followed by Embree's own
#        statistics for the same mesh (its tree type and kernel, nodes and
#        leaves with their SAH) (not part of `all`)
#
# Environment: RAYS (default 1000000 a scene), ROUNDS (default 3), SCENE
# (substring of the scene names), COUNT_RAYS (default 100000),
# EMBREE_CONFIG (key=value settings added to Embree's device configuration:
# `max_isa=avx2` holds Embree to its AVX2 kernels on a CPU with AVX-512;
# the keys the embree3 crate passes on are listed in
# crates/sylcol-bench/src/embree.rs).
# Installs libembree-dev (and valgrind for `count`) when missing, and
# fetches the tinybvh-rs 0.1.0-beta.3 crate's source (whose tiny_bvh.h the
# feature `tinybvh` compiles into its own program) into Cargo's registry;
# TINYBVH_INCLUDE (a folder holding tiny_bvh.h) takes its place.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}

need() {
    if ! dpkg -s "$1" >/dev/null 2>&1; then
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq
        $sudo apt-get install -y -qq "$1" >/dev/null
    fi
}

# tinybvh's single header, as the tinybvh-rs crate's source carries it:
# `cargo fetch` of a throwaway manifest naming the crate unpacks it into
# Cargo's registry, where the bench's build.rs looks (nothing is built).
need_tinybvh() {
    local d
    [ -z "${TINYBVH_INCLUDE:-}" ] || return 0
    ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tinybvh-rs-0.1.0-beta.3/ffi/tinybvh/tiny_bvh.h \
        >/dev/null 2>&1 && return 0
    d=$(mktemp -d)
    mkdir "$d/src" && : > "$d/src/lib.rs"
    printf '[package]\nname = "fetch-tinybvh"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\ntinybvh-rs = "=0.1.0-beta.3"\n[workspace]\n' \
        > "$d/Cargo.toml"
    cargo fetch -q --manifest-path "$d/Cargo.toml"
    rm -rf "$d"
}

need libembree-dev
need_tinybvh
cargo build --profile profiling -q -p sylcol-bench --features embree,tinybvh
bin=target/profiling/sylcol-bench

# Runs every method on each scene (one a line of $2) under callgrind with
# the options after $2, and calls $1 SCENE METHOD PROFILE RAYS for each.
each_profile() {
    local report=$1 scenes=$2 rays=${COUNT_RAYS:-100000} out scene m
    shift 2
    need valgrind
    out=$(mktemp -d)
    while IFS= read -r scene; do
        for m in sylcol-own sylcol-derived sylcol-bvh embree1 embree1-robust; do
            RAYS=$rays SCENE=$scene valgrind --tool=callgrind -q "$@" \
                --callgrind-out-file="$out/cg" --collect-atstart=no \
                --toggle-collect='*run_method*' "$bin" count "$m" >/dev/null
            "$report" "$scene" "$m" "$out/cg" "$rays"
        done
    done <<< "$scenes"
    rm -rf "$out"
}

count_row() {
    local total once rest
    read -r total once rest < <(python3 benches/ray_phases.py "$3" "$4")
    echo "| $1 | $2 | $total | $once | $rest |"
}

# The profile's totals line: Ir Bc Bcm Bi Bim (callgrind's event order).
branch_row() {
    awk -v s="$1" -v m="$2" -v n="$4" '/^(summary|totals):/ {
        printf "| %s | %s | %.0f | %.1f | %.1f |\n", s, m, $2 / n, $3 / n, $4 / n; exit }' "$3"
}

count() {
    echo "| scene | method | instructions / ray (${COUNT_RAYS:-100000} rays, callgrind) | once a ray | the rest |"
    echo "|---|---|---|---|---|"
    each_profile count_row $'map d84a95fb\nmap dd89a110\nsphere 4k' --dump-instr=yes
}

# Method $2 on scene $1 ($3 rays) under callgrind's cache and branch
# simulators, profile to $4 (COUNT_AWAY passed on).
phase_profile() {
    RAYON_NUM_THREADS=1 RAYS=$3 SCENE=$1 valgrind --tool=callgrind -q --dump-instr=yes \
        --cache-sim=yes --branch-sim=yes --callgrind-out-file="$4" \
        --collect-atstart=no --toggle-collect='*run_method*' "$bin" count "$2" >/dev/null
}

phases() {
    local rays=${COUNT_RAYS:-100000} out scene m phase ir d1 bm
    need valgrind
    echo "| scene | method | phase | instructions / ray | D1 misses / ray | mispredicted / ray |"
    echo "|---|---|---|---|---|---|"
    out=$(mktemp -d)
    while IFS= read -r scene; do
        for m in sylcol-bvh-batch embree8 sylcol-bvh embree1; do
            COUNT_AWAY=0 phase_profile "$scene" "$m" "$rays" "$out/cg"
            python3 benches/batch_phases.py "$out/cg" "$rays" |
                while read -r phase ir d1 bm; do
                    echo "| $scene | $m | $phase | $ir | $d1 | $bm |"
                done
            COUNT_AWAY=1 phase_profile "$scene" "$m" "$rays" "$out/cg"
            python3 benches/batch_phases.py "$out/cg" "$rays" | awk -v s="$scene" -v m="$m" \
                '$1 == "total" { printf "| %s | %s | fixed (rays of `setup`) | %s | %s | %s |\n", s, m, $2, $3, $4 }'
        done
    done <<< "${PHASE_SCENES:-$'sphere 16k\nmap d84a95fb'}"
    rm -rf "$out"
}

branches() {
    echo "| scene | method | instructions / ray | conditional branches / ray | mispredicted / ray |"
    echo "|---|---|---|---|---|"
    each_profile branch_row $'map d84a95fb\nmap db066592\nsphere 4k' --branch-sim=yes
}

# The BVH rows of `sylcol-bench tree`, each followed by what Embree's
# verbose build says about its tree for the same mesh (and, once, which
# single-ray kernel it selected).
tree() {
    RAYS=1 EMBREE_CONFIG="${EMBREE_CONFIG:+$EMBREE_CONFIG,}verbose=2" "$bin" tree |
        grep -E '^\||^\(|^building|^ +(total|getAABBNodes|leaves) +: sah|^  intersector1 ' |
        awk '!/intersector1/ || !seen[$0]++'
}

case $mode in
    rays) "$bin" rays ;;
    peers) "$bin" peers ;;
    setup) "$bin" setup ;;
    made) "$bin" made ;;
    batch) "$bin" batch ;;
    prep) RAYS=${RAYS:-1000} "$bin" prep ;;
    build) RAYS=${RAYS:-1000} "$bin" build ;;
    count) count ;;
    branches) branches ;;
    phases) phases ;;
    sweep) "$bin" sweep ;;
    tree) tree ;;
    kernels) "$bin" kernels ;;
    parry) "$bin" parry ;;
    obvhs) "$bin" obvhs ;;
    obvhs-build) RAYS=${RAYS:-1000} "$bin" obvhs-build ;;
    all)
        "$bin" rays
        echo
        "$bin" setup
        echo
        "$bin" made
        echo
        "$bin" batch
        echo
        RAYS=1000 "$bin" prep
        echo
        RAYS=1000 "$bin" build
        echo
        count
        ;;
    *) echo "usage: benches/embree.sh [rays|peers|setup|made|batch|prep|build|count|branches|phases|sweep|tree|kernels|parry|obvhs|obvhs-build|all]" >&2; exit 2 ;;
esac
