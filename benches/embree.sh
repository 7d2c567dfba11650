#!/usr/bin/env bash
# sylcol's ray queries against Embree 3 (Debian's libembree-dev, 3.13) and
# parry3d 0.31, from one run with interleaved rounds (docs/queries.md).
#
#   benches/embree.sh [rays|setup|made|batch|prep|build|count|branches|sweep|all]   (default: all)
#
# rays   the single-thread table: ns per ray, hits, disagreements, ratios
# setup  the same table on rays from outside the box pointing away from it
#        (all miss): what each method pays a query before any triangle
# made   the rays table with each sylcol ray made from its row of six f32
#        just before the call, as the Embree shim makes its ray (a caller's
#        usual way; `rays` reads sylcol's rays from an array made before)
# batch  rays per second at 1 and 2 threads (sylcol cast_rays through the
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
# branches  instructions, conditional branches and mispredicted ones per
#        ray under callgrind's branch simulator (a simple predictor model:
#        indicative, not the CPU's own), on d84a95fb, db066592 and the 4 k
#        sphere (not part of `all`)
# sweep  the grid sweep of `build mcol` (no Embree needed)
#
# Environment: RAYS (default 1000000 a scene), ROUNDS (default 3), SCENE
# (substring of the scene names), COUNT_RAYS (default 100000).
# Installs libembree-dev (and valgrind for `count`) when missing.
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

need libembree-dev
cargo build --release -q -p sylcol-bench --features embree
bin=target/release/sylcol-bench

count() {
    need valgrind
    local rays=${COUNT_RAYS:-100000} out
    out=$(mktemp -d)
    echo "| scene | method | instructions / ray ($rays rays, callgrind) | once a ray | the rest |"
    echo "|---|---|---|---|---|"
    for scene in "map d84a95fb" "map dd89a110" "sphere 4k"; do
        for m in sylcol-own sylcol-derived sylcol-bvh embree1 embree1-robust; do
            RAYS=$rays SCENE=$scene valgrind --tool=callgrind -q --dump-instr=yes \
                --callgrind-out-file="$out/cg" --collect-atstart=no \
                --toggle-collect='*run_method*' "$bin" count "$m" >/dev/null
            read -r total once rest < <(python3 benches/ray_phases.py "$out/cg" "$rays")
            echo "| $scene | $m | $total | $once | $rest |"
        done
    done
    rm -rf "$out"
}

branches() {
    need valgrind
    local rays=${COUNT_RAYS:-100000} out
    out=$(mktemp -d)
    echo "| scene | method | instructions / ray | conditional branches / ray | mispredicted / ray |"
    echo "|---|---|---|---|---|"
    for scene in "map d84a95fb" "map db066592" "sphere 4k"; do
        for m in sylcol-own sylcol-derived sylcol-bvh embree1 embree1-robust; do
            RAYS=$rays SCENE=$scene valgrind --tool=callgrind -q --branch-sim=yes \
                --callgrind-out-file="$out/cg" --collect-atstart=no \
                --toggle-collect='*run_method*' "$bin" count "$m" >/dev/null
            # The totals line: Ir Bc Bcm Bi Bim (callgrind's event order).
            awk -v s="$scene" -v m="$m" -v n="$rays" '/^(summary|totals):/ {
                printf "| %s | %s | %.0f | %.1f | %.1f |\n", s, m, $2 / n, $3 / n, $4 / n; exit }' "$out/cg"
        done
    done
    rm -rf "$out"
}

case $mode in
    rays) "$bin" rays ;;
    setup) "$bin" setup ;;
    made) "$bin" made ;;
    batch) "$bin" batch ;;
    prep) RAYS=${RAYS:-1000} "$bin" prep ;;
    build) RAYS=${RAYS:-1000} "$bin" build ;;
    count) count ;;
    branches) branches ;;
    sweep) "$bin" sweep ;;
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
    *) echo "usage: benches/embree.sh [rays|setup|made|batch|prep|build|count|branches|sweep|all]" >&2; exit 2 ;;
esac
