//! Splitting methods for separable H given as a list of kicks (p −= b h ∇V) and drifts
//! (q += a h M⁻¹p). Blanes–Moan 2002 SRKN6b (order 4) is the first; its coefficient list is
//! mirrored symmetrically. The CPU loop and the WGSL generator (`wgsl`) below walk the same list.
//! A new splitting is one const here (a `Splitting`) and one line in `methods!` (`method/mod.rs`).

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Vector};
use crate::float::Real;
use crate::system::System;

#[derive(Debug, Clone, Copy)]
pub enum Substep {
    Kick(f64),
    Drift(f64),
}

use Substep::{Drift, Kick};

const B1: f64 = 0.0829844064174052;
const B2: f64 = 0.396309801498368;
const B3: f64 = -0.0390563049223486;
const B4: f64 = 0.1195241940131508;
const A1: f64 = 0.245298957184271;
const A2: f64 = 0.604872665711080;
const A3: f64 = -0.350171622895351;

/// A splitting method: its description and its kicks and drifts, in order.
#[derive(Debug, Clone, Copy)]
pub struct Splitting {
    pub info: MethodInfo,
    pub substeps: &'static [Substep],
}

/// Blanes–Moan SRKN6b: b1 a1 b2 a2 b3 a3 b4 a3 b3 a2 b2 a1 b1.
pub const BLANES_MOAN4: Splitting = Splitting {
    info: MethodInfo {
        name: "blanes-moan4",
        order: 4,
        symplectic: true,
        summary: "Blanes-Moan 2002 SRKN6b kick-drift splitting (separable H)",
    },
    substeps: &[
        Kick(B1),
        Drift(A1),
        Kick(B2),
        Drift(A2),
        Kick(B3),
        Drift(A3),
        Kick(B4),
        Drift(A3),
        Kick(B3),
        Drift(A2),
        Kick(B2),
        Drift(A1),
        Kick(B1),
    ],
};

impl Scheme for Splitting {
    fn info(&self) -> MethodInfo {
        self.info
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        for s in self.substeps {
            match *s {
                Kick(c) => {
                    let c_h = T::from_f64(c) * h;
                    b.grad_q(system);
                    b.update(Vector::P, Vector::P, -c_h, Vector::Dq);
                }
                Drift(c) => {
                    let c_h = T::from_f64(c) * h;
                    b.grad_p(system);
                    b.update(Vector::Q, Vector::Q, c_h, Vector::Dp);
                }
            }
        }
    }

    /// The WGSL mirror of `step`: the same kicks and drifts, coefficients as literals of the kernel's precision,
    /// each in its own scope.
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        for s in self.substeps {
            k.block(|k| match *s {
                Kick(c) => {
                    k.let_("c_h", &format!("{} * {h}", k.lit(c)));
                    k.grad_q();
                    k.update("p", "p", "(-c_h)", "dq");
                }
                Drift(c) => {
                    k.let_("c_h", &format!("{} * {h}", k.lit(c)));
                    k.grad_p();
                    k.update("q", "q", "c_h", "dp");
                }
            });
        }
    }

    /// One explicit evaluation per kick or drift.
    fn evals_per_step(&self, _sweeps: u64, _solver: Solver) -> u64 {
        self.substeps.len() as u64
    }

    /// A kick or drift is explicit only for H = T(p) + V(q).
    fn needs_separable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_are_consistent() {
        let (mut a, mut b) = (0.0, 0.0);
        for s in BLANES_MOAN4.substeps {
            match *s {
                Kick(c) => b += c,
                Drift(c) => a += c,
            }
        }
        assert!(
            (a - 1.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12,
            "a {a} b {b}"
        );
    }
}
