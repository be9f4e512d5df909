//! What every system describes, whichever kind it is: the `SystemDescription` trait, shared by
//! the Hamiltonian systems (`Hamiltonian`) and the discrete maps (`DiscreteMap`), and the
//! `SystemDef` descriptor through which the `systems!` list in `system/mod.rs` registers a
//! system (its description, its WGSL files and its constructor).

use std::collections::BTreeMap;

use super::SystemInfo;
use crate::error::Result;

/// What a system is, apart from how it moves: its size, parameters, shader constants and the
/// named states and projections the run and the plots use. `System`'s dispatch over every
/// system (`each_system!`) reaches only these; the dynamics live in `Hamiltonian` (a vector
/// field) or `DiscreteMap` (a map of step h), which `System` reaches per kind.
pub trait SystemDescription {
    /// Degrees of freedom d (the state has 2d components).
    fn dof(&self) -> usize;
    /// The resolved parameters (for config.toml).
    fn params(&self) -> BTreeMap<String, f64>;
    /// Named scalar f32 constants the system's WGSL expects, from the f64 parameters (a
    /// discrete map's step size is not one of them: `System::energy_constants` adds the
    /// run's as `H_STEP`).
    fn constants(&self) -> Vec<(&'static str, f64)>;
    /// Named constant arrays (`const NAME = array<f32, L>(..)` in the prelude), e.g. per-spring values.
    fn arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        Vec::new()
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
    /// The masses m_k of a system whose momenta are p_k = m_k q̇_k with masses other than 1
    /// (d of them): the chaos indicators' natural metric measures velocities p_k / m_k
    /// (`chaos::Deviation`). None where the momenta are the velocities or not of that form.
    fn masses(&self) -> Option<Vec<f64>> {
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
    /// The point of a state's path (`path`) from its q: its two components, unless the
    /// system draws the path in other coordinates (the polar elastic pendulum: the bob's x, y).
    fn path_point(&self, q: &[f64]) -> Option<(f64, f64)> {
        let (_, i, j) = self.path()?;
        Some((q[i], q[j]))
    }
    /// The names of the state's 2d components, q1..qd then p1..pd in order (for a variational
    /// system the p slots hold its velocities): the labels of arrays and tables. Numbered
    /// (`numbered_components`) unless the system names its coordinates (`named_components`).
    fn component_names(&self) -> Vec<String> {
        numbered_components(self.dof())
    }
    /// The names of the path's axes: q1, q2, … of its components, unless the system draws
    /// the path in other coordinates.
    fn path_axes(&self) -> Option<(String, String)> {
        let (_, i, j) = self.path()?;
        Some((format!("q{}", i + 1), format!("q{}", j + 1)))
    }
}

/// The components of a state of `d` degrees of freedom by number: q1..qd, p1..pd.
pub fn numbered_components(d: usize) -> Vec<String> {
    let q = (1..=d).map(|i| format!("q{i}"));
    q.chain((1..=d).map(|i| format!("p{i}"))).collect()
}

/// The components of a state whose coordinates are named `q`: the names, then each name after
/// `slot` (`"p_"` for canonical momenta, `"v_"` for a variational system's velocities).
pub fn named_components<S: AsRef<str>>(q: &[S], slot: &str) -> Vec<String> {
    let names = q.iter().map(|c| c.as_ref().to_string());
    let momenta = q.iter().map(|c| format!("{slot}{}", c.as_ref()));
    names.chain(momenta).collect()
}

/// A system's registration: everything `systems!` needs besides the system's own trait
/// (`Hamiltonian` or `DiscreteMap`). Each item is required, so a system that lacks one does
/// not compile.
pub trait SystemDef: SystemDescription + Sized {
    /// Its name, summary, parameters and solver properties (`CATALOGUE`, `System::info`).
    const INFO: SystemInfo;
    /// `shaders/system/<name>.wgsl` (`include_str!`): for a Hamiltonian system `grad_q`,
    /// `grad_p`, `grad_q_dir` and `grad_p_dir` of one point, for a discrete map its
    /// `discrete_step`, in f32, for the integration kernels.
    const WGSL: &'static str;
    /// `shaders/energy/<name>.wgsl` (`include_str!`): `energy(q, p)` of one point, in f64, for
    /// the device reduction of the energy statistics (`gpu::energy`).
    const ENERGY_WGSL: &'static str;
    /// Build the system from its resolved parameters (every name of `INFO.params` present,
    /// indexed ones possibly added); invalid values are input errors.
    fn new(params: &BTreeMap<String, f64>) -> Result<Self>;
}
