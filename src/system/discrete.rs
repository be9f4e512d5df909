//! What a discrete map implements: the `DiscreteMap` trait. A variational system
//! (`SystemInfo::variational`, after Marsden & West, "Discrete mechanics and variational
//! integrators") is defined by a discrete Lagrangian L_d(q_k, q_{k+1}) and, for rolling bodies,
//! a discrete constraint, not by a Hamiltonian: its dynamics is its own two-step map, stored as
//! (q_k, v_k) with v_k = (q_{k+1} − q_k)/h in the state's q and p slots. Its step, its
//! energy, its constraints and its phase-space coordinates live here, beside its description
//! (`SystemDescription`); it has no Hamiltonian vector field, so no gradients: `System` holds
//! it as its own kind (`System::DiscreteMap`), which the Hamiltonian methods cannot reach.
//! The step size h is an argument of every function that depends on it (the discrete
//! Lagrangian's quadrature points move with h): a map holds only its parameters, and the
//! run passes its `--dt`.
//!
//! Holonomic maps are symplectic in (q, p) with p_k = −D₁L_d(q_k, q_{k+1}) (the discrete
//! Legendre transform): `momentum` gives p from the stored (q, v), so loop areas are measured
//! in (q, p), and `tangent_step` advances tangent columns that hold the (q, p) map's
//! derivative, so the tangent map's determinant and symplecticity defect keep their meaning.
//! Nonholonomic maps (rolling without slipping) are not symplectic: they declare it, and loop
//! areas and the tangent map are refused for them.

use super::{energy_per_point, Newton, SystemDescription};
use crate::float::Real;

/// The constraints a discrete map declares (`DiscreteMap::constraints`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraints {
    /// None but the configuration space's own (angles, lengths): the map is symplectic in
    /// (q, p = −D₁L_d), and `momentum` gives p.
    Holonomic,
    /// Velocity constraints (rolling without slipping), enforced by a discrete constraint: the
    /// map conserves no symplectic form; `constraint_error` measures the continuous
    /// constraints' violation.
    Nonholonomic,
}

