//! Outer solar system (GNI I.2.4, d = 18): the Sun (with the inner planets' mass), Jupiter,
//! Saturn, Uranus, Neptune and Pluto as point masses in 3-D,
//!
//! H = Σ |p_i|²/(2 m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|,
//!
//! units AU, days, solar masses, G = 2.95912208286e-4, p_i = m_i v_i. State ordering
//! q = (x_0, y_0, z_0, x_1, …, z_5) with body 0 the Sun, 1 Jupiter, … 5 Pluto; p likewise.
//! Default state: GNI Table I.2.2 (September 5, 1994, 0h00 GST; the Sun at rest at the origin,
//! not the barycentric frame), H0 ≈ −3.2155e-8. Angular momentum Σ q_i × p_i is conserved.
//!
//! Mirror: shaders/system/outer_solar_system.wgsl (prelude arrays SOLAR_INV_M = 1/m_i and
//! SOLAR_GMM = G m_i m_j for the 15 pairs i < j in the order (0,1), (0,2), …, (4,5)).
//!
//! Written by hand, not generated from a formula (`generated/mod.rs`): its H is a sum over
//! 15 pairs of bodies in 18 coordinates, whose gradient the hand-written loop over the pairs
//! computes with one 1/r³ per pair, shared by both bodies; the generated straight-line code
//! would write every pair's terms out twice over.

// Body and pair loops index several arrays (and the blocks) by body number, as the WGSL does.
#![allow(clippy::needless_range_loop)]

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{
    named_components, require_positive, Hamiltonian, ParamSpec, SystemDef, SystemDescription,
    SystemInfo,
};
use crate::error::Result;
use crate::float::Real;

pub const NAME: &str = "outer-solar-system";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "outer solar system (GNI I.2.4): Sun, Jupiter, Saturn, Uranus, Neptune, Pluto in 3-D (d = 18, q = (x_0, y_0, z_0, …, z_5), p_i = m_i v_i; AU, days, solar masses); default state: GNI Table I.2.2",
    params: &[ParamSpec { name: "G", default: 2.95912208286e-4, meaning: "gravitational constant in AU³/(solar mass · day²)" }],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// Number of bodies.
pub const BODIES: usize = 6;

/// Masses in solar masses (the Sun's includes the inner planets), GNI Table I.2.2.
/// The bodies' names in state order, for the components' names (x_sun, …, p_z_pluto).
const BODY_NAMES: [&str; BODIES] = ["sun", "jupiter", "saturn", "uranus", "neptune", "pluto"];

pub const MASSES: [f64; BODIES] = [
    1.00000597682,
    0.000954786104043,
    0.000285583733151,
    0.0000437273164546,
    0.0000517759138449,
    1.0 / 1.3e8,
];

/// Initial positions (AU), GNI Table I.2.2.
pub const POSITIONS: [[f64; 3]; BODIES] = [
    [0.0, 0.0, 0.0],
    [-3.5023653, -3.8169847, -1.5507963],
    [9.0755314, -3.0458353, -1.6483708],
    [8.3101420, -16.2901086, -7.2521278],
    [11.4707666, -25.7294829, -10.8169456],
    [-15.5387357, -25.2225594, -3.1902382],
];

/// Initial velocities (AU/day), GNI Table I.2.2.
pub const VELOCITIES: [[f64; 3]; BODIES] = [
    [0.0, 0.0, 0.0],
    [0.00565429, -0.00412490, -0.00190589],
    [0.00168318, 0.00483525, 0.00192462],
    [0.00354178, 0.00137102, 0.00055029],
    [0.00288930, 0.00114527, 0.00039677],
    [0.00276725, -0.00170702, -0.00136504],
];

#[derive(Debug, Clone)]
pub struct OuterSolarSystem {
    pub g: f64,
}

impl SystemDef for OuterSolarSystem {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/outer_solar_system.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/outer_solar_system.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["G"])?;
        Ok(OuterSolarSystem { g: params["G"] })
    }
}

impl OuterSolarSystem {
    /// G m_i m_j for the pairs i < j, in the loop order of the kernels.
    fn pair_couplings(&self) -> Vec<f64> {
        let mut c = Vec::with_capacity(BODIES * (BODIES - 1) / 2);
        for i in 0..BODIES {
            for j in i + 1..BODIES {
                c.push(self.g * MASSES[i] * MASSES[j]);
            }
        }
        c
    }
}

