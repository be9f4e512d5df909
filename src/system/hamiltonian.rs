//! What a Hamiltonian system implements: the `Hamiltonian` trait (H, its block-wise gradients
//! and their linearisation), beside its description (`SystemDescription`), with the helpers
//! the default methods share.

use super::SystemDescription;
use crate::float::Real;

/// What every Hamiltonian system implements (a system with a vector field: every method but
/// `variational` integrates it). The block functions take component-major slices of `n`
/// points (`q[k*n + i]`, n = len / d) and must produce, up to rounding, what the WGSL
/// functions of the same name compute per point (tests compare the two engines point by point).
pub trait Hamiltonian: SystemDescription {
    /// H(q, p) of one point, in f64.
    fn energy(&self, q: &[f64], p: &[f64]) -> f64;
    /// H in f64 of the points `first..first + out.len()` of a component-major state of `n`
    /// points (`q[k*n + i]`; components k ≥ d, e.g. tangent columns, are not read), whatever
    /// the state's precision: the energy statistics of every snapshot. A point with a
    /// non-finite component gets a non-finite H (it is counted and left out of the statistics).
    /// The default converts each point to f64 and calls `energy` (no allocation per point).
    /// Systems whose statistics must keep up with the engine (pendulum, oscillator) override
    /// it with a vectorisable loop, accurate to a few ulp of H.
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        energy_per_point(self.dof(), |q, p| self.energy(q, p), q, p, n, first, out)
    }
    /// H written as a formula (`expr` syntax, the parameters' values written in as numbers),
    /// equal to `energy` and whose derivatives are the gradients: what the modified
    /// Hamiltonian is built from. `None` where H has no closed formula.
    fn formula(&self) -> Option<String> {
        None
    }
    /// The first function the integration kernels' derivatives call that Vulkan lacks in f64
    /// (`None` where f64 GPU kernels can be built): a generated system's `GPU_F64_MISSING`, a
    /// formula's `ExprHamiltonian::gpu_f64_ready`.
    fn gpu_f64_missing(&self) -> Option<&'static str> {
        None
    }
    /// ∂H/∂q for a block of points.
    fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]);
    /// ∂H/∂p for a block of points.
    fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]);
    /// H_qq vq + H_qp vp for a block of points (the tangent map's linearisation).
    fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]);
    /// H_pq vq + H_pp vp for a block of points.
    fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]);
    /// ∂H/∂q of a block's `nd` point components (the first `nd` entries of q, p and out), then
    /// for each tangent column stored after them (v_q, v_p) its H_qq v_q + H_qp v_p: the kick's
    /// force with the tangent map (`method::partial`). The default calls `grad_q` and then
    /// `grad_q_dir` per column. A system whose Hessian costs as much as its gradient (the
    /// pendulum's cos beside its sin) overrides it to evaluate that once per point for all
    /// columns, with the same arithmetic and so the same results.
    #[inline(always)]
    fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        grad_q_per_column(self, nd, q, p, out)
    }
    /// ∂H/∂p of a block's `nd` point components, then for each tangent column its
    /// H_pq v_q + H_pp v_p (`grad_q_tangent`'s partner for the drift). The default calls
    /// `grad_p` and then `grad_p_dir` per column; a system whose ∂H/∂p is p and H_pp the
    /// identity (Hénon–Heiles) overrides it with one copy of the block.
    #[inline(always)]
    fn grad_p_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        with_tangent_columns(
            nd,
            q,
            p,
            out,
            #[inline(always)]
            |q, p, o| self.grad_p(q, p, o),
            #[inline(always)]
            |q, p, vq, vp, o| self.grad_p_dir(q, p, vq, vp, o),
        )
    }
}

/// `Hamiltonian::grad_q_tangent`'s default, `grad_q` and then `grad_q_dir` per tangent column,
/// for an override that takes it for the column counts it does not fuse (Hénon–Heiles).
#[inline(always)]
pub fn grad_q_per_column<H: Hamiltonian + ?Sized, T: Real>(
    system: &H,
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
) {
    with_tangent_columns(
        nd,
        q,
        p,
        out,
        // Inlined where this is, so that the gradients get the instructions of the CPU
        // engine's vector level (`method::partial`).
        #[inline(always)]
        |q, p, o| system.grad_q(q, p, o),
        #[inline(always)]
        |q, p, vq, vp, o| system.grad_q_dir(q, p, vq, vp, o),
    )
}

/// A parameter's value as a formula writes it (`Hamiltonian::formula`): its shortest
/// round-trip decimal, in parentheses so that a negative value or an exponent stays one factor.
pub fn literal(x: f64) -> String {
    format!("({x:?})")
}

/// An energy block (`Hamiltonian::energy_block`, `DiscreteMap::energy_block`) point by point:
/// each of the `d`-component points converted to f64, then `energy` (NaN for a point with a
/// non-finite component). Two buffers per call, none per point.
pub fn energy_per_point<T: Real>(
    d: usize,
    energy: impl Fn(&[f64], &[f64]) -> f64,
    q: &[T],
    p: &[T],
    n: usize,
    first: usize,
    out: &mut [f64],
) {
    let (mut qi, mut pi) = (vec![0.0; d], vec![0.0; d]);
    for (j, h) in out.iter_mut().enumerate() {
        let i = first + j;
        let mut finite = true;
        for k in 0..d {
            qi[k] = q[k * n + i].to_f64();
            pi[k] = p[k * n + i].to_f64();
            finite &= qi[k].is_finite() && pi[k].is_finite();
        }
        *h = if finite { energy(&qi, &pi) } else { f64::NAN };
    }
}

/// A partial derivative of H for a block's `nd` point components (the first `nd` entries of q,
/// p and out) by `own`, then for each tangent column stored after them (v_q, v_p) its
/// directional derivative by `dir`: the layout `method::partial` and the tangent map use.
#[inline(always)]
pub fn with_tangent_columns<T: Real>(
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
    own: impl FnOnce(&[T], &[T], &mut [T]),
    dir: impl Fn(&[T], &[T], &[T], &[T], &mut [T]),
) {
    let (q0, p0) = (&q[..nd], &p[..nd]);
    own(q0, p0, &mut out[..nd]);
    for j in 1..q.len() / nd {
        let r = j * nd..(j + 1) * nd;
        dir(q0, p0, &q[r.clone()], &p[r.clone()], &mut out[r]);
    }
}
