#!/usr/bin/env bash
# Writing states at every one of 100 snapshots of 10^6 f64 points: --store npy against
# --store zarr, side by side (interleaved rounds), against the same run saving nothing.
# Usage: benches/store.sh [BINARY] [ROUNDS]; prints one Markdown row per run.
set -euo pipefail
bin=${1:-target/release/phaseflow}
rounds=${2:-2}
dir=$(mktemp -d "${TMPDIR:-/tmp}/phaseflow-store.XXXXXX")
trap 'rm -rf "$dir"' EXIT
args=(run --quiet --system pendulum --method verlet --ensemble disk --points 1000000
      --dt 0.01 --steps 99 --snapshot-every 1 --precision f64 --backend cpu)
echo "| round | store | wall s | written MB |"
echo "|---|---|---|---|"
for r in $(seq 1 "$rounds"); do
  for store in none npy zarr; do
    out="$dir/$store-$r"
    extra=()
    [ "$store" != none ] && extra=(--save-states --store "$store")
    start=$(date +%s.%N)
    "$bin" "${args[@]}" "${extra[@]}" --out "$out"
    end=$(date +%s.%N)
    mb=$(du -sm "$out" | cut -f1)
    printf "| %s | %s | %.2f | %s |\n" "$r" "$store" "$(echo "$end - $start" | bc)" "$mb"
    rm -rf "$out"
  done
done
