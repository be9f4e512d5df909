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
//! oscillator) and the explicit methods built from kicks and drifts, plus RK4; `new` returns
//! `None` for anything else. Its results agree with the engines' only to rounding (libm's sine
//! is not `sin_poly`), which `bench` reports as a deviation, not as a check.

use super::{Engine, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::{composition, Method};
use crate::state::State;
use crate::system::System;

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
            System::Pendulum(s) => (Force::Pendulum(s.m * s.g * s.l), 1.0 / (s.m * s.l * s.l)),
            System::Oscillator(s) => (Force::Spring(s.k), 1.0 / s.m),
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

/// Velocity Verlet on one point.
#[inline(always)]
fn verlet<T: Real>(f: &impl Fn(T) -> T, v: &impl Fn(T) -> T, q: &mut T, p: &mut T, h: T) {
    *p -= T::HALF * h * f(*q);
    *q += h * v(*p);
    *p -= T::HALF * h * f(*q);
}

/// Every point advanced one step of `method` (steps outer, points inner, like numpy): the
/// method is chosen once, and each arm is its own plain loop over the points.
fn step_all<T: Real>(
    method: Method,
    f: impl Fn(T) -> T,
    v: impl Fn(T) -> T,
    qs: &mut [T],
    ps: &mut [T],
    h: T,
) {
    let two = T::ONE + T::ONE;
    let sixth = T::ONE / (two * (T::ONE + two));
    let points = qs.iter_mut().zip(ps.iter_mut());
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
        Method::Verlet => points.for_each(|(q, p)| verlet(&f, &v, q, p, h)),
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
        Method::Yoshida4 | Method::Suzuki4 | Method::Yoshida6 => {
            let weights = match method {
                Method::Yoshida4 => composition::YOSHIDA4.weights,
                Method::Suzuki4 => composition::SUZUKI4.weights,
                _ => composition::YOSHIDA6.weights,
            };
            points.for_each(|(q, p)| {
                for &w in weights {
                    verlet(&f, &v, q, p, T::from_f64(w) * h);
                }
            })
        }
        _ => unreachable!("ReferenceEngine::new accepts only the methods above"),
    }
}

impl<T: Real> Engine<T> for ReferenceEngine<T> {
    fn describe(&self) -> String {
        "plain Rust loop (1 thread, std sin)".into()
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        let (h, inv_mass) = (self.h, self.inv_mass);
        let v = move |p: T| p * inv_mass;
        let (qs, ps) = (&mut self.state.q, &mut self.state.p);
        for _ in 0..steps {
            match self.force {
                Force::Pendulum(c) => {
                    let c = T::from_f64(c);
                    step_all(self.method, |q: T| c * q.libm_sin(), v, qs, ps, h)
                }
                Force::Spring(k) => {
                    let k = T::from_f64(k);
                    step_all(self.method, |q: T| k * q, v, qs, ps, h)
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
                let Some(mut r) = ReferenceEngine::new(
                    &Integrator::with_default_solver::<f64>(system.clone(), method, 0.01),
                    init.clone(),
                ) else {
                    continue;
                };
                let mut e = CpuEngine::new(
                    &Integrator::with_default_solver::<f64>(system.clone(), method, 0.01),
                    init,
                );
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
            &Integrator::with_default_solver::<f64>(kepler.clone(), Method::Verlet, 0.01),
            s
        )
        .is_none());
        let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
        let s = State::<f64>::from_rows(&[vec![0.1, 0.0]], 1);
        assert!(ReferenceEngine::new(
            &Integrator::with_default_solver::<f64>(pendulum.clone(), Method::BlanesMoan4, 0.01),
            s
        )
        .is_none());
    }
}
