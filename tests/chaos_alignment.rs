//! FLI, SALI and GALI_k (`--chaos fli,sali,gali2,gali3,gali4`, `chaos::alignment`) against
//! the laws of their papers on Hénon–Heiles (Skokos, "Alignment indices: a new, simple method
//! for determining the ordered or chaotic nature of orbits"; Skokos, Bountis and
//! Antonopoulos, "Geometrical properties of local dynamics in Hamiltonian systems: the
//! Generalized Alignment Index (GALI) method"; Froeschlé, Lega and Gonczi, "Fast Lyapunov
//! indicators. Application to asteroidal motion"), on the CPU engine in f64:
//!
//! - on a chaotic orbit (E = 1/8) SALI falls exponentially, below 10⁻⁸ within a few thousand
//!   time units;
//! - on a torus (E = 1/12) SALI tends to a positive constant, GALI_2 ∝ t⁰, GALI_3 ∝ t⁻²,
//!   GALI_4 ∝ t⁻⁴ (fitted exponents within 0.2), and FLI grows like ln t;
//!
//! and the vectors and accumulators do not depend on where a run splits its steps, and the GPU
//! engine (lavapipe: it rounds each operation as the CPU does) gives the CPU's bits.

mod common;

use std::sync::Arc;

use common::system;
use phaseflow::chaos::{Chaos, Deviation};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::float::Real;
use phaseflow::measure::chaos::point_row;
use phaseflow::method::Method;
use phaseflow::observe::chaos::ChaosObserver;
use phaseflow::state::State;

const ALL: &str = "megno,fli,sali,gali2,gali3,gali4";

fn chaos(text: &str) -> Chaos {
    let sys = system("henon-heiles");
    let deviation = Deviation::resolve(None, None, sys.dof(), sys.masses()).unwrap();
    Chaos::parse(text, deviation).unwrap()
}

/// The integrator a run with `--chaos text` builds.
fn integrator<T: Real>(text: &str, m: Method, h: f64) -> Integrator {
    let c = chaos(text);
    Integrator::with_default_solver::<T>(system("henon-heiles"), m, h)
        .unwrap()
        .with_observer(Arc::new(ChaosObserver {
            weights: c.deviation.weights(),
            layout: c.layout(),
        }))
}

/// Hénon–Heiles points (q1, q2, p1, p2) with the deviation vectors of `--chaos text` (seed 7).
fn start(text: &str, points: &[[f64; 4]]) -> State<f64> {
    let c = chaos(text);
    let rows: Vec<Vec<f64>> = points.iter().map(|p| p.to_vec()).collect();
    let l = c.layout();
    State::from_rows(&rows, 2).with_deviations(l.vectors, l.width(), |i, row| {
        c.deviation.write_vectors(7, i, 2, row)
    })
}

/// The point on the section q1 = 0 at (q2, p2) with p1 > 0 on the level H = e.
fn on_level(e: f64, q2: f64, p2: f64) -> [f64; 4] {
    let v = q2 * q2 / 2.0 - q2 * q2 * q2 / 3.0;
    [0.0, q2, (2.0 * (e - v) - p2 * p2).sqrt(), p2]
}

/// The indicators (`ALL`'s columns: megno, fli, sali, sali_min, gali2, gali3, gali4) of one
/// point at the times `times` (Yoshida's fourth order, h = 0.05).
fn history(point: [f64; 4], times: &[f64]) -> Vec<(f64, Vec<f64>)> {
    let h = 0.05;
    let k = integrator::<f64>(ALL, Method::Yoshida4, h);
    let mut e = CpuEngine::<f64>::new(&k, start(ALL, &[point]));
    let mut step = 0u64;
    let c = chaos(ALL);
    times
        .iter()
        .map(|&t| {
            let target = (t / h).round() as u64;
            e.advance(target - step).unwrap();
            step = target;
            (t, point_row(e.state().unwrap(), 0, h, &c))
        })
        .collect()
}

/// `count` times from `a` to `b`, evenly spaced in ln t.
fn geometric(a: f64, b: f64, count: usize) -> Vec<f64> {
    (0..count)
        .map(|i| a * (b / a).powf(i as f64 / (count - 1) as f64))
        .collect()
}

