//! Composition methods: a symmetric second-order base step S (velocity Verlet) applied as
//! S(w_1 h) ∘ … ∘ S(w_s h). The methods are data (their weights), not code: the CPU loop below
//! and the WGSL generator (`wgsl`) both walk the same list.

use super::wgsl::Kernel;
use super::{verlet, Block};
use crate::float::Real;
use crate::gpu::shader::f32_literal;
use crate::system::System;

/// Yoshida / Forest–Ruth triple jump, order 4.
pub const YOSHIDA4: &[f64] = &[1.3512071919596578, -1.7024143839193153, 1.3512071919596578];
/// Suzuki's five-stage fourth-order composition.
pub const SUZUKI4: &[f64] = &[
    0.4144907717943757,
    0.4144907717943757,
    -0.6579630871775028,
    0.4144907717943757,
    0.4144907717943757,
];
/// Yoshida's solution A, order 6, seven stages.
pub const YOSHIDA6: &[f64] = &[
    0.784_513_610_477_557_3,
    0.235_573_213_359_358_13,
    -1.177_679_984_178_871,
    1.315_186_320_683_911_2,
    -1.177_679_984_178_871,
    0.235_573_213_359_358_13,
    0.784_513_610_477_557_3,
];

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T, weights: &[f64]) {
    for &w in weights {
        verlet::step(system, b, T::from_f64(w) * h);
    }
}

/// The WGSL mirror of `step`: the same weights, as f32 literals, each stage a `verlet::wgsl`
/// in its own scope.
pub fn wgsl(k: &mut Kernel, h: &str, weights: &[f64]) {
    for &w in weights {
        k.block(|k| {
            k.let_("h_w", &format!("{} * {h}", f32_literal(w)));
            verlet::wgsl(k, "h_w");
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one() {
        for w in [YOSHIDA4, SUZUKI4, YOSHIDA6] {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
        // triple jump: w1³ + w2³ + w3³ = 0 (the order-3 condition)
        assert!(YOSHIDA4.iter().map(|w| w * w * w).sum::<f64>().abs() < 1e-14);
    }
}
