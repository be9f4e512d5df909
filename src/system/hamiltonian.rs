//! What a system file implements: the `Hamiltonian` trait (H, its block-wise gradients and
//! their linearisation, the shader constants) and the `SystemDef` descriptor through which the
//! `systems!` list in `system/mod.rs` registers it (its description, its WGSL files and its
//! constructor), with the helpers the default methods share.

use std::collections::BTreeMap;

use super::SystemInfo;
use crate::error::Result;
use crate::float::Real;

/// What every system file implements. The block functions take component-major slices of
/// `n` points (`q[k*n + i]`, n = len / d) and must produce, up to rounding, what the WGSL
/// functions of the same name compute per point (tests compare the two engines point by point).
pub trait Hamiltonian {
    /// Degrees of freedom d (the state has 2d components).
    fn dof(&self) -> usize;
    /// The resolved parameters (for config.toml).
    fn params(&self) -> BTreeMap<String, f64>;
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
        energy_per_point(self, q, p, n, first, out)
    }
    /// H written as a formula (`expr` syntax, the parameters' values written in as numbers),
    /// equal to `energy` and whose derivatives are the gradients: what the modified
    /// Hamiltonian is built from. `None` where H has no closed formula.
    fn formula(&self) -> Option<String> {
        None
    }
    /// Named scalar f32 constants the system's WGSL expects, from the f64 parameters.
    fn constants(&self) -> Vec<(&'static str, f64)>;
    /// Named constant arrays (`const NAME = array<f32, L>(..)` in the prelude), e.g. per-spring values.
    fn arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        Vec::new()
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
        with_tangent_columns(
            nd,
            q,
            p,
            out,
            // Inlined where this is, so that the gradients get the instructions of the CPU
            // engine's vector level (`method::partial`).
            #[inline(always)]
            |q, p, o| self.grad_q(q, p, o),
            #[inline(always)]
            |q, p, vq, vp, o| self.grad_q_dir(q, p, vq, vp, o),
        )
    }
    /// The named default initial state (q1..qd, p1..pd): `--ensemble point`, and the centre of
    /// the other ensemble kinds when none is given.
    fn default_state(&self) -> Vec<f64>;
    /// The stable equilibrium (q*, p*) that `level` ensembles are star-shaped around (1 DOF).
    fn minimum(&self) -> Option<Vec<f64>> {
        None
    }
    /// Total angular momentum (3-vector; planar systems use the z component), for systems
    /// where it is conserved: its error is the `ang_mom_err_max` column.
    fn angular_momentum(&self, _q: &[f64], _p: &[f64]) -> Option<[f64; 3]> {
        None
    }
    /// A state component worth plotting against time for a single trajectory (its label and
    /// index in q1..qd p1..pd), e.g. the free end's x for the spring chain.
    fn observable(&self) -> Option<(&'static str, usize)> {
        None
    }
    /// A path in a plane of the configuration worth drawing for a single trajectory (its
    /// label and the two components, x then y), e.g. a rolling disk's contact point.
    fn path(&self) -> Option<(&'static str, usize, usize)> {
        None
    }
}

/// A parameter's value as a formula writes it (`Hamiltonian::formula`): its shortest
/// round-trip decimal, in parentheses so that a negative value or an exponent stays one factor.
pub fn literal(x: f64) -> String {
    format!("({x:?})")
}

/// The four gradient functions of the `Hamiltonian` trait for a variational system, which has
/// no Hamiltonian vector field to integrate: `Method::check_system` refuses every method but
/// `variational` for it, so they are never called; were they, they would fill NaN, which the
/// statistics count as non-finite points rather than as a plausible result.
macro_rules! no_hamiltonian_gradients {
    () => {
        fn grad_q<T: Real>(&self, _q: &[T], _p: &[T], out: &mut [T]) {
            out.fill(T::from_f64(f64::NAN));
        }
        fn grad_p<T: Real>(&self, _q: &[T], _p: &[T], out: &mut [T]) {
            out.fill(T::from_f64(f64::NAN));
        }
        fn grad_q_dir<T: Real>(&self, _q: &[T], _p: &[T], _vq: &[T], _vp: &[T], out: &mut [T]) {
            out.fill(T::from_f64(f64::NAN));
        }
        fn grad_p_dir<T: Real>(&self, _q: &[T], _p: &[T], _vq: &[T], _vp: &[T], out: &mut [T]) {
            out.fill(T::from_f64(f64::NAN));
        }
    };
}
pub(crate) use no_hamiltonian_gradients;

/// `Hamiltonian::energy_block` point by point: each point converted to f64, then `energy`
/// (NaN for a point with a non-finite component). Two buffers per call, none per point.
pub fn energy_per_point<S: Hamiltonian + ?Sized, T: Real>(
    system: &S,
    q: &[T],
    p: &[T],
    n: usize,
    first: usize,
    out: &mut [f64],
) {
    let d = system.dof();
    let (mut qi, mut pi) = (vec![0.0; d], vec![0.0; d]);
    for (j, h) in out.iter_mut().enumerate() {
        let i = first + j;
        let mut finite = true;
        for k in 0..d {
            qi[k] = q[k * n + i].to_f64();
            pi[k] = p[k * n + i].to_f64();
            finite &= qi[k].is_finite() && pi[k].is_finite();
        }
        *h = if finite {
            system.energy(&qi, &pi)
        } else {
            f64::NAN
        };
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

/// A system's registration: everything `systems!` needs besides the `Hamiltonian` itself.
/// Each item is required, so a system that lacks one does not compile.
pub trait SystemDef: Hamiltonian + Sized {
    /// Its name, summary, parameters and solver properties (`CATALOGUE`, `System::info`).
    const INFO: SystemInfo;
    /// `shaders/system/<name>.wgsl` (`include_str!`): `grad_q`, `grad_p`, `grad_q_dir` and
    /// `grad_p_dir` of one point, in f32, for the integration kernels.
    const WGSL: &'static str;
    /// `shaders/energy/<name>.wgsl` (`include_str!`): `energy(q, p)` of one point, in f64, for
    /// the device reduction of the energy statistics (`gpu::energy`).
    const ENERGY_WGSL: &'static str;
    /// Build the system from its resolved parameters (every name of `INFO.params` present,
    /// indexed ones possibly added); invalid values are input errors.
    fn new(params: &BTreeMap<String, f64>) -> Result<Self>;
}