impl SystemDescription for OuterSolarSystem {
    fn dof(&self) -> usize {
        3 * BODIES
    }

    fn component_names(&self) -> Vec<String> {
        let q: Vec<String> = BODY_NAMES
            .iter()
            .flat_map(|b| ["x", "y", "z"].map(|c| format!("{c}_{b}")))
            .collect();
        named_components(&q, "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("G".into(), self.g)])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        vec![
            ("SOLAR_INV_M", MASSES.iter().map(|m| 1.0 / m).collect()),
            ("SOLAR_GMM", self.pair_couplings()),
        ]
    }

    /// GNI Table I.2.2 with p_i = m_i v_i.
    fn default_state(&self) -> Vec<f64> {
        let q = POSITIONS.iter().flatten().copied();
        let p = MASSES
            .iter()
            .zip(&VELOCITIES)
            .flat_map(|(m, v)| v.iter().map(move |x| m * x));
        q.chain(p).collect()
    }

    /// p_i = m_i v_i: each body's mass for its three momenta.
    fn masses(&self) -> Option<Vec<f64>> {
        Some(MASSES.iter().flat_map(|&m| [m; 3]).collect())
    }

    fn angular_momentum(&self, q: &[f64], p: &[f64]) -> Option<[f64; 3]> {
        let mut l = [0.0; 3];
        for i in 0..BODIES {
            let (x, y, z) = (q[3 * i], q[3 * i + 1], q[3 * i + 2]);
            let (px, py, pz) = (p[3 * i], p[3 * i + 1], p[3 * i + 2]);
            l[0] += y * pz - z * py;
            l[1] += z * px - x * pz;
            l[2] += x * py - y * px;
        }
        Some(l)
    }
}

