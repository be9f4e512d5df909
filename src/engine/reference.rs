//! The reference loop `bench` measures the engines against: the plain single-threaded Rust a
//! user would write for the same step, one point at a time with the standard library's `sin`,
//! over all points for each step (the numpy loop `p -= h*sin(q); q += h*p`, in Rust).
//!
//! It exists so that speed can be checked as a ratio measured in one process (engine
//! point-steps/s ÷ reference point-steps/s at the same precision): absolute timings on a shared
//! machine vary by large factors, the ratio of two loops timed side by side much less. The CI
//! speed guard (`tests/speed.rs`, `bench --min-ratio`) fails when the CPU engine's ratio drops.
//!
//! It covers the one-degree-of-freedom separable systems with a closed-form force (pendulum,
//! oscillator) and the explicit methods built from kicks and drifts, plus RK4; Verlet and its
//! compositions keep each point's force from one step to the next, as molecular-dynamics
//! codes do (one force per drift); `new` returns
//! `None` for anything else. Its results agree with the engines' only to rounding (libm's sine
//! is not `sin_poly`), which `bench` reports as a deviation, not as a check.

use super::{Engine, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::{composition, Method};
use crate::state::State;
use crate::system::{HamiltonianSystem, System};

/// Force ∂H/∂q = V'(q) of the systems the reference covers.
#[derive(Debug, Clone, Copy)]
enum Force {
    /// m g l sin q
    Pendulum(f64),
    /// k q
    Spring(f64),
}

pub struct ReferenceEngine<T: Real> {
    force: Force,
    /// ∂H/∂p = p · inv_mass
    inv_mass: T,
    method: Method,
    h: T,
    state: State<T>,
}

impl<T: Real> ReferenceEngine<T> {
    /// The reference loop for this system and method, or `None` where there is none.
    pub fn new(k: &Integrator, state: State<T>) -> Option<Self> {
        let (method, h) = (k.method, k.h);
        let (force, inv_mass) = match &k.system {
            System::Hamiltonian(HamiltonianSystem::Pendulum(s)) => {
                (Force::Pendulum(s.m * s.g * s.l), 1.0 / (s.m * s.l * s.l))
            }
            System::Hamiltonian(HamiltonianSystem::Oscillator(s)) => {
                (Force::Spring(s.k), 1.0 / s.m)
            }
            _ => return None,
        };
        let covered = matches!(
            method,
            Method::Euler
                | Method::SymplecticEulerA
                | Method::SymplecticEulerB
                | Method::Verlet
                | Method::PositionVerlet
                | Method::Rk4
                | Method::Yoshida4
                | Method::Suzuki4
                | Method::Yoshida6
        );
        (covered && state.nt == 0).then(|| ReferenceEngine {
            force,
            inv_mass: T::from_f64(inv_mass),
            method,
            h: T::from_f64(h),
            state,
        })
    }
}

/// The kick–drift form of Verlet and its compositions as a careful user writes it: the force
/// of each point kept from one step to the next, so a stage costs one force and one velocity.
/// Kick coefficients (times h) k_0 … k_s and drift coefficients d_1 … d_s of one step: for
/// weights w_j, k_0 = w_1/2, k_j = (w_j + w_{j+1})/2, k_s = w_s/2, d_j = w_j.
struct KickDrift<T> {
    kicks: Vec<T>,
    drifts: Vec<T>,
}

impl<T: Real> KickDrift<T> {
    fn new(weights: &[f64], h: T) -> Self {
        let s = weights.len();
        let kick = |j: usize| {
            let before = if j > 0 { weights[j - 1] } else { 0.0 };
            let after = if j < s { weights[j] } else { 0.0 };
            T::from_f64(0.5 * before + 0.5 * after) * h
        };
        KickDrift {
            kicks: (0..=s).map(kick).collect(),
            drifts: weights.iter().map(|&w| T::from_f64(w) * h).collect(),
        }
    }

    /// One step of one point whose force at q is `f` (updated to the force at the new q).
    #[inline(always)]
    fn step(&self, force: &impl Fn(T) -> T, v: &impl Fn(T) -> T, q: &mut T, p: &mut T, f: &mut T) {
        *p -= self.kicks[0] * *f;
        for (&d, &k) in self.drifts.iter().zip(&self.kicks[1..]) {
            *q += d * v(*p);
            *f = force(*q);
            *p -= k * *f;
        }
    }
}

/// Every point advanced one step of `method` (steps outer, points inner, like numpy): the
/// method is chosen once, and each arm is its own plain loop over the points. `fs` holds each
/// point's force at its q for the kick–drift methods, from one step to the next.
#[allow(clippy::too_many_arguments)]
fn step_all<T: Real>(
    method: Method,
    f: impl Fn(T) -> T,
    v: impl Fn(T) -> T,
    qs: &mut [T],
    ps: &mut [T],
    fs: &mut [T],
    kd: Option<&KickDrift<T>>,
    h: T,
) {
    let two = T::ONE + T::ONE;
    let sixth = T::ONE / (two * (T::ONE + two));
    let points = qs.iter_mut().zip(ps.iter_mut());
    if let Some(kd) = kd {
        return points
            .zip(fs.iter_mut())
            .for_each(|((q, p), fq)| kd.step(&f, &v, q, p, fq));
    }
    match method {
        Method::Euler => points.for_each(|(q, p)| {
            let (dq, dp) = (v(*p), f(*q));
            *q += h * dq;
            *p -= h * dp;
        }),
        Method::SymplecticEulerA => points.for_each(|(q, p)| {
            *p -= h * f(*q);
            *q += h * v(*p);
        }),
        Method::SymplecticEulerB => points.for_each(|(q, p)| {
            *q += h * v(*p);
            *p -= h * f(*q);
        }),
        Method::PositionVerlet => points.for_each(|(q, p)| {
            *q += T::HALF * h * v(*p);
            *p -= h * f(*q);
            *q += T::HALF * h * v(*p);
        }),
        Method::Rk4 => points.for_each(|(q, p)| {
            let (q0, p0) = (*q, *p);
            let (k1q, k1p) = (v(p0), -f(q0));
            let (k2q, k2p) = (v(p0 + T::HALF * h * k1p), -f(q0 + T::HALF * h * k1q));
            let (k3q, k3p) = (v(p0 + T::HALF * h * k2p), -f(q0 + T::HALF * h * k2q));
            let (k4q, k4p) = (v(p0 + h * k3p), -f(q0 + h * k3q));
            *q = q0 + h * sixth * (k1q + two * k2q + two * k3q + k4q);
            *p = p0 + h * sixth * (k1p + two * k2p + two * k3p + k4p);
        }),
        _ => unreachable!("ReferenceEngine::new accepts only the methods above"),
    }
}

/// The weights of the kick–drift methods the reference covers (Verlet: one).
fn kick_drift_weights(method: Method) -> Option<&'static [f64]> {
    match method {
        Method::Verlet => Some(&[1.0]),
        Method::Yoshida4 => Some(composition::YOSHIDA4.weights),
        Method::Suzuki4 => Some(composition::SUZUKI4.weights),
        Method::Yoshida6 => Some(composition::YOSHIDA6.weights),
        _ => None,
    }
}

