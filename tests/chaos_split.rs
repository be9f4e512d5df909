//! The chaos indicators (`--chaos`) do not depend on where a run splits its steps: a kick–drift
//! method's prologue recomputes the carried force from the renormalised deviation vector at
//! every `advance` (a snapshot, a checkpoint, a GPU dispatch), and that equals the carried,
//! scaled force bit for bit only because `chaos::update` scales δ by an exact power of two.
//! Here the CPU engine runs 2000 steps in one piece, in four and in two uneven ones, on
//! Hénon–Heiles (a disk reaching its chaotic sea) and Kepler, at f64 and f32, and every
//! split must give the same state and accumulators to the bit.

mod common;

use common::{disk, system};
use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::float::Real;
use phaseflow::method::Method;
use phaseflow::state::State;

/// The state after `splits` advances from `init`.
fn run<T: Real>(k: &Integrator, init: &State<f64>, splits: &[u64]) -> State<T> {
    let mut e = CpuEngine::<T>::new(k, init.convert());
    for &s in splits {
        e.advance(s).unwrap();
    }
    e.state().unwrap().clone()
}

fn bits<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// Every split of 2000 steps gives the one-piece run's bits, for each system and method.
fn splits_agree<T: Real>() {
    for (name, h, radius) in [("henon-heiles", 0.05, 0.25), ("kepler", 0.05, 0.05)] {
        let sys = system(name);
        let init = common::with_deviation(&sys, &disk(&sys, 256, radius));
        for m in [Method::Yoshida4, Method::Verlet] {
            let k = common::chaos_integrator::<T>(&sys, m, h);
            let whole = run::<T>(&k, &init, &[2000]);
            let growth = &whole.chaos[whole.n..2 * whole.n];
            let finite = growth
                .iter()
                .filter(|x| x.is_finite() && **x != T::ZERO)
                .count();
            println!(
                "{name} / {}: {finite} of {} points finite",
                m.name(),
                whole.n
            );
            assert!(finite >= whole.n / 2, "{name}: {finite} points finite");
            for splits in [&[500, 500, 500, 500][..], &[1000, 1000], &[1, 1237, 762]] {
                let got = run::<T>(&k, &init, splits);
                let what = format!("{name} / {} split {splits:?}", m.name());
                for (part, a, b) in [
                    ("q", &got.q, &whole.q),
                    ("p", &got.p, &whole.p),
                    ("accumulators", &got.chaos, &whole.chaos),
                ] {
                    let differ = bits(a)
                        .iter()
                        .zip(bits(b))
                        .filter(|(x, y)| **x != *y)
                        .count();
                    assert_eq!(
                        differ,
                        0,
                        "{what}: {differ} of {} words of {part} differ",
                        a.len()
                    );
                }
            }
        }
    }
}

#[test]
fn indicators_do_not_depend_on_the_split_at_f64() {
    splits_agree::<f64>();
}

#[test]
fn indicators_do_not_depend_on_the_split_at_f32() {
    splits_agree::<f32>();
}
