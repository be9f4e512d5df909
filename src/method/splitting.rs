//! Splitting methods for separable H given as a list of kicks (p −= b h ∇V) and drifts
//! (q += a h M⁻¹p). Blanes–Moan 2002 SRKN6b (order 4) is the first; its coefficient list is
//! mirrored symmetrically. The CPU loop and the WGSL generator (`wgsl`) below walk the same list.

use super::wgsl::Kernel;
use super::{axpy, Block};
use crate::float::Real;
use crate::gpu::shader::f32_literal;
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

/// Blanes–Moan SRKN6b: b1 a1 b2 a2 b3 a3 b4 a3 b3 a2 b2 a1 b1.
pub const BLANES_MOAN4: &[Substep] = &[
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
];

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T, substeps: &[Substep]) {
    for s in substeps {
        match *s {
            Kick(c) => {
                let c_h = T::from_f64(c) * h;
                b.grad_q(system);
                axpy(&mut b.p, -c_h, &b.dq);
            }
            Drift(c) => {
                let c_h = T::from_f64(c) * h;
                b.grad_p(system);
                axpy(&mut b.q, c_h, &b.dp);
            }
        }
    }
}

/// The WGSL mirror of `step`: the same kicks and drifts, coefficients as f32 literals, each
/// in its own scope.
pub fn wgsl(k: &mut Kernel, h: &str, substeps: &[Substep]) {
    for s in substeps {
        k.block(|k| match *s {
            Kick(c) => {
                k.let_("c_h", &format!("{} * {h}", f32_literal(c)));
                k.grad_q();
                k.axpy("p", "(-c_h)", "dq");
            }
            Drift(c) => {
                k.let_("c_h", &format!("{} * {h}", f32_literal(c)));
                k.grad_p();
                k.axpy("q", "c_h", "dp");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_are_consistent() {
        let (mut a, mut b) = (0.0, 0.0);
        for s in BLANES_MOAN4 {
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
