#!/usr/bin/env bash
# Runs one fuzz target for SECONDS on the stable toolchain.
#
#   fuzz/run.sh TARGET SECONDS [libFuzzer flags...]
#   fuzz/run.sh list                      # the targets
#   fuzz/run.sh build                     # build every target, run none
#   fuzz/run.sh merge TARGET [MAX_BYTES]  # minimise: corpus + seeds + work -> corpus
#
# libFuzzer (the libfuzzer-sys crate, built with the system's C++ compiler)
# and LLVM's SanitizerCoverage, switched on with stable rustc flags
# (-Cpasses=sancov-module, -Cllvm-args=...): no nightly, no RUSTC_BOOTSTRAP,
# no AddressSanitizer (Rust's memory safety covers what it would find in
# safe code; sylcol has no `unsafe` outside its SIMD kernels).
#
# The run starts from fuzz/corpus/TARGET (the kept, minimised corpus) plus
# fuzz/seeds/TARGET when fuzz/seeds.sh has made it, and writes what it
# finds to fuzz/work/TARGET (new inputs) and fuzz/artifacts/TARGET
# (crashers, timeouts, out-of-memory inputs), both ignored by git. The
# final line of libFuzzer's statistics is copied to fuzz/work/TARGET.stats.
set -euo pipefail
cd "$(dirname "$0")"

TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="${RUSTFLAGS:-} --cfg fuzzing -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cdebug-assertions -Coverflow-checks"

targets() { sed -n 's/^name = "\([a-z0-9_]*\)"$/\1/p' Cargo.toml | grep -v '^sylcol-fuzz-targets$'; }

build() {
  # --target keeps RUSTFLAGS off build scripts and proc macros, as cargo-fuzz does.
  cargo build --release --target "$TRIPLE" --bins "$@"
}

# The kept corpus is replaced by libFuzzer's -merge=1 over everything found
# (inputs under MAX_BYTES, when given): the smallest inputs that keep every
# edge reached (-use_counters=0: edges, not hit-count buckets, so it stays
# small), plus the seeds.
merge() {
  local target=$1 max=${2:-} fresh="work/$1.merged" pool="work/$1.pool"
  build --bin "$target"
  rm -rf "$fresh" "$pool" && mkdir -p "$fresh" "$pool" "work/$target"
  local from=("corpus/$target" "work/$target")
  [ -d "seeds/$target" ] && from+=("seeds/$target")
  find "${from[@]}" -type f ${max:+-size -"${max}"c} -exec cp {} "$pool/" \;
  "target/$TRIPLE/release/$target" -merge=1 -use_counters=0 "$fresh" "$pool" 2>&1 | tail -n 1
  # The seeds stay whole: they decode, and the mutation test starts from them.
  [ -d "seeds/$target" ] && cp "seeds/$target"/* "$fresh/"
  rm -rf "corpus/$target" "$pool" && mv "$fresh" "corpus/$target"
  echo "corpus/$target: $(ls "corpus/$target" | wc -l) files, $(du -sb "corpus/$target" | cut -f1) bytes"
}

case "${1:-}" in
  list) targets; exit 0 ;;
  build) build; exit 0 ;;
  merge) merge "${2:?usage: fuzz/run.sh merge TARGET [MAX_BYTES]}" "${3:-}"; exit 0 ;;
  ''|-h|--help) sed -n '2,10p' "$0"; exit 2 ;;
esac

TARGET=$1
SECONDS_TO_RUN=${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
targets | grep -qx "$TARGET" || { echo "unknown target $TARGET (fuzz/run.sh list)" >&2; exit 2; }

build --bin "$TARGET"
mkdir -p "work/$TARGET" "artifacts/$TARGET" "corpus/$TARGET"
SEEDS=()
[ -d "seeds/$TARGET" ] && SEEDS=("seeds/$TARGET")
"target/$TRIPLE/release/$TARGET" "work/$TARGET" "corpus/$TARGET" "${SEEDS[@]}" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="artifacts/$TARGET/" -print_final_stats=1 "$@" \
  2> >(tee "work/$TARGET.log" >&2)
grep -E '^(#[0-9]+|stat::)' "work/$TARGET.log" | tail -n 12 > "work/$TARGET.stats" || true
