//! The variational integrators of Torrente's practicum (J. Torrente Teruel, Integradores
//! simplécticos en sistemas mecánicos simples, 2022): each variational system (`SystemInfo::variational`)
//! defines its own two-step map (q_{k−1}, q_k) ↦ (q_k, q_{k+1}) from a discrete Lagrangian and,
//! for nonholonomic systems, a discrete constraint (discrete Euler–Lagrange or
//! Lagrange–d'Alembert equations), so this one method only runs the system's `discrete_step`
//! (`Ops::discrete_step`: the system's Rust map on the CPU, its WGSL one on the GPU). The state
//! is stored as (q_k, v_k) with v_k = (q_{k+1} − q_k)/h in the `q` and `p` slots.
//!
//! The drift q_{k+1} = q_k + h v_k is summed here, into q0, through `Ops::update`, the one
//! state update every method writes, so `--compensated` carries its rounding as it does for
//! the Hamiltonian methods: in f32 a configuration that grows (a heading turning for 10⁴
//! steps) rounds each increment h v to its ulp, the same way every step, and a map that
//! compares the new configuration with the old one (the vertical disk's heading against its
//! velocity's direction) turns that bias into an energy drift. The map then reads q0 as its
//! new configuration (`DiscreteMap::discrete_step`'s `next`).
//!
//! Compensated runs below f64 on the CPU engine take the whole step, drift included, in f64
//! from the state's pairs x + e (`Block::discrete_step_f64`): the map's own f32 arithmetic
//! (sines and cosines of a heading of a few hundred radians, velocities rounded to an ulp
//! every step) is what limits such a run, and summing the state's updates compensated cannot
//! reach it; the vertical disk's energy drifted by 9·10⁻⁴ in 3·10⁴ steps so, 5·10⁵ times
//! f64's. In f64 from the pairs, the step is the f64 run's step on a state held to 2⁻⁴⁸,
//! split back into (value, carried error) after it.

use super::block::Block;
use super::ops::Vector;
use super::{MethodInfo, Ops, Scheme};
use crate::float::Real;
use crate::system::{DiscreteSystem, Newton, System};

pub const INFO: MethodInfo = MethodInfo {
    name: "variational",
    order: 2,
    symplectic: true,
    summary: "the variational system's own two-step map from its discrete Lagrangian (and discrete constraint): Torrente Teruel's discrete Euler–Lagrange / Lagrange–d'Alembert integrators; only for variational systems, whose state is (q, v = (q_{k+1} − q_k)/h); order and symplecticity as each system documents",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Variational;

impl Scheme for Variational {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        if !o.drifts_in_map() {
            o.update(Vector::Q0, Vector::Q, h, Vector::P);
        }
        o.discrete_step(h);
    }
}

/// Whether a CPU block of precision `T` takes a discrete map's step in f64 from its pairs
/// (`Ops::drifts_in_map`; `map_in_f64`).
pub(super) fn in_f64<T: Real>(compensated: bool, system: &System) -> bool {
    map_in_f64(compensated, T::NAME == "f64", system)
}

/// Whether a run takes its discrete map's steps in f64 from the state's pairs, on either
/// engine (the GPU's kernel: `gpu::shader`): compensated, below f64 (f64 holds an f32
/// pair's sum exactly), and a map that drifts (the others take no `--compensated`).
pub fn map_in_f64(compensated: bool, f64: bool, system: &System) -> bool {
    compensated && !f64 && system.discrete().is_some_and(|m| m.drifts())
}

impl<T: Real> Block<T> {
    /// One step of the block's discrete map in f64 (`in_f64`): q and v read as q + eq and
    /// v + ev, the drift q + h v and the map's step as the f64 run takes them (Newton's
    /// iterations to the run's own tolerance), and the results split back into the nearest
    /// `T` and the rest. Compensated maps run without tangent columns
    /// (`config::check_variational_kernel`).
    pub(super) fn discrete_step_f64(&mut self, map: &DiscreteSystem, h: T, newton: Newton) {
        debug_assert!(self.nt == 0 && self.compensated);
        let nd = self.n * self.d;
        self.wide.resize(3 * nd, 0.0);
        let (q, rest) = self.wide.split_at_mut(nd);
        let (v, next) = rest.split_at_mut(nd);
        let pairs = |x: &[T], e: &[T], out: &mut [f64]| {
            for ((o, x), e) in out.iter_mut().zip(x).zip(e) {
                *o = x.to_f64() + e.to_f64();
            }
        };
        pairs(&self.q[..nd], &self.eq[..nd], q);
        pairs(&self.p[..nd], &self.ep[..nd], v);
        let h = h.to_f64();
        for ((n, q), v) in next.iter_mut().zip(&*q).zip(&*v) {
            *n = q + h * v;
        }
        map.discrete_step(h, q, next, v, &mut [], newton, &mut self.unconverged);
        split(q, &mut self.q[..nd], &mut self.eq[..nd]);
        split(v, &mut self.p[..nd], &mut self.ep[..nd]);
    }
}

/// x as the nearest `T` and the rest, the pairs a compensated state holds.
fn split<T: Real>(x: &[f64], hi: &mut [T], lo: &mut [T]) {
    for ((&x, hi), lo) in x.iter().zip(hi).zip(lo) {
        (*hi, *lo) = crate::float::split_f64(x);
    }
}
