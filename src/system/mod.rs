//! Hamiltonian systems: one file per system. Each defines its parameters, H (in f64), the
//! block-wise gradients ∂H/∂q and ∂H/∂p used by the CPU kernels (f32 and f64), their
//! directional derivatives `grad_q_dir` / `grad_p_dir` (for the tangent map), and the
//! constants its WGSL file (`shaders/system/<name>.wgsl`) needs. Both sides compute derived
//! constants from the same f64 values, so CPU and GPU use bit-identical coefficients.
//!
//! Block layout everywhere: component-major, `q[k*n + i]` for component k of point i.

pub mod double_pendulum;
pub mod elastic_pendulum;
pub mod elastic_pendulum_cartesian;
pub mod henon_heiles;
pub mod kepler;
pub mod oscillator;
pub mod outer_solar_system;
pub mod pendulum;
pub mod spring_chain;

use std::collections::BTreeMap;

use crate::error::Result;
use crate::float::Real;
use crate::input_err;

pub use double_pendulum::DoublePendulum;
pub use elastic_pendulum::ElasticPendulum;
pub use elastic_pendulum_cartesian::ElasticPendulumCartesian;
pub use henon_heiles::HenonHeiles;
pub use kepler::Kepler;
pub use oscillator::Oscillator;
pub use outer_solar_system::OuterSolarSystem;
pub use pendulum::Pendulum;
pub use spring_chain::SpringChain;

/// A named system parameter with its default.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub meaning: &'static str,
}

/// Static description of a system, for `phaseflow list` and config validation.
#[derive(Debug, Clone, Copy)]
pub struct SystemInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// H = T(p) + V(q): every symplectic method in this crate is explicit.
    pub separable: bool,
    /// How the implicit stages of the symplectic Euler / Verlet kernels (e.g. the kick
    /// p+ = p − h ∂qH(q, p+)) are solved for this system: `Some(s)` when s Jacobi sweeps solve
    /// them exactly, because the dependence is triangular (1 for separable H, 2 for the polar
    /// elastic pendulum): the kernel is then explicit, a fixed number of evaluations with no
    /// tolerance. `None`: fixed-point iteration to `--implicit-tol` with a cap, non-converged
    /// points counted (`unconverged`).
    pub sweeps: Option<u32>,
    /// Parameters that also accept one value per element, written `NAME_i` (1-based), e.g.
    /// `--param k_3=500` for the third spring of the chain.
    pub indexed: &'static [&'static str],
}

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
    fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        with_tangent_columns(
            nd,
            q,
            p,
            out,
            |q, p, o| self.grad_q(q, p, o),
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
}

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

/// Every system phaseflow knows. Add a variant, a file, a line in `each_system!`, an entry in
/// `CATALOGUE` and in `System::new`, and a WGSL file, to add a system.
#[derive(Debug, Clone)]
pub enum System {
    Oscillator(Oscillator),
    Pendulum(Pendulum),
    Kepler(Kepler),
    HenonHeiles(HenonHeiles),
    ElasticPendulum(ElasticPendulum),
    ElasticPendulumCartesian(ElasticPendulumCartesian),
    DoublePendulum(DoublePendulum),
    SpringChain(SpringChain),
    OuterSolarSystem(OuterSolarSystem),
}

/// `match` over every variant, binding the inner system as `$s`.
macro_rules! each_system {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            System::Oscillator($s) => $body,
            System::Pendulum($s) => $body,
            System::Kepler($s) => $body,
            System::HenonHeiles($s) => $body,
            System::ElasticPendulum($s) => $body,
            System::ElasticPendulumCartesian($s) => $body,
            System::DoublePendulum($s) => $body,
            System::SpringChain($s) => $body,
            System::OuterSolarSystem($s) => $body,
        }
    };
}

pub const CATALOGUE: &[SystemInfo] = &[
    oscillator::INFO,
    pendulum::INFO,
    kepler::INFO,
    henon_heiles::INFO,
    elastic_pendulum::INFO,
    elastic_pendulum_cartesian::INFO,
    double_pendulum::INFO,
    spring_chain::INFO,
    outer_solar_system::INFO,
];