/// What every variational system implements beside its description (`dof`, `params`,
/// `constants`, `default_state`, …).
pub trait DiscreteMap: SystemDescription {
    /// The energy of one point (q_k, v_k) at step h, in f64: the continuous energy evaluated
    /// from the discrete velocity, where the discrete Lagrangian's quadrature evaluates it
    /// (each system documents which). Mirror: the system's f64 WGSL `energy`, which reads h
    /// as `H_STEP`.
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64;
    /// `energy` of the points `first..first + out.len()` of a component-major state of `n`
    /// points (see `Hamiltonian::energy_block`), point by point.
    fn energy_block<T: Real>(
        &self,
        h: f64,
        q: &[T],
        v: &[T],
        n: usize,
        first: usize,
        out: &mut [f64],
    ) {
        energy_per_point(self.dof(), |q, v| self.energy(h, q, v), q, v, n, first, out)
    }
    /// Holonomic (symplectic in (q, p)) or nonholonomic: what the run may measure.
    fn constraints(&self) -> Constraints;
    /// One step of the system's two-step map (q_{k−1}, q_k) ↦ (q_k, q_{k+1}) for a block of
    /// points, on the state stored as (q_k, v_k) with v_k = (q_{k+1} − q_k)/h (component-major,
    /// n = len / d points). `next` holds the drift q_k + h v_k, summed by the caller
    /// (`method::variational`) as every method sums its state updates, so compensated when the
    /// run is: a map that `drifts` takes it for q_{k+1}, stores it in q and computes the new
    /// velocity at it, so the configuration the map works with is the one the state holds.
    /// Implicit steps solve per point by Newton iteration to `newton.tol` with at most
    /// `newton.max_iter` iterations, and add 1 to `unconverged[i]` for a point that hits the
    /// cap. `ev` is empty, or with `--compensated` the velocities' carried errors (`State::ep`):
    /// a map that writes a velocity as an increment of the old one sums it compensated
    /// (`method::compensated::compensated_sum`) where a conserved velocity would otherwise
    /// collect one rounding per step; the others leave it. Mirror: the system's WGSL
    /// `discrete_step(h, q, next, v, ev)`.
    #[allow(clippy::too_many_arguments)]
    fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        next: &[T],
        v: &mut [T],
        ev: &mut [T],
        newton: Newton,
        unconverged: &mut [u32],
    );
    /// Whether the configuration steps by the stored velocity, q_{k+1} = q_k + h v_k, so that
    /// `discrete_step` takes `next` for it and `--compensated` carries the configuration's
    /// rounding (`config::check_variational_kernel`). The ball on the turntable stores a
    /// rotation vector in v and moves its centre by its own formula: not so.
    fn drifts(&self) -> bool {
        true
    }
    /// The coefficients the step computes from the parameters and h (named as messages show
    /// them), which the run's precision must hold (`System::check_precision`). Empty for
    /// systems whose kernels use only `constants`.
    fn step_constants(&self, _h: f64) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Holonomic maps: the discrete Legendre transform p = −D₁L_d(q, q + h v) of one point, in
    /// f64, written into `p` (d values). Nonholonomic maps have no such momentum and leave it.
    fn momentum(&self, _h: f64, _q: &[f64], _v: &[f64], _p: &mut [f64]) {}
    /// Whether `tangent_step` is written (holonomic maps whose linearisation is derived).
    fn linearised(&self) -> bool {
        false
    }
    /// Holonomic maps that are `linearised`: advance one tangent column (tq, tp) of a block of
    /// points (n = len / d) through one step of the map in (q, p) coordinates, from the points'
    /// states (q, v) before the step: the tangent column then holds the derivative of the
    /// symplectic map (q_k, p_k) ↦ (q_{k+1}, p_{k+1}), as a Hamiltonian method's does.
    fn tangent_step<T: Real>(&self, _h: T, _q: &[T], _v: &[T], _tq: &mut [T], _tp: &mut [T]) {}
    /// `tangent_step` for every tangent column of the block at once: column j's (q, p) rows
    /// at `j·len..(j + 1)·len` of `tq`, `tp` (len = q.len(), the block's d·n values). The
    /// default advances one column after another; a map whose linearisation costs more to
    /// evaluate than to apply (sines, cosines, an implicit step's Jacobian) overrides it to
    /// evaluate that once per point for all columns, with `tangent_step`'s arithmetic, so
    /// the columns come out bit for bit the same.
    fn tangent_columns<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        let len = q.len();
        for (cq, cp) in tq.chunks_exact_mut(len).zip(tp.chunks_exact_mut(len)) {
            self.tangent_step(h, q, v, cq, cp);
        }
    }
    /// Nonholonomic systems: the largest violation of the continuous constraints by the
    /// discrete velocity of one point (q_k, v_k) at step h, evaluated where the discrete
    /// constraint evaluates them.
    fn constraint_error(&self, _h: f64, _q: &[f64], _v: &[f64]) -> Option<f64> {
        None
    }
    /// Nonholonomic systems whose state can hold a velocity off the discrete constraint (an
    /// initial condition given as two positions rarely satisfies it): replace the initial
    /// velocity `v` at `q` by the one the scheme takes it for, on the discrete constraint, so
    /// that the run's first step changes nothing that a later one would not, and the energy
    /// the errors are measured from is the motion's. Applied once per initial point in f64,
    /// on the host, before the engine starts (`ensemble::generate`), unless the run asks for
    /// the raw start. Called only where `projects_start`.
    fn project_start(&self, _h: f64, _q: &[f64], _v: &mut [f64]) {}
    /// Whether the system has a `project_start` (the systems `--raw-start` applies to).
    fn projects_start(&self) -> bool {
        false
    }
}