/// The least-squares slope of y against x.
fn slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

const MEGNO: usize = 0;
const FLI: usize = 1;
const SALI: usize = 2;
const SALI_MIN: usize = 3;
const GALI: usize = 4;

/// A chaotic orbit of E = 1/8 (q2 = −0.25, p2 = 0 on the section; MEGNO confirms it):
/// SALI falls below 10⁻⁸ before t = 3000, and ln SALI falls along a line (an exponential)
/// until it nears the rounding level; FLI outgrows the torus' ln t.
#[test]
fn sali_falls_exponentially_on_a_chaotic_orbit() {
    let times: Vec<f64> = (1..=150).map(|i| 20.0 * i as f64).collect();
    let hist = history(on_level(0.125, -0.25, 0.0), &times);
    for (t, row) in hist.iter().step_by(5) {
        println!(
            "chaotic t = {t}: <Y> {:.3} FLI {:.3} SALI {:.3e} (least {:.3e}) GALI2 {:.3e}",
            row[MEGNO], row[FLI], row[SALI], row[SALI_MIN], row[GALI]
        );
    }
    let last = &hist.last().unwrap().1;
    assert!(last[MEGNO] > 8.0, "not chaotic: <Y> = {}", last[MEGNO]);
    let below = hist.iter().find(|(_, r)| r[SALI_MIN] < 1e-8).map(|h| h.0);
    println!("SALI below 1e-8 at t = {below:?}");
    assert!(below.is_some_and(|t| t <= 3000.0), "{below:?}");
    // The exponential fall: ln SALI against t over the samples from 1e-1 down to 1e-10.
    let fall: Vec<(f64, f64)> = hist
        .iter()
        .filter(|(_, r)| r[SALI] < 1e-1 && r[SALI] > 1e-10)
        .map(|(t, r)| (*t, r[SALI].ln()))
        .collect();
    assert!(fall.len() >= 4, "{fall:?}");
    let (x, y): (Vec<f64>, Vec<f64>) = fall.iter().copied().unzip();
    let rate = -slope(&x, &y);
    let n = x.len() as f64;
    let my = y.iter().sum::<f64>() / n;
    let mx = x.iter().sum::<f64>() / n;
    let resid: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (b - my + rate * (a - mx)).powi(2))
        .sum();
    let total: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    let r2 = 1.0 - resid / total;
    println!("ln SALI falls at {rate:.4} per time unit, r² = {r2:.3}");
    assert!(rate > 0.0 && r2 > 0.8, "{rate} {r2}");
    assert!(last[FLI] > 2.0 * (1.0 + 3000.0_f64).ln(), "{}", last[FLI]);
}

/// A torus of E = 1/12 (the system's default point q2 = 0.1, p2 = 0): SALI settles to a
/// positive constant, GALI_k ∝ t^(−2(k−2)) for k = 2, 3, 4 and FLI ∝ ln t.
#[test]
fn gali_follows_its_power_laws_on_a_torus() {
    let times = geometric(100.0, 5000.0, 24);
    let hist = history(on_level(1.0 / 12.0, 0.1, 0.0), &times);
    for (t, row) in &hist {
        println!(
            "torus t = {t:.1}: <Y> {:.3} FLI {:.3} SALI {:.4} GALI2 {:.3e} GALI3 {:.3e} GALI4 {:.3e}",
            row[MEGNO], row[FLI], row[SALI], row[GALI], row[GALI + 1], row[GALI + 2]
        );
    }
    let ln_t: Vec<f64> = times.iter().map(|t| t.ln()).collect();
    for (j, want) in [(0, 0.0), (1, -2.0), (2, -4.0)] {
        let ln_g: Vec<f64> = hist.iter().map(|(_, r)| r[GALI + j].ln()).collect();
        let got = slope(&ln_t, &ln_g);
        println!("GALI_{}: fitted exponent {got:.3} (law {want})", j + 2);
        assert!((got - want).abs() < 0.2, "GALI_{}: {got}", j + 2);
    }
    // SALI: positive, and its second half within a factor of 2 of its mean there.
    let late: Vec<f64> = hist[hist.len() / 2..]
        .iter()
        .map(|(_, r)| r[SALI])
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    let least = hist.last().unwrap().1[SALI_MIN];
    println!("SALI late mean {mean:.4}, least so far {least:.4}");
    assert!(mean > 1e-3 && least > 1e-4, "{mean} {least}");
    assert!(
        late.iter().all(|s| *s > mean / 2.0 && *s < 2.0 * mean),
        "{late:?}"
    );
    // FLI = the largest ln|δ| ≈ ln t + c: slope 1 against ln t.
    let fli: Vec<f64> = hist.iter().map(|(_, r)| r[FLI]).collect();
    let got = slope(&ln_t, &fli);
    println!("FLI: slope {got:.3} against ln t");
    assert!((got - 1.0).abs() < 0.2, "{got}");
    assert!(hist.iter().all(|(t, r)| r[FLI] < 2.0 * (1.0 + t).ln()));
}

