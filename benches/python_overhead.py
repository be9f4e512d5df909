#!/usr/bin/env python3
"""The Python package's overhead against the command line, measured in one run.

Three comparisons, each on 10^6 pendulum points × 200 steps of symplectic Euler A on the CPU
engine (f32 and f64), R interleaved rounds, best and median kept:

1. `phaseflow run --out DIR` as a whole process, against `phaseflow.run(...)` without `out`
   (nothing written: the statistics and the final state handed back in memory);
2. one `Ensemble.advance(200)` against twenty `Ensemble.advance(10)` (the ensemble made
   outside the timing);
3. `final_state` of 10^7 f32 points: whether numpy's array shares the library's buffer (no
   copy), shown by its flags (OWNDATA false: the memory belongs to the library's object).

    python3 benches/python_overhead.py [--rounds 5] [--points 1000000]

Needs the package installed (scripts/test-python does it) and `target/release/phaseflow`.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

import phaseflow

BIN = os.environ.get("PHASEFLOW_BIN", os.path.join(os.path.dirname(__file__), "..", "target",
                                                   "release", "phaseflow"))


def timed(work):
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--points", type=int, default=1_000_000)
    args = ap.parse_args()
    common = dict(system="pendulum", method="symplectic-euler-a", ensemble="disk", points=args.points,
                  dt=0.01, backend="cpu")
    for precision in ("f32", "f64"):
        kw = dict(common, precision=precision)
        flags = ["run", "--quiet", "--steps", "200"]
        for k, v in kw.items():
            flags += ["--" + k.replace("_", "-"), str(v)]
        times = {"cli": [], "memory": [], "advance": [], "pieces": []}
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                times["cli"].append(timed(lambda: subprocess.run(
                    [BIN, *flags, "--out", os.path.join(tmp, "r")], check=True)))
            times["memory"].append(timed(lambda: phaseflow.run(steps=200, **kw)))
            ens = phaseflow.Ensemble(**kw)
            times["advance"].append(timed(lambda: ens.advance(200)))
            ens = phaseflow.Ensemble(**kw)
            times["pieces"].append(timed(lambda: [ens.advance(10) for _ in range(20)]))
        best = {k: min(v) for k, v in times.items()}
        median = {k: statistics.median(v) for k, v in times.items()}
        print(f"{precision}: best  cli {best['cli']:.3f} s, in memory {best['memory']:.3f} s "
              f"({best['memory'] / best['cli']:.3f}×); advance(200) {best['advance']:.3f} s, "
              f"20 × advance(10) {best['pieces']:.3f} s ({best['pieces'] / best['advance']:.3f}×)")
        print(f"{precision}: median cli {median['cli']:.3f} s, in memory {median['memory']:.3f} s "
              f"({median['memory'] / median['cli']:.3f}×); advance(200) {median['advance']:.3f} s, "
              f"20 × advance(10) {median['pieces']:.3f} s "
              f"({median['pieces'] / median['advance']:.3f}×)")
    big = phaseflow.run(system="pendulum", method="symplectic-euler-a", ensemble="disk", points=10_000_000,
                        dt=0.01, steps=1, backend="cpu", precision="f32")
    state = big.final_state
    chain = []
    base = state.base
    while base is not None:
        chain.append(type(base).__name__)
        base = getattr(base, "base", None)
    print(f"final_state of 10^7 f32 points: shape {state.shape}, dtype {state.dtype}, "
          f"owns its data: {state.flags.owndata}, bases: {' <- '.join(chain)}")


if __name__ == "__main__":
    main()
