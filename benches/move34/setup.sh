#!/usr/bin/env bash
# Builds what issue 34's move check compares (README.md here), from the
# repository root: `benches/move34/setup.sh [BEFORE AFTER]` (default: the
# commit before the query engine moved into sylcol-query, 1eb508f, and the
# move, 9f1d099). Each gets a worktree under target/move34/, its `sylcol`
# release binary and this benchmark built against its `sylcol` crate (the
# `post` feature where sylcol-query exists); the sample archive is
# extracted to target/move34/maps with today's binary.
set -euo pipefail
before=${1:-1eb508f}
after=${2:-9f1d099}
base=target/move34
mkdir -p "$base"
cargo build --release -p sylcol-cli
rm -rf "$base/maps"
target/release/sylcol pak extract samples/MiscBin.pak -o "$base/maps" > /dev/null
for side in pre post; do
  commit=$before; [ "$side" = post ] && commit=$after
  tree=$base/$side
  [ -d "$tree" ] || git worktree add --detach "$tree" "$commit"
  (cd "$tree" && CARGO_TARGET_DIR=$PWD/../$side-target cargo build --release -p sylcol-cli)
  bench=$base/bench-$side
  rm -rf "$bench" && mkdir -p "$bench"
  cp -r benches/move34/src "$bench/"
  sed "s#SYLCOL_PATH#$PWD/$tree/crates/sylcol#" benches/move34/Cargo.toml.in > "$bench/Cargo.toml"
  cp "$tree/Cargo.lock" "$bench/"
  features=""
  [ -d "$tree/crates/sylcol-query" ] && features="--features post"
  (cd "$bench" && CARGO_TARGET_DIR=$PWD/../$side-target cargo build --release $features)
done
echo "built: $base/{pre,post}-target/release/{sylcol,movebench}"
