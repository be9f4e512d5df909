#!/usr/bin/env python3
"""phaseflow's CPU engine against numpy and JAX on the same problem, measured in one run.

The problem is `phaseflow bench`'s default: the pendulum (m = g = l = 1) under symplectic
Euler A, p -= h sin(q); q += h p, for N points × S steps at h = 0.01, points in a disk of
radius 0.3 around (q, p) = (0, 0.8). Every implementation runs R rounds, interleaved
(phaseflow, numpy f32, numpy f64, JAX f32, JAX f64, phaseflow, ...), and keeps its fastest
round, so a busy moment hurts all of them alike. Timed: all steps (JAX: the jitted loop,
after a compile-and-run warm-up, until block_until_ready).

    pip install numpy jax     # JAX runs on the CPU here
    python3 benches/peers.py [--points 1000000] [--steps 200] [--rounds 3] [--csv FILE]

numpy runs its ufuncs on one thread with in-place updates (no temporaries beyond one buffer);
JAX uses XLA's CPU backend as configured by default. phaseflow is `target/release/phaseflow`
(build it with `cargo build --release` first), all cores.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

H = 0.01


def disk(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    r = 0.3 * np.sqrt(rng.random(n))
    a = 2 * np.pi * rng.random(n)
    return (r * np.cos(a)).astype(dtype), (0.8 + r * np.sin(a)).astype(dtype)


def numpy_run(n, steps, dtype):
    q, p = disk(n, dtype)
    tmp = np.empty_like(q)
    h = dtype(H)
    t0 = time.perf_counter()
    for _ in range(steps):
        np.sin(q, out=tmp)
        tmp *= h
        p -= tmp
        np.multiply(p, h, out=tmp)
        q += tmp
    return time.perf_counter() - t0


def jax_runner(n, steps, dtype):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    h = dtype(H)

    @jax.jit
    def run(q, p):
        def body(_, s):
            q, p = s
            p = p - h * jnp.sin(q)
            q = q + h * p
            return (q, p)

        return jax.lax.fori_loop(0, steps, body, (q, p))

    q0, p0 = disk(n, dtype)
    q, p = jnp.asarray(q0), jnp.asarray(p0)
    jax.block_until_ready(run(q, p))  # compile + warm-up

    def timed():
        t0 = time.perf_counter()
        jax.block_until_ready(run(q, p))
        return time.perf_counter() - t0

    return timed


def phaseflow_run(binary, n, steps):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bench.csv")
        subprocess.run(
            [binary, "bench", "--no-gpu", "--points", str(n), "--steps", str(steps),
             "--csv", path],
            check=True, stdout=subprocess.DEVNULL,
        )
        with open(path) as f:
            rows = list(csv.DictReader(f))
    return {(r["backend"], r["precision"]): float(r["seconds"]) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--binary", default="target/release/phaseflow")
    ap.add_argument("--csv", help="also write the table as CSV")
    a = ap.parse_args()
    n, steps = a.points, a.steps
    try:
        jax_f32 = jax_runner(n, steps, np.float32)
        jax_f64 = jax_runner(n, steps, np.float64)
        import jax
        jax_name = f"JAX {jax.__version__} ({jax.devices()[0].platform})"
    except ImportError:
        jax_f32 = jax_f64 = None
        jax_name = None
    best = {}

    def keep(key, secs):
        best[key] = min(best.get(key, float("inf")), secs)

    for _ in range(a.rounds):
        for (backend, prec), secs in phaseflow_run(a.binary, n, steps).items():
            keep((f"phaseflow {backend}", prec), secs)
        keep((f"numpy {np.__version__} (1 thread)", "f32"), numpy_run(n, steps, np.float32))
        keep((f"numpy {np.__version__} (1 thread)", "f64"), numpy_run(n, steps, np.float64))
        if jax_name:
            keep((jax_name, "f32"), jax_f32())
            keep((jax_name, "f64"), jax_f64())

    rate = {k: n * steps / s for k, s in best.items()}
    rows = []
    print(f"pendulum, symplectic Euler A, {n} points × {steps} steps, h = {H}, best of {a.rounds} interleaved rounds")
    print(f"{'implementation':<36} {'precision':<9} {'seconds':>9} {'point-steps/s':>14} {'phaseflow cpu ×':>16}")
    for prec in ["f32", "f64"]:
        ours = rate.get(("phaseflow cpu", prec))
        for (impl, p), r in sorted(rate.items(), key=lambda kv: -kv[1]):
            if p != prec:
                continue
            lead = ours / r if ours else float("nan")
            print(f"{impl:<36} {p:<9} {best[(impl, p)]:>9.4f} {r:>14.3e} {lead:>16.2f}")
            rows.append([impl, p, n, steps, best[(impl, p)], r, lead])
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["implementation", "precision", "points", "steps", "seconds",
                        "point_steps_per_s", "phaseflow_cpu_lead"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
