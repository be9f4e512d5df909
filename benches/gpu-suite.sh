#!/usr/bin/env bash
# GPU evidence in one command: builds phaseflow, times every GPU target of BENCHMARKS.md
# (pendulum symplectic Euler A, Verlet, Kepler yoshida4, f64 against f32, a formula against its
# built-in system, the pendulum-level study) and runs `validate` (GPU against CPU) for every
# system × method at f32 and f64, then writes one Markdown table to paste into BENCHMARKS.md:
# device, driver, command, figure, target.
#
#   benches/gpu-suite.sh [--smoke] [--bin PATH] [--out DIR]
#
#   --smoke     small sizes and one method per system (a check that the suite runs, e.g. on
#               lavapipe in CI; its figures say nothing about a GPU's speed)
#   --bin PATH  the phaseflow binary to use instead of building target/release/phaseflow
#   --out DIR   where the table (gpu-suite.md) and every command's output (logs/) go
#               [default: target/gpu-suite]
#
# Needs a Vulkan loader and driver (`phaseflow devices` lists the adapters). The full suite is
# sized for an H100 (1e7 points): about 1 minute of timings and 2 of validation on 16 cores,
# after the build.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
bin=""
out="target/gpu-suite"
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke=1 ;;
        --bin) bin="$2"; shift ;;
        --out) out="$2"; shift ;;
        *) echo "gpu-suite: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin="target/release/phaseflow"
fi
mkdir -p "$out/logs"
logs="$out/logs"
table="$out/gpu-suite.md"

if [ "$smoke" = 1 ]; then
    points=20000; steps_fast=20; steps_slow=5; rounds=1
    validate_points=64; study_flags="--t-end 10"
else
    points=10000000; steps_fast=20000; steps_slow=2000; rounds=2
    validate_points=4096; study_flags=""
fi

# The adapter the GPU engine opens and its driver (`phaseflow devices`: name, then key=value).
probe_csv="$logs/probe.csv"
"$bin" bench --gpu-only --points 256 --steps 1 --csv "$probe_csv" >"$logs/probe.txt" 2>&1
# The device column is quoted and holds commas: "gpu: NAME (Vulkan, DiscreteGpu)".
device=$(sed -n '2s/^[^,]*,"gpu: \(.*\) ([A-Za-z]*, [A-Za-z]*)".*/\1/p' "$probe_csv")
# (the Vulkan line where the device is listed under several backends)
devices=$("$bin" devices 2>/dev/null || true)
driver=$({ printf '%s\n' "$devices" | grep -F "$device" | grep -F backend=Vulkan
    printf '%s\n' "$devices" | grep -F "$device"; } | head -n 1 | sed -n 's/.* driver=//p' || true)
[ -n "$device" ] || { echo "gpu-suite: no GPU adapter ran the probe (see $logs/probe.txt)" >&2; exit 1; }

rows=()
# row COMMAND FIGURE TARGET
row() {
    rows+=("| $device | ${driver:-unknown} | \`$1\` | $2 | $3 |")
}

# The GPU rows of a bench CSV as "precision rate ratio_to_against", the quoted device
# replaced first so that the fields split at commas.
gpu_rows() {
    sed -e '1d' -e 's/"[^"]*"/dev/' "$1" | awk -F, '$1 == "gpu" && $9 == "false" { print $3, $7, $11 }'
}
field() { # field CSV PRECISION COLUMN(2: rate, 3: ratio to --against)
    gpu_rows "$1" | awk -v p="$2" -v c="$3" '$1 == p { print $c }'
}
sci() { awk -v x="$1" 'BEGIN { if (x == "") print "not run"; else printf "%.3g", x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "not run"; else printf "%.2f", a / b }'; }

# bench NAME FLAGS...: runs `phaseflow bench --gpu-only FLAGS --csv`, output in logs/NAME.*
bench() {
    local name="$1"; shift
    echo "gpu-suite: bench $*" >&2
    "$bin" bench --gpu-only "$@" --csv "$logs/$name.csv" >"$logs/$name.txt" 2>&1 || {
        echo "gpu-suite: bench $* failed (see $logs/$name.txt)" >&2
        : >"$logs/$name.csv"
    }
}