/// Resolve parameters: defaults, overridden by `given`; unknown names and non-finite values are errors.
pub fn resolve_params(
    info: &SystemInfo,
    given: &BTreeMap<String, f64>,
) -> Result<BTreeMap<String, f64>> {
    let mut out: BTreeMap<String, f64> = info
        .params
        .iter()
        .map(|p| (p.name.to_string(), p.default))
        .collect();
    for (k, v) in given {
        if !out.contains_key(k) && !is_indexed(info, k) {
            let known: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            return Err(input_err!(
                "--param {k}={v}: system '{}' has no parameter '{k}' (its parameters: {})",
                info.name,
                known.join(", ")
            ));
        }
        if !v.is_finite() {
            return Err(input_err!(
                "--param {k}={v}: the value must be a finite number"
            ));
        }
        out.insert(k.clone(), *v);
    }
    Ok(out)
}

/// `NAME_i` with NAME in `info.indexed` and i ≥ 1 (the system checks i against its size).
fn is_indexed(info: &SystemInfo, key: &str) -> bool {
    key.rsplit_once('_').is_some_and(|(base, i)| {
        info.indexed.contains(&base) && i.parse::<usize>().is_ok_and(|i| i >= 1)
    })
}

/// Require a parameter to be strictly positive (masses, lengths, stiffnesses).
pub(crate) fn require_positive(
    system: &str,
    params: &BTreeMap<String, f64>,
    names: &[&str],
) -> Result<()> {
    for n in names {
        let v = params[*n];
        if !(v > 0.0) {
            return Err(input_err!(
                "--param {n}={v}: system '{system}' needs {n} > 0 (a non-positive {n} makes the Hamiltonian meaningless)"
            ));
        }
    }
    Ok(())
}