impl<T: Real> Engine<T> for ReferenceEngine<T> {
    fn describe(&self) -> String {
        "plain Rust loop (1 thread, std sin)".into()
    }

    fn reverse(&mut self) {
        self.h = -self.h;
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        let (h, inv_mass) = (self.h, self.inv_mass);
        let v = move |p: T| p * inv_mass;
        let (qs, ps) = (&mut self.state.q, &mut self.state.p);
        let kd = kick_drift_weights(self.method).map(|w| KickDrift::new(w, h));
        match self.force {
            Force::Pendulum(c) => {
                let c = T::from_f64(c);
                let f = |q: T| c * q.libm_sin();
                let mut fs: Vec<T> = qs.iter().map(|&q| f(q)).collect();
                for _ in 0..steps {
                    step_all(self.method, f, v, qs, ps, &mut fs, kd.as_ref(), h)
                }
            }
            Force::Spring(k) => {
                let k = T::from_f64(k);
                let f = |q: T| k * q;
                let mut fs: Vec<T> = qs.iter().map(|&q| f(q)).collect();
                for _ in 0..steps {
                    step_all(self.method, f, v, qs, ps, &mut fs, kd.as_ref(), h)
                }
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<&State<T>> {
        Ok(&self.state)
    }

    fn points(&self) -> usize {
        self.state.n
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::CpuEngine;
    use std::collections::BTreeMap;

    /// The reference loop integrates the same method as the engine: after 100 steps the two
    /// agree to rounding (libm's sine against `sin_poly`), for every method it covers.
    #[test]
    fn reference_agrees_with_the_cpu_engine() {
        for name in ["pendulum", "oscillator"] {
            let system = System::new(name, &BTreeMap::new()).unwrap();
            for &method in crate::method::ALL {
                let init = State::<f64>::from_rows(&[vec![0.3, 0.8], vec![-1.0, 0.2]], 1);
                // A method the system cannot take (the discrete maps' own) has no integrator.
                let Ok(k) = Integrator::with_default_solver::<f64>(system.clone(), method, 0.01)
                else {
                    continue;
                };
                let Some(mut r) = ReferenceEngine::new(&k, init.clone()) else {
                    continue;
                };
                let mut e = CpuEngine::new(&k, init);
                r.advance(100).unwrap();
                e.advance(100).unwrap();
                let (a, b) = (r.state().unwrap().clone(), e.state().unwrap().clone());
                for (x, y) in a.q.iter().chain(&a.p).zip(b.q.iter().chain(&b.p)) {
                    assert!(
                        (x - y).abs() < 1e-12,
                        "{name} {}: {x} vs {y}",
                        method.name()
                    );
                }
            }
        }
    }

    #[test]
    fn other_systems_and_methods_have_no_reference() {
        let kepler = System::new("kepler", &BTreeMap::new()).unwrap();
        let s = State::<f64>::from_rows(&[vec![1.0, 0.0, 0.0, 1.0]], 2);
        assert!(ReferenceEngine::new(
            &Integrator::with_default_solver::<f64>(kepler.clone(), Method::Verlet, 0.01).unwrap(),
            s
        )
        .is_none());
        let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
        let s = State::<f64>::from_rows(&[vec![0.1, 0.0]], 1);
        assert!(ReferenceEngine::new(
            &Integrator::with_default_solver::<f64>(pendulum.clone(), Method::BlanesMoan4, 0.01)
                .unwrap(),
            s
        )
        .is_none());
    }
}