size="--points $points --rounds $rounds"
cmd="bench --gpu-only $size --steps $steps_fast"
bench pendulum $size --steps "$steps_fast"
f32=$(field "$logs/pendulum.csv" f32 2); f64=$(field "$logs/pendulum.csv" f64 2)
row "$cmd" "$(sci "$f32") point-steps/s (f32)" "≥ 1e12"
row "$cmd" "f64 ÷ f32 = $(ratio "$f64" "$f32") ($(sci "$f64") point-steps/s)" "≈ 0.5"

cmd="bench --gpu-only --method verlet $size --steps $steps_fast"
bench verlet --method verlet $size --steps "$steps_fast"
row "$cmd" "$(sci "$(field "$logs/verlet.csv" f32 2)") point-steps/s (f32)" "≥ 5e11"

cmd="bench --gpu-only --system kepler --method yoshida4 $size --steps $steps_slow"
bench kepler --system kepler --method yoshida4 $size --steps "$steps_slow"
f32=$(field "$logs/kepler.csv" f32 2); f64=$(field "$logs/kepler.csv" f64 2)
row "$cmd" "$(sci "$f32") point-steps/s (f32)" "≥ 5e10"
row "$cmd" "f64 ÷ f32 = $(ratio "$f64" "$f32") ($(sci "$f64") point-steps/s)" "≈ 0.5"

formula='p^2/2 + 1 - cos(q)'
cmd="bench --gpu-only --hamiltonian '$formula' --against pendulum $size --steps $steps_fast"
bench formula --hamiltonian "$formula" --against pendulum $size --steps "$steps_fast"
for p in f32 f64; do
    x=$(field "$logs/formula.csv" "$p" 3)
    row "$cmd" "formula ÷ pendulum = $(awk -v x="$x" 'BEGIN { if (x == "") print "not run"; else printf "%.2f", x }') ($p)" "≥ 0.95"
done

cmd="study --preset pendulum-level $study_flags --backend gpu"
echo "gpu-suite: $cmd" >&2
rm -rf "$logs/study"
start=$(date +%s.%N)
# shellcheck disable=SC2086 # study_flags is a list of flags
if "$bin" study --preset pendulum-level $study_flags --backend gpu --quiet --out "$logs/study" >"$logs/study.txt" 2>&1; then
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    row "$cmd" "$seconds s wall" "< 60 s"
else
    row "$cmd" "failed (see logs/study.txt)" "< 60 s"
fi

# --backend auto's calibration: from which ensemble size this GPU runs faster than the CPU
# engine (kept in the logs' own cache, not the user's).
cmd="devices --calibrate"
echo "gpu-suite: $cmd" >&2
if PHASEFLOW_CACHE_DIR="$logs/cache" "$bin" devices --calibrate >"$logs/calibrate.txt" 2>&1; then
    for p in f32 f64; do
        line=$(grep -F "  $p: " "$logs/calibrate.txt" | head -n 1)
        from=$(printf '%s\n' "$line" | sed -n 's/.*takes the GPU from about \([0-9]*\) points.*/\1/p')
        speeds=$(printf '%s\n' "$line" | sed -n 's/.*at \([0-9]*\) points the CPU engine \([^ ]*\) and the GPU \([^ ]*\) point-steps.*/CPU engine \2, GPU \3 point-steps\/s at \1 points/p')
        when="never takes the GPU (the CPU engine estimated faster at every size)"
        [ -z "$from" ] || when="takes the GPU from about $from points"
        row "$cmd" "$p: --backend auto $when for 1000 steps; ${speeds:-no figures (see logs/calibrate.txt)}" "recorded"
    done
else
    row "$cmd" "failed (see logs/calibrate.txt)" "recorded"
fi