fn bits<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// A disk reaching the chaotic sea of E ≈ 1/8 with every indicator.
fn disk_points() -> Vec<[f64; 4]> {
    (0..40)
        .map(|i| on_level(0.125, -0.3 + 0.012 * i as f64, 0.01 * (i % 7) as f64))
        .collect()
}

/// The state after advances of `splits` steps on `cpu` or the GPU engine.
fn advanced<T: Real>(gpu: bool, m: Method, splits: &[u64]) -> State<T> {
    let k = integrator::<T>(ALL, m, 0.05);
    let init: State<T> = start(ALL, &disk_points()).convert();
    let mut e: Box<dyn Engine<T>> = if gpu {
        Box::new(GpuEngine::<T>::new(&k, init).unwrap())
    } else {
        Box::new(CpuEngine::<T>::new(&k, init))
    };
    for &s in splits {
        e.advance(s).unwrap();
    }
    e.state().unwrap().clone()
}

fn assert_same<T: Real>(a: &State<T>, b: &State<T>, what: &str) {
    for (part, x, y) in [
        ("q", &a.q, &b.q),
        ("p", &a.p, &b.p),
        ("accumulators", &a.chaos, &b.chaos),
    ] {
        let differ = bits(x)
            .iter()
            .zip(bits(y))
            .filter(|(u, v)| **u != *v)
            .count();
        assert_eq!(
            differ,
            0,
            "{what}: {differ} of {} words of {part} differ",
            x.len()
        );
    }
}

/// Every split of 1500 steps gives the one-piece run's bits (vectors, FLI, SALI and its least
/// value), at f64 and f32, for a kick–drift method (its carried force scaled with each vector)
/// and a Runge–Kutta one.
#[test]
fn the_new_indicators_do_not_depend_on_the_split() {
    fn check<T: Real>() {
        for m in [Method::Yoshida4, Method::Rk4] {
            let whole = advanced::<T>(false, m, &[1500]);
            assert_eq!((whole.nt, whole.chaos_width()), (4, 8));
            let c = chaos(ALL);
            let sali: Vec<f64> = (0..whole.n)
                .map(|i| point_row(&whole, i, 0.05, &c)[SALI_MIN])
                .collect();
            // Some points' vectors align already (the chaotic ones).
            assert!(sali.iter().any(|s| *s < 1e-2), "{sali:?}");
            for splits in [&[500, 500, 500][..], &[1, 1237, 262]] {
                let what = format!("{} / {} split {splits:?}", T::NAME, m.name());
                assert_same(&advanced::<T>(false, m, splits), &whole, &what);
            }
        }
    }
    check::<f64>();
    check::<f32>();
}

/// The GPU kernel runs `update_more`'s operations in its order: on lavapipe, which rounds as
/// the CPU does, Hénon–Heiles' vectors and accumulators are the CPU's to the bit, in f64 and
/// f32, through two advances (the words travel through the buffer between dispatches). Fails
/// without an adapter, like tests/gpu.rs.
#[test]
fn the_gpu_gives_the_cpu_bits() {
    fn check<T: Real>() {
        for m in [Method::Verlet, Method::Rk4] {
            let g = advanced::<T>(true, m, &[60, 60]);
            let c = advanced::<T>(false, m, &[60, 60]);
            assert_same(&g, &c, &format!("GPU {} / {}", T::NAME, m.name()));
        }
    }
    check::<f64>();
    check::<f32>();
}
