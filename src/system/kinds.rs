//! What each kind of system does beyond its description: the gradients of the Hamiltonian
//! systems (`HamiltonianSystem`, for the methods' kernels) and the map of the discrete maps
//! (`DiscreteSystem`, for the `variational` method). The two are apart so that a gradient
//! can be asked only of a system that has one.

use super::SystemDescription;
use super::{Constraints, DiscreteMap, DiscreteSystem, Hamiltonian, HamiltonianSystem, Newton};
use crate::float::Real;

/// A computation generic over the type of a Hamiltonian system (`HamiltonianSystem::visit`):
/// compiled once per system, so that its calls of the system's functions are direct, as the
/// CPU engine's fused path takes its gradients (`method::fused`).
pub trait Visit {
    type Out;
    fn visit<H: Hamiltonian>(self, system: &H) -> Self::Out;
}

impl HamiltonianSystem {
    /// `v` run on the inner system.
    pub fn visit<V: Visit>(&self, v: V) -> V::Out {
        each_hamiltonian!(self, s => v.visit(s))
    }

    /// Degrees of freedom d.
    pub fn dof(&self) -> usize {
        each_hamiltonian!(self, s => s.dof())
    }

    /// H(q, p) of one point, in f64.
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        each_hamiltonian!(self, s => s.energy(q, p))
    }

    /// H in f64 of points `first..first + out.len()` of a component-major state of `n` points
    /// (see `Hamiltonian::energy_block`).
    pub fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        each_hamiltonian!(self, s => s.energy_block(q, p, n, first, out))
    }

    /// The first function its kernels call that Vulkan lacks in f64
    /// (`Hamiltonian::gpu_f64_missing`).
    pub fn gpu_f64_missing(&self) -> Option<&'static str> {
        each_hamiltonian!(self, s => s.gpu_f64_missing())
    }

    /// H as a formula (`Hamiltonian::formula`).
    pub fn formula(&self) -> Option<String> {
        each_hamiltonian!(self, s => s.formula())
    }

    /// ∂H/∂q for a block of points (component-major slices of equal length).
    #[inline(always)]
    pub fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_q(q, p, out))
    }

    /// ∂H/∂p for a block of points.
    #[inline(always)]
    pub fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_p(q, p, out))
    }

    /// Directional derivative of ∂H/∂q along (vq, vp): H_qq vq + H_qp vp, for a block of points
    /// (the tangent map's linearisation; all slices of equal length, component-major).
    #[inline(always)]
    pub fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_q_dir(q, p, vq, vp, out))
    }

    /// ∂H/∂q of the points and its directional derivatives along the tangent columns stored
    /// after them (see `Hamiltonian::grad_q_tangent`).
    #[inline(always)]
    pub fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_q_tangent(nd, q, p, out))
    }

    /// ∂H/∂p of the points and its directional derivatives along the tangent columns stored
    /// after them (see `Hamiltonian::grad_p_tangent`).
    #[inline(always)]
    pub fn grad_p_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_p_tangent(nd, q, p, out))
    }

    /// Directional derivative of ∂H/∂p along (vq, vp): H_pq vq + H_pp vp.
    #[inline(always)]
    pub fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        each_hamiltonian!(self, s => s.grad_p_dir(q, p, vq, vp, out))
    }
}

impl DiscreteSystem {
    /// One step of the map for a block of points (see `DiscreteMap::discrete_step`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        next: &[T],
        v: &mut [T],
        ev: &mut [T],
        newton: Newton,
        unconverged: &mut [u32],
    ) {
        each_discrete!(self, s => s.discrete_step(h, q, next, v, ev, newton, unconverged))
    }

    /// Whether the configuration steps by the stored velocity (`DiscreteMap::drifts`).
    pub fn drifts(&self) -> bool {
        each_discrete!(self, s => s.drifts())
    }

    /// The tangent columns of a block of points through one step of a linearised map (see
    /// `DiscreteMap::tangent_columns`).
    #[inline]
    pub fn tangent_columns<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        each_discrete!(self, s => s.tangent_columns(h, q, v, tq, tp))
    }

    /// The map's declared constraints.
    pub fn constraints(&self) -> Constraints {
        each_discrete!(self, s => s.constraints())
    }

    /// Whether `tangent_step` is written.
    pub fn linearised(&self) -> bool {
        each_discrete!(self, s => s.linearised())
    }

    /// See `DiscreteMap::momentum`.
    pub fn momentum(&self, h: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        each_discrete!(self, s => s.momentum(h, q, v, p))
    }

    /// See `DiscreteMap::constraint_error`.
    pub fn constraint_error(&self, h: f64, q: &[f64], v: &[f64]) -> Option<f64> {
        each_discrete!(self, s => s.constraint_error(h, q, v))
    }

    /// See `DiscreteMap::project_start`.
    pub fn project_start(&self, h: f64, q: &[f64], v: &mut [f64]) {
        each_discrete!(self, s => s.project_start(h, q, v))
    }

    /// See `DiscreteMap::projects_start`.
    pub fn projects_start(&self) -> bool {
        each_discrete!(self, s => s.projects_start())
    }
}