# validate: every system × method (the smoke run: four kinds of method), at f32 and f64, on each system's own scales: (h, disk radius, steps) as in
# tests/gpu.rs's every_pair_disagreement, which explains them.
scales() {
    case "$1" in
        spring-chain) echo "5e-4 0.01 400" ;;
        outer-solar-system) echo "1.0 1e-3 400" ;;
        henon-heiles) echo "0.05 0.05 400" ;;
        kepler) echo "0.05 0.05 100" ;;
        elastic-pendulum-zphi) echo "0.002 0.01 100" ;;
        euler-disk) echo "0.001 0.01 400" ;;
        double-pendulum-variational) echo "0.01 0.05 200" ;;
        *) echo "0.05 0.3 400" ;;
    esac
}
listing=$("$bin" list)
# `list`: "  NAME description" lines under the headings "systems:" and "methods:" (parameters
# are indented further; "  or your own: …" closes a section).
section() {
    printf '%s\n' "$listing" | awk -v h="$1:" '$0 == h { on = 1; next } /^[^ ]/ { on = 0 }
        on && /^  [a-z]/ && !/^  or / { print $1 }'
}
systems=$(section systems)
if [ "$smoke" = 1 ]; then
    # an explicit splitting, an implicit solve, Runge-Kutta stages, the variational map
    methods="verlet implicit-midpoint rk4 variational"
else
    methods=$(section methods)
fi
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 8 ] || jobs=8
mkdir -p "$logs/validate"
validate_one() { # system method precision: writes logs/validate/S.M.P.{txt,rc}
    local s="$1" m="$2" p="$3" h r k
    read -r h r k <<<"$(scales "$s")"
    [ "$smoke" = 0 ] || k=5
    local log="$logs/validate/$s.$m.$p"
    set +e
    "$bin" validate --system "$s" --method "$m" --precision "$p" --ensemble disk \
        --points "$validate_points" --radius "$r" --dt "$h" --steps "$k" --quiet >"$log.txt" 2>&1
    echo $? >"$log.rc"
}
echo "gpu-suite: validate, $jobs at a time" >&2
for s in $systems; do
    for m in $methods; do
        for p in f32 f64; do
            while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
            validate_one "$s" "$m" "$p" &
        done
    done
done
wait
for s in $systems; do
    read -r h r k <<<"$(scales "$s")"
    [ "$smoke" = 0 ] || k=5
    for p in f32 f64; do
        pass=0; fail=0; refused=0; failed=""; worst=""; worst_method=""
        for m in $methods; do
            log="$logs/validate/$s.$m.$p"
            rc=$(cat "$log.rc")
            dev=$(sed -n 's/.*max_rel_dev=\([^ ]*\).*/\1/p' "$log.txt" | head -n 1)
            case "$rc" in
                0) pass=$((pass + 1)) ;;
                2) refused=$((refused + 1)); continue ;;
                *) fail=$((fail + 1)); failed="$failed $m${dev:+ ($dev)}" ;;
            esac
            if [ -n "$dev" ] && awk -v a="$dev" -v b="${worst:--1}" 'BEGIN { exit !(a + 0 > b + 0) }'; then
                worst="$dev"; worst_method="$m"
            fi
        done
        figure="$pass pass"
        [ "$fail" = 0 ] || figure="$figure, **$fail fail**:$failed"
        [ -z "$worst" ] || figure="$figure; largest max_rel_dev $worst ($worst_method)"
        [ "$refused" = 0 ] || figure="$figure; $refused of the methods not for this system"
        tolerance=1e-3; [ "$p" = f32 ] || tolerance=1e-12
        row "validate --system $s --method (each) --precision $p --ensemble disk --points $validate_points --radius $r --dt $h --steps $k" \
            "$figure" "every method passes: max_rel_dev ≤ $tolerance"
    done
done

{
    echo "GPU suite$([ "$smoke" = 1 ] && echo ' (--smoke: small sizes, not GPU figures)'), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); every command is \`phaseflow\`'s, its output in $logs/"
    echo
    echo "| device | driver | command | figure | target |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$table"
cat "$table"