impl System {
    pub fn info_by_name(name: &str) -> Result<&'static SystemInfo> {
        CATALOGUE.iter().find(|s| s.name == name).ok_or_else(|| {
            let names: Vec<&str> = CATALOGUE.iter().map(|s| s.name).collect();
            input_err!(
                "--system {name}: unknown system (known: {})",
                names.join(", ")
            )
        })
    }

    /// Build a system from its name and user parameters (defaults fill the rest).
    pub fn new(name: &str, given: &BTreeMap<String, f64>) -> Result<System> {
        let info = Self::info_by_name(name)?;
        let params = resolve_params(info, given)?;
        let system = match info.name {
            oscillator::NAME => System::Oscillator(Oscillator::new(&params)?),
            pendulum::NAME => System::Pendulum(Pendulum::new(&params)?),
            kepler::NAME => System::Kepler(Kepler::new(&params)?),
            henon_heiles::NAME => System::HenonHeiles(HenonHeiles::new(&params)?),
            elastic_pendulum::NAME => System::ElasticPendulum(ElasticPendulum::new(&params)?),
            elastic_pendulum_cartesian::NAME => {
                System::ElasticPendulumCartesian(ElasticPendulumCartesian::new(&params)?)
            }
            double_pendulum::NAME => System::DoublePendulum(DoublePendulum::new(&params)?),
            spring_chain::NAME => System::SpringChain(SpringChain::new(&params)?),
            outer_solar_system::NAME => System::OuterSolarSystem(OuterSolarSystem::new(&params)?),
            _ => unreachable!("catalogue and constructors out of sync"),
        };
        // The kernels use derived constants in f32: they must be finite there too.
        let arrays = system.wgsl_arrays();
        let array_values = arrays
            .iter()
            .flat_map(|(name, v)| v.iter().map(move |x| (*name, *x)));
        for (constant, value) in system.wgsl_constants().into_iter().chain(array_values) {
            if !(value as f32).is_finite() {
                return Err(input_err!(
                    "--param: these parameters make the derived constant {constant} = {value:e} overflow f32; rescale the parameters"
                ));
            }
        }
        Ok(system)
    }

    pub fn info(&self) -> &'static SystemInfo {
        match self {
            System::Oscillator(_) => &oscillator::INFO,
            System::Pendulum(_) => &pendulum::INFO,
            System::Kepler(_) => &kepler::INFO,
            System::HenonHeiles(_) => &henon_heiles::INFO,
            System::ElasticPendulum(_) => &elastic_pendulum::INFO,
            System::ElasticPendulumCartesian(_) => &elastic_pendulum_cartesian::INFO,
            System::DoublePendulum(_) => &double_pendulum::INFO,
            System::SpringChain(_) => &spring_chain::INFO,
            System::OuterSolarSystem(_) => &outer_solar_system::INFO,
        }
    }

    pub fn name(&self) -> &'static str {
        self.info().name
    }

    /// Degrees of freedom d: the state has 2d components.
    pub fn dof(&self) -> usize {
        each_system!(self, s => s.dof())
    }

    /// The resolved parameters (for config.toml).
    pub fn params(&self) -> BTreeMap<String, f64> {
        each_system!(self, s => s.params())
    }

    /// H(q, p) of one point, in f64.
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        each_system!(self, s => s.energy(q, p))
    }

    /// H in f64 of points `first..first + out.len()` of a component-major state of `n` points
    /// (see `Hamiltonian::energy_block`).
    pub fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        each_system!(self, s => s.energy_block(q, p, n, first, out))
    }

    /// ∂H/∂q for a block of points (component-major slices of equal length).
    #[inline]
    pub fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        each_system!(self, s => s.grad_q(q, p, out))
    }

    /// ∂H/∂p for a block of points.
    #[inline]
    pub fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        each_system!(self, s => s.grad_p(q, p, out))
    }

    /// Directional derivative of ∂H/∂q along (vq, vp): H_qq vq + H_qp vp, for a block of points
    /// (the tangent map's linearisation; all slices of equal length, component-major).
    #[inline]
    pub fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        each_system!(self, s => s.grad_q_dir(q, p, vq, vp, out))
    }

    /// ∂H/∂q of the points and its directional derivatives along the tangent columns stored
    /// after them (see `Hamiltonian::grad_q_tangent`).
    #[inline]
    pub fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        each_system!(self, s => s.grad_q_tangent(nd, q, p, out))
    }

    /// Directional derivative of ∂H/∂p along (vq, vp): H_pq vq + H_pp vp.
    #[inline]
    pub fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        each_system!(self, s => s.grad_p_dir(q, p, vq, vp, out))
    }

    /// The WGSL file that defines `grad_q`, `grad_p`, `grad_q_dir` and `grad_p_dir` for this system.
    pub fn wgsl_source(&self) -> &'static str {
        match self {
            System::Oscillator(_) => include_str!("../../shaders/system/oscillator.wgsl"),
            System::Pendulum(_) => include_str!("../../shaders/system/pendulum.wgsl"),
            System::Kepler(_) => include_str!("../../shaders/system/kepler.wgsl"),
            System::HenonHeiles(_) => include_str!("../../shaders/system/henon_heiles.wgsl"),
            System::ElasticPendulum(_) => {
                include_str!("../../shaders/system/elastic_pendulum.wgsl")
            }
            System::ElasticPendulumCartesian(_) => {
                include_str!("../../shaders/system/elastic_pendulum_cartesian.wgsl")
            }
            System::DoublePendulum(_) => include_str!("../../shaders/system/double_pendulum.wgsl"),
            System::SpringChain(_) => include_str!("../../shaders/system/spring_chain.wgsl"),
            System::OuterSolarSystem(_) => {
                include_str!("../../shaders/system/outer_solar_system.wgsl")
            }
        }
    }

    /// Named f32 constants the system's WGSL expects, computed from the f64 parameters.
    pub fn wgsl_constants(&self) -> Vec<(&'static str, f64)> {
        each_system!(self, s => s.constants())
    }

    /// Named constant arrays the system's WGSL expects.
    pub fn wgsl_arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        each_system!(self, s => s.arrays())
    }

    /// The stable equilibrium z* = (q*, p*) that `level` ensembles are star-shaped around
    /// (1-DOF systems; `None` where there is none).
    pub fn minimum(&self) -> Option<Vec<f64>> {
        each_system!(self, s => s.minimum())
    }

    /// The system's named default initial state (q1..qd, p1..pd).
    pub fn default_state(&self) -> Vec<f64> {
        each_system!(self, s => s.default_state())
    }

    /// A sensible centre for ensembles when the user gives none: the default state.
    pub fn default_center(&self) -> Vec<f64> {
        self.default_state()
    }

    /// A state component to plot against time for single trajectories (label, index in z).
    pub fn observable(&self) -> Option<(&'static str, usize)> {
        each_system!(self, s => s.observable())
    }

    /// Total angular momentum where the system conserves it.
    pub fn angular_momentum(&self, q: &[f64], p: &[f64]) -> Option<[f64; 3]> {
        each_system!(self, s => s.angular_momentum(q, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sample states near the default state of a system (deterministic perturbations). Each
    /// half (q, p) is perturbed on the scale of the default state's largest entry there, at
    /// most 1 (1 where it is 0): the outer solar system's momenta are ~1e-6, and perturbing
    /// them by 0.025 would make Pluto's kinetic energy 1e12 times the total and drown the
    /// finite differences in rounding.
    fn samples(sys: &System) -> Vec<Vec<f64>> {
        let z0 = sys.default_state();
        let d = sys.dof();
        let scale = |half: &[f64]| {
            let m = half.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            if m > 0.0 {
                m.min(1.0)
            } else {
                1.0
            }
        };
        let (sq, sp) = (scale(&z0[..d]), scale(&z0[d..]));
        (0..4)
            .map(|j| {
                z0.iter()
                    .enumerate()
                    .map(|(k, x)| {
                        let s = if k < d { sq } else { sp };
                        x + s * 0.05 * (((k * 7 + j * 13) % 11) as f64 / 11.0 - 0.5)
                    })
                    .collect()
            })
            .collect()
    }

    /// One point as a block of n = 1 (component-major is then just the point).
    fn grads(sys: &System, z: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let d = sys.dof();
        let (mut gq, mut gp) = (vec![0.0; d], vec![0.0; d]);
        sys.grad_q(&z[..d], &z[d..], &mut gq);
        sys.grad_p(&z[..d], &z[d..], &mut gp);
        (gq, gp)
    }

    fn max_dev(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
            .fold(0.0, f64::max)
    }

    /// `energy_block` against the per-point f64 `energy` (libm) for every system, in f64 and
    /// f32 states, over a block taken from the middle of a larger state: bit-identical where it
    /// is the default or the same arithmetic, within a few ulp of H for the pendulum's
    /// polynomial (including |q| beyond the polynomial's range, which falls back to libm), and
    /// non-finite for a point with a non-finite component.
    #[test]
    fn energy_block_matches_energy() {
        fn check<T: Real>(sys: &System, zs: &[Vec<f64>], tol: f64) {
            let (d, n) = (sys.dof(), zs.len() + 3);
            let mut s = crate::ensemble::State::<T>::zeros(n, d);
            for (j, z) in zs.iter().enumerate() {
                for k in 0..d {
                    s.q[k * n + j + 2] = T::from_f64(z[k]);
                    s.p[k * n + j + 2] = T::from_f64(z[d + k]);
                }
            }
            let mut out = vec![0.0; zs.len()];
            sys.energy_block(&s.q, &s.p, n, 2, &mut out);
            for (j, &h) in out.iter().enumerate() {
                let q: Vec<f64> = (0..d).map(|k| s.q[k * n + j + 2].to_f64()).collect();
                let p: Vec<f64> = (0..d).map(|k| s.p[k * n + j + 2].to_f64()).collect();
                let want = sys.energy(&q, &p);
                if !q.iter().chain(&p).all(|x| x.is_finite()) {
                    assert!(!h.is_finite(), "{}: {h} at {q:?} {p:?}", sys.name());
                } else {
                    assert!(
                        (h - want).abs() <= tol * (1.0 + want.abs()),
                        "{} {}: {h} vs {want} at {q:?} {p:?}",
                        sys.name(),
                        T::NAME
                    );
                }
            }
        }
        for info in CATALOGUE {
            let sys = System::new(info.name, &BTreeMap::new()).unwrap();
            let mut zs = samples(&sys);
            let mut bad = zs[0].clone();
            bad[0] = f64::NAN;
            zs.push(bad);
            let tol = if info.name == pendulum::NAME {
                1e-15
            } else {
                0.0
            };
            check::<f64>(&sys, &zs, tol);
            check::<f32>(&sys, &zs, tol);
        }
        // The pendulum over many turns and both momenta, and beyond the polynomial's range.
        let sys = System::new(pendulum::NAME, &BTreeMap::new()).unwrap();
        let zs: Vec<Vec<f64>> = (-20_000..20_000)
            .map(|i| {
                vec![
                    i as f64 * 1.37e-3 * (1.0 + (i as f64).abs()),
                    3.0 - i as f64 * 1.5e-4,
                ]
            })
            .collect();
        check::<f64>(&sys, &zs, 1e-15);
        check::<f32>(&sys, &zs, 1e-15);
        check::<f64>(
            &sys,
            &[vec![3e8, 0.1], vec![-1e7, 0.2], vec![f64::INFINITY, 0.0]],
            1e-15,
        );
    }

    /// `grad_q_tangent` (overridden where a system shares work between the force and its
    /// linearisation) gives exactly what `grad_q` and `grad_q_dir` per column give, in f32 and
    /// f64, over a block longer than the pendulum's run of 64 points.
    #[test]
    fn grad_q_tangent_equals_the_per_column_evaluation() {
        fn check<T: Real>(sys: &System, n: usize) {
            let d = sys.dof();
            let nd = n * d;
            let cols = 2 * d;
            let len = nd * (1 + cols);
            let val = |k: usize, s: f64| T::from_f64(s * (((k * 37) % 101) as f64 / 101.0 - 0.5));
            let z0 = sys.default_state();
            // points near the default state (component-major), then arbitrary tangent columns
            let q: Vec<T> = (0..len)
                .map(|k| {
                    if k < nd {
                        T::from_f64(z0[k / n]) + val(k, 0.1)
                    } else {
                        val(k, 1.0)
                    }
                })
                .collect();
            let p: Vec<T> = (0..len)
                .map(|k| {
                    if k < nd {
                        T::from_f64(z0[d + k / n]) + val(k + 5, 0.1)
                    } else {
                        val(k + 5, 1.0)
                    }
                })
                .collect();
            let mut fused = vec![T::ZERO; len];
            sys.grad_q_tangent(nd, &q, &p, &mut fused);
            let mut apart = vec![T::ZERO; len];
            sys.grad_q(&q[..nd], &p[..nd], &mut apart[..nd]);
            for j in 1..=cols {
                let r = j * nd..(j + 1) * nd;
                sys.grad_q_dir(
                    &q[..nd],
                    &p[..nd],
                    &q[r.clone()],
                    &p[r.clone()],
                    &mut apart[r],
                );
            }
            for k in 0..len {
                assert!(
                    fused[k].to_f64() == apart[k].to_f64(),
                    "{} ({}): entry {k}",
                    sys.name(),
                    T::NAME
                );
            }
        }
        for info in CATALOGUE {
            let sys = System::new(info.name, &BTreeMap::new()).unwrap();
            check::<f32>(&sys, 70);
            check::<f64>(&sys, 70);
        }
    }

    /// ∂H/∂q, ∂H/∂p against central differences of H, and the directional derivatives against
    /// central differences of the gradients, for every system at states near its default.
    #[test]
    fn gradients_match_finite_differences_for_every_system() {
        let eps = 1e-6;
        for info in CATALOGUE {
            let sys = System::new(info.name, &BTreeMap::new()).unwrap();
            let d = sys.dof();
            assert_eq!(sys.default_state().len(), 2 * d, "{}", info.name);
            for z in samples(&sys) {
                let (gq, gp) = grads(&sys, &z);
                let mut fd = vec![0.0; 2 * d];
                for c in 0..2 * d {
                    let (mut a, mut b) = (z.clone(), z.clone());
                    a[c] += eps;
                    b[c] -= eps;
                    fd[c] =
                        (sys.energy(&a[..d], &a[d..]) - sys.energy(&b[..d], &b[d..])) / (2.0 * eps);
                }
                let analytic: Vec<f64> = gq.iter().chain(&gp).copied().collect();
                assert!(
                    max_dev(&analytic, &fd) < 1e-6,
                    "{}: grad {analytic:?} vs fd {fd:?}",
                    info.name
                );
                // Directions: unit vectors and one mixed direction.
                let mut dirs: Vec<Vec<f64>> = (0..2 * d)
                    .map(|c| (0..2 * d).map(|k| if k == c { 1.0 } else { 0.0 }).collect())
                    .collect();
                dirs.push((0..2 * d).map(|k| 0.3 + 0.1 * k as f64).collect());
                for v in dirs {
                    let (mut oq, mut op) = (vec![0.0; d], vec![0.0; d]);
                    sys.grad_q_dir(&z[..d], &z[d..], &v[..d], &v[d..], &mut oq);
                    sys.grad_p_dir(&z[..d], &z[d..], &v[..d], &v[d..], &mut op);
                    let a: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x + eps * w).collect();
                    let b: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x - eps * w).collect();
                    let (aq, ap) = grads(&sys, &a);
                    let (bq, bp) = grads(&sys, &b);
                    let fd: Vec<f64> = aq
                        .iter()
                        .zip(&bq)
                        .chain(ap.iter().zip(&bp))
                        .map(|(x, y)| (x - y) / (2.0 * eps))
                        .collect();
                    let analytic: Vec<f64> = oq.iter().chain(&op).copied().collect();
                    assert!(
                        max_dev(&analytic, &fd) < 1e-5,
                        "{}: dir {v:?}: {analytic:?} vs fd {fd:?}",
                        info.name
                    );
                }
            }
        }
    }

    #[test]
    fn indexed_parameters_are_accepted_only_where_declared() {
        let given = BTreeMap::from([("m_2".to_string(), 1.0)]);
        assert!(resolve_params(&pendulum::INFO, &given).is_err());
    }
}
