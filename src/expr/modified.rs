//! A modified Hamiltonian at a run's step size, compiled (built by `method::modified`): what
//! the `mod_*` columns evaluate, in f64 like H.

use super::program::Program;
use super::run_f64;
use crate::float::Real;

/// A modified Hamiltonian at the run's step size, compiled: what the `mod_*` columns measure.
#[derive(Debug, Clone)]
pub struct ModifiedEnergy {
    dof: usize,
    /// The correction terms it holds (K).
    pub terms: u32,
    program: Program,
}

impl ModifiedEnergy {
    pub fn new(dof: usize, terms: u32, program: Program) -> Self {
        ModifiedEnergy {
            dof,
            terms,
            program,
        }
    }

    /// The compiled program's (instructions, registers).
    pub fn size(&self) -> (usize, usize) {
        self.program.size()
    }

    /// H̃ of one point.
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let mut out = [0.0];
        run_f64(&self.program, self.dof, q, p, 1, 0, &mut out);
        out[0]
    }

    /// H̃ in f64 of the points `first..first + out.len()` of a component-major block of `n`
    /// points (as `Hamiltonian::energy_block`).
    pub fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        run_f64(&self.program, self.dof, q, p, n, first, out);
    }
}