impl Hamiltonian for OuterSolarSystem {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let mut kinetic = 0.0;
        for i in 0..BODIES {
            let pi = &p[3 * i..3 * i + 3];
            kinetic += (pi[0] * pi[0] + pi[1] * pi[1] + pi[2] * pi[2]) / (2.0 * MASSES[i]);
        }
        let mut potential = 0.0;
        for i in 0..BODIES {
            for j in i + 1..BODIES {
                let dx = q[3 * i] - q[3 * j];
                let dy = q[3 * i + 1] - q[3 * j + 1];
                let dz = q[3 * i + 2] - q[3 * j + 2];
                potential -= self.g * MASSES[i] * MASSES[j] / (dx * dx + dy * dy + dz * dz).sqrt();
            }
        }
        kinetic + potential
    }

    fn formula(&self) -> Option<String> {
        let kinetic: Vec<String> = (0..BODIES)
            .map(|i| {
                let k = 3 * i;
                format!(
                    "(p{}^2 + p{}^2 + p{}^2)/(2*{})",
                    k + 1,
                    k + 2,
                    k + 3,
                    literal(MASSES[i])
                )
            })
            .collect();
        let mut potential = Vec::new();
        for i in 0..BODIES {
            for j in i + 1..BODIES {
                let d = |c: usize| format!("(q{} - q{})^2", 3 * i + c + 1, 3 * j + c + 1);
                potential.push(format!(
                    "{}/sqrt({} + {} + {})",
                    literal(self.g * MASSES[i] * MASSES[j]),
                    d(0),
                    d(1),
                    d(2)
                ));
            }
        }
        Some(format!(
            "{} - {}",
            kinetic.join(" + "),
            potential.join(" - ")
        ))
    }

    /// ∂H/∂q_i = Σ_{j≠i} G m_i m_j (q_i − q_j)/|q_i − q_j|³, accumulated pair by pair.
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let np = q.len() / self.dof();
        for o in out.iter_mut() {
            *o = T::ZERO;
        }
        for a in 0..BODIES {
            for b in a + 1..BODIES {
                let gmm = T::from_f64(self.g * MASSES[a] * MASSES[b]);
                let (ax, ay, az) = (3 * a * np, (3 * a + 1) * np, (3 * a + 2) * np);
                let (bx, by, bz) = (3 * b * np, (3 * b + 1) * np, (3 * b + 2) * np);
                for i in 0..np {
                    let dx = q[ax + i] - q[bx + i];
                    let dy = q[ay + i] - q[by + i];
                    let dz = q[az + i] - q[bz + i];
                    let inv_r = T::ONE / (dx * dx + dy * dy + dz * dz).sqrt();
                    let f = gmm * (inv_r * inv_r * inv_r);
                    let fx = f * dx;
                    let fy = f * dy;
                    let fz = f * dz;
                    out[ax + i] += fx;
                    out[ay + i] += fy;
                    out[az + i] += fz;
                    out[bx + i] -= fx;
                    out[by + i] -= fy;
                    out[bz + i] -= fz;
                }
            }
        }
    }

    /// ∂H/∂p_i = p_i / m_i.
    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        let np = p.len() / self.dof();
        for (b, m) in MASSES.iter().enumerate() {
            let inv_m = T::from_f64(1.0 / m);
            let block = 3 * b * np..3 * (b + 1) * np;
            for (v, &x) in out[block.clone()].iter_mut().zip(&p[block]) {
                *v = x * inv_m;
            }
        }
    }

    /// H_qq vq (H_qp = 0): pair (a, b) adds w = G m_a m_b [v − 3 d (d·v)/r²]/r³ to body a and −w
    /// to body b, with d = q_a − q_b, r = |d|, v = vq_a − vq_b.
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], _p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        let np = q.len() / self.dof();
        let three = T::from_f64(3.0);
        for o in out.iter_mut() {
            *o = T::ZERO;
        }
        for a in 0..BODIES {
            for b in a + 1..BODIES {
                let gmm = T::from_f64(self.g * MASSES[a] * MASSES[b]);
                let (ax, ay, az) = (3 * a * np, (3 * a + 1) * np, (3 * a + 2) * np);
                let (bx, by, bz) = (3 * b * np, (3 * b + 1) * np, (3 * b + 2) * np);
                for i in 0..np {
                    let dx = q[ax + i] - q[bx + i];
                    let dy = q[ay + i] - q[by + i];
                    let dz = q[az + i] - q[bz + i];
                    let vx = vq[ax + i] - vq[bx + i];
                    let vy = vq[ay + i] - vq[by + i];
                    let vz = vq[az + i] - vq[bz + i];
                    let inv_r = T::ONE / (dx * dx + dy * dy + dz * dz).sqrt();
                    let f = gmm * (inv_r * inv_r * inv_r);
                    let s = three * (dx * vx + dy * vy + dz * vz) * inv_r * inv_r;
                    let wx = (vx - s * dx) * f;
                    let wy = (vy - s * dy) * f;
                    let wz = (vz - s * dz) * f;
                    out[ax + i] += wx;
                    out[ay + i] += wy;
                    out[az + i] += wz;
                    out[bx + i] -= wx;
                    out[by + i] -= wy;
                    out[bz + i] -= wz;
                }
            }
        }
    }

    /// H_pp vp = vp / m_i (H_pq = 0).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, q: &[T], _p: &[T], _vq: &[T], vp: &[T], out: &mut [T]) {
        self.grad_p(q, vp, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{HamiltonianSystem, System};
    use super::*;

    fn system() -> OuterSolarSystem {
        match System::new(NAME, &BTreeMap::new()).unwrap() {
            System::Hamiltonian(HamiltonianSystem::OuterSolarSystem(s)) => s,
            other => panic!("not the solar system: {}", other.name()),
        }
    }

    fn norm(v: &[f64]) -> f64 {
        v.iter().map(|x| x * x).sum::<f64>().sqrt()
    }

    /// |a − b| / |b| for the 3-vector of body `i` (the scales differ by 10⁸ between bodies);
    /// |a − b| where b = 0 (the Sun's momentum).
    fn body_rel_err(a: &[f64], b: &[f64], i: usize) -> f64 {
        let diff: Vec<f64> = (0..3).map(|c| a[3 * i + c] - b[3 * i + c]).collect();
        let scale = norm(&b[3 * i..3 * i + 3]);
        norm(&diff) / if scale > 0.0 { scale } else { 1.0 }
    }

    /// The part of H that depends on body `i`'s position: −G Σ_{j≠i} m_i m_j / r_ij. Its
    /// finite differences resolve even Pluto's force (~1e-15), which those of the whole H
    /// (~1e-7) cannot.
    fn body_potential(g: f64, q: &[f64], i: usize) -> f64 {
        (0..BODIES)
            .filter(|&j| j != i)
            .map(|j| {
                let r = (0..3)
                    .map(|c| (q[3 * i + c] - q[3 * j + c]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                -g * MASSES[i] * MASSES[j] / r
            })
            .sum()
    }

    #[test]
    fn default_state_energy_and_angular_momentum() {
        let sys = system();
        let z = sys.default_state();
        let (q, p) = z.split_at(18);
        let h0 = sys.energy(q, p);
        let l = sys.angular_momentum(q, p).unwrap();
        println!("outer solar system: H0 = {h0:.12e}, L0 = {l:?}");
        // Independent evaluation (Python, the table's values): T = 2.99676319e-8, V = −6.21221637e-8.
        assert!((h0 - -3.215453183208e-8).abs() < 1e-19, "H0 = {h0:e}");
        let expected = [1.596115582053e-6, -2.370330159244e-5, 5.594749022905e-5];
        for c in 0..3 {
            assert!((l[c] - expected[c]).abs() < 1e-17, "L0 = {l:?}");
        }
        assert_eq!(p[3], MASSES[1] * 0.00565429);
        assert_eq!(&q[15..], &[-15.5387357, -25.2225594, -3.1902382]);
        // Every derived f32 constant is a normal f32 (System::new checks finiteness only).
        for (_, values) in sys.arrays() {
            assert!(values.iter().all(|&v| (v as f32).is_normal()));
        }
    }

    /// Gradients against finite differences with errors relative to each body's own scale
    /// (the generic test's tolerance, 1e-6 (1 + |value|), cannot see forces of 1e-8).
    #[test]
    fn gradients_match_finite_differences_relatively() {
        let sys = system();
        let z0 = sys.default_state();
        let d = 18;
        // The table's state and two perturbed ones (positions by up to 0.3 AU, momenta by 20 %).
        let states: Vec<Vec<f64>> = (0..3)
            .map(|j| {
                z0.iter()
                    .enumerate()
                    .map(|(k, &x)| {
                        let w = ((k * 7 + j * 13) % 11) as f64 / 11.0 - 0.5;
                        if j == 0 {
                            x
                        } else if k < d {
                            x + 0.6 * w
                        } else {
                            x * (1.0 + 0.4 * w)
                        }
                    })
                    .collect()
            })
            .collect();
        for z in &states {
            let (q, p) = z.split_at(d);
            let (mut gq, mut gp) = (vec![0.0; d], vec![0.0; d]);
            sys.grad_q(q, p, &mut gq);
            sys.grad_p(q, p, &mut gp);
            // ∂H/∂q_i from body i's potential, per body.
            let eps = 1e-5;
            let mut fd_q = vec![0.0; d];
            for c in 0..d {
                let (mut a, mut b) = (q.to_vec(), q.to_vec());
                a[c] += eps;
                b[c] -= eps;
                fd_q[c] = (body_potential(sys.g, &a, c / 3) - body_potential(sys.g, &b, c / 3))
                    / (2.0 * eps);
            }
            // ∂H/∂p from the whole H: quadratic in p, so a step as large as p itself has no
            // truncation error and keeps the rounding of H (~1e-23) small next to Pluto's p.
            let mut fd_p = vec![0.0; d];
            for c in 0..d {
                let h = p[c].abs().max(1e-12);
                let (mut a, mut b) = (p.to_vec(), p.to_vec());
                a[c] += h;
                b[c] -= h;
                fd_p[c] = (sys.energy(q, &a) - sys.energy(q, &b)) / (2.0 * h);
            }
            for i in 0..BODIES {
                assert!(
                    body_rel_err(&gq, &fd_q, i) < 1e-8,
                    "body {i}: {gq:?} vs {fd_q:?}"
                );
                assert!(
                    body_rel_err(&gp, &fd_p, i) < 1e-8,
                    "body {i}: {gp:?} vs {fd_p:?}"
                );
            }
            // The whole H: its finite differences agree with the dominant (Sun, Jupiter) terms.
            let mut fd_h = vec![0.0; d];
            for c in 0..d {
                let (mut a, mut b) = (q.to_vec(), q.to_vec());
                a[c] += eps;
                b[c] -= eps;
                fd_h[c] = (sys.energy(&a, p) - sys.energy(&b, p)) / (2.0 * eps);
            }
            let diff: Vec<f64> = gq.iter().zip(&fd_h).map(|(a, b)| a - b).collect();
            assert!(norm(&diff) < 1e-7 * norm(&fd_h), "{gq:?} vs {fd_h:?}");

            check_directional_derivatives(&sys, q, p, &gq);
        }
    }

    /// `grad_q_dir` against central differences of `grad_q`, body by body, along each unit
    /// vector and one mixed direction at (q, p) (`gq` = ∂H/∂q there), and `grad_p_dir` against
    /// `grad_p` of the direction (H is quadratic in p).
    fn check_directional_derivatives(sys: &OuterSolarSystem, q: &[f64], p: &[f64], gq: &[f64]) {
        let d = q.len();
        let mut dirs: Vec<Vec<f64>> = (0..d)
            .map(|c| (0..d).map(|k| if k == c { 1.0 } else { 0.0 }).collect())
            .collect();
        dirs.push((0..d).map(|k| 0.3 + 0.1 * k as f64).collect());
        for v in dirs {
            let zero = vec![0.0; d];
            let (mut out, mut out_p) = (vec![0.0; d], vec![0.0; d]);
            sys.grad_q_dir(q, p, &v, &zero, &mut out);
            sys.grad_p_dir(q, p, &zero, &v, &mut out_p);
            let h = 1e-4;
            let a: Vec<f64> = q.iter().zip(&v).map(|(x, w)| x + h * w).collect();
            let b: Vec<f64> = q.iter().zip(&v).map(|(x, w)| x - h * w).collect();
            let (mut ga, mut gb) = (vec![0.0; d], vec![0.0; d]);
            sys.grad_q(&a, p, &mut ga);
            sys.grad_q(&b, p, &mut gb);
            let fd: Vec<f64> = ga
                .iter()
                .zip(&gb)
                .map(|(x, y)| (x - y) / (2.0 * h))
                .collect();
            let mut gv = vec![0.0; d];
            sys.grad_p(q, &v, &mut gv);
            for i in 0..BODIES {
                // Relative to the body's own response, with a floor for the rounding of
                // its whole gradient in the differences (~1e-16 |g_i| / h): a far body's
                // pull on Jupiter (1e-16) is a small change of a sum of 1e-8.
                let body = 3 * i..3 * i + 3;
                let diff: Vec<f64> = (0..3).map(|c| out[3 * i + c] - fd[3 * i + c]).collect();
                let allowed = 1e-6 * norm(&fd[body.clone()]) + 1e-14 * norm(&gq[body]) / h;
                assert!(
                    norm(&diff) <= allowed,
                    "dir {v:?} body {i}: {out:?} vs {fd:?}"
                );
                assert_eq!(&out_p[3 * i..3 * i + 3], &gv[3 * i..3 * i + 3]);
            }
        }
    }

    /// Block layout: several points, component-major, give the single-point results; f32
    /// agrees with f64 relatively, body by body.
    #[test]
    fn block_layout_matches_single_points() {
        let sys = system();
        let d = 18;
        let z0 = sys.default_state();
        let points: Vec<Vec<f64>> = (0..4)
            .map(|j| {
                z0.iter()
                    .enumerate()
                    .map(|(c, v)| {
                        if c < d {
                            v + 0.1 * ((c + 3 * j) % 5) as f64
                        } else {
                            *v
                        }
                    })
                    .collect()
            })
            .collect();
        let np = points.len();
        let q: Vec<f64> = (0..d)
            .flat_map(|k| points.iter().map(move |z| z[k]))
            .collect();
        let p: Vec<f64> = (0..d)
            .flat_map(|k| points.iter().map(move |z| z[d + k]))
            .collect();
        let mut gq = vec![0.0; d * np];
        let mut gdir = vec![0.0; d * np];
        sys.grad_q(&q, &p, &mut gq);
        sys.grad_q_dir(&q, &p, &q, &p, &mut gdir);
        let q32: Vec<f32> = q.iter().map(|&v| v as f32).collect();
        let mut gq32 = vec![0.0f32; d * np];
        sys.grad_q(&q32, &q32, &mut gq32);
        for (i, z) in points.iter().enumerate() {
            let (mut one, mut one_dir) = (vec![0.0; d], vec![0.0; d]);
            sys.grad_q(&z[..d], &z[d..], &mut one);
            sys.grad_q_dir(&z[..d], &z[d..], &z[..d], &z[d..], &mut one_dir);
            let col = |v: &[f64]| -> Vec<f64> { (0..d).map(|k| v[k * np + i]).collect() };
            assert_eq!(col(&gq), one);
            assert_eq!(col(&gdir), one_dir);
            let g32: Vec<f64> = (0..d).map(|k| gq32[k * np + i] as f64).collect();
            for b in 0..BODIES {
                assert!(
                    body_rel_err(&g32, &one, b) < 1e-4,
                    "f32 body {b}: {g32:?} vs {one:?}"
                );
            }
        }
    }
}
