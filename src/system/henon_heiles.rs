//! Hénon–Heiles H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 (d = 2, no parameters).
//! Regular motion at H = 1/12, chaotic at H = 1/8 (escape above H = 1/6). Its functions (the
//! CPU's in `generated/henon_heiles.rs`, the GPU's in shaders/system/henon_heiles.wgsl and
//! shaders/energy/henon_heiles.wgsl) are generated from `FORMULAS` (see `generated/mod.rs`).
//!
//! Default state: q = (0, 0.1), p2 = 0, p1 = √(2 (1/12 − V(q))) > 0, so that H = 1/12.

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{named_components, Hamiltonian, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;

pub const NAME: &str = "henon-heiles";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "Hénon–Heiles H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 (d = 2); default state q = (0, 0.1), p2 = 0, p1 > 0 on the regular level H = 1/12 (chaotic at 1/8)",
    params: &[],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The energy of the default state (the regular regime).
pub const DEFAULT_ENERGY: f64 = 1.0 / 12.0;

/// The dynamics (see `generated/mod.rs`), no constants. The potential is grouped as one sum so
/// that H at a point adds the kinetic energy to it last, and −q2³/3 is a division (its
/// derivative is then q2², not 3·(q2²/3)).
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 2,
    constants: &[],
    hamiltonian: "(p1^2 + p2^2)/2 + ((q1^2 + q2^2)/2 + q1^2*q2 - q2^3/3)",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct HenonHeiles {
    /// The values of `FORMULAS.constants` (none).
    c: Vec<f64>,
}

impl SystemDef for HenonHeiles {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/henon_heiles.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/henon_heiles.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        Ok(HenonHeiles {
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for HenonHeiles {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["x", "y"], "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// q = (0, 0.1), p = (√(2 (1/12 − V(q))), 0): H = 1/12.
    fn default_state(&self) -> Vec<f64> {
        let q = [0.0, 0.1];
        let potential = self.energy(&q, &[0.0, 0.0]);
        let p1 = (2.0 * (DEFAULT_ENERGY - potential)).sqrt();
        vec![q[0], q[1], p1, 0.0]
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("orbit (q1, q2)", 0, 1))
    }
}

generated_hamiltonian!(HenonHeiles, henon_heiles);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_state_is_on_the_regular_level() {
        let s = HenonHeiles::new(&BTreeMap::new()).unwrap();
        let z = s.default_state();
        assert!(z[2] > 0.0);
        assert!((s.energy(&z[..2], &z[2..]) - 1.0 / 12.0).abs() < 1e-15);
    }

    /// The functions generated from `FORMULAS` round as the Hénon–Heiles arithmetic written
    /// out by hand does (the kernels' results and the recorded golden states depend on it):
    /// the same bits in f32 and f64, at points across the bounded region and beyond.
    #[test]
    fn generated_functions_are_the_hand_arithmetic_bit_for_bit() {
        use crate::float::Real;
        fn check<T: Real + std::fmt::Debug>(s: &HenonHeiles) {
            let n = 257;
            let at = |k: usize, seed: f64| {
                T::from_f64(((k as f64 + seed) * 0.7548776662).fract() * 2.4 - 1.2)
            };
            let q: Vec<T> = (0..2 * n).map(|k| at(k, 0.1)).collect();
            let v: Vec<T> = (0..2 * n).map(|k| at(k, 0.6)).collect();
            let two = T::from_f64(2.0);
            let (mut g, mut gd) = (vec![T::ZERO; 2 * n], vec![T::ZERO; 2 * n]);
            s.grad_q(&q, &v, &mut g);
            s.grad_q_dir(&q, &v, &v, &v, &mut gd);
            for i in 0..n {
                let (x, y, vx, vy) = (q[i], q[n + i], v[i], v[n + i]);
                assert_eq!(
                    g[i].to_f64().to_bits(),
                    (x + two * x * y).to_f64().to_bits()
                );
                assert_eq!(
                    g[n + i].to_f64().to_bits(),
                    (y + x * x - y * y).to_f64().to_bits()
                );
                let dx = (T::ONE + two * y) * vx + two * x * vy;
                let dy = two * x * vx + (T::ONE - two * y) * vy;
                assert_eq!(gd[i].to_f64().to_bits(), dx.to_f64().to_bits());
                assert_eq!(gd[n + i].to_f64().to_bits(), dy.to_f64().to_bits());
            }
            let mut block = vec![0.0; n];
            s.energy_block(&q, &v, n, 0, &mut block);
            for i in 0..n {
                let [x, y, px, py] = [q[i], q[n + i], v[i], v[n + i]].map(|t| t.to_f64());
                let h = 0.5 * (px * px + py * py)
                    + (0.5 * (x * x + y * y) + x * x * y - y * y * y * (1.0 / 3.0));
                assert_eq!(block[i].to_bits(), h.to_bits());
                assert_eq!(s.energy(&[x, y], &[px, py]).to_bits(), h.to_bits());
            }
        }
        let s = HenonHeiles::new(&BTreeMap::new()).unwrap();
        check::<f32>(&s);
        check::<f64>(&s);
    }
}
