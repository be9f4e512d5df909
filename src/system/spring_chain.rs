//! Vertical elastic cord (González-Santos, "cuerda elástica vertical"): N point masses in the plane,
//! mass i joined to mass i−1 by spring i (stiffness k_i, rest length l_i), "mass 0" a fixed
//! anchor at the origin, mass N free, gravity along +y (y points down):
//!
//! H = Σ |p_i|²/(2 m_i) + Σ k_i (|r_i − r_{i−1}| − l_i)²/2 − g Σ m_i y_i,   r_0 = 0.
//!
//! N counts the moving masses; there are N springs (González-Santos: M = N springs when one end is
//! free). d = 2N; state ordering q = (x_1, y_1, x_2, y_2, …, x_N, y_N) (the paper's
//! q_{2i−1} = x_i, q_{2i} = y_i), p likewise (p = m q̇). Defaults are the paper's Table 1:
//! N = 8, m_i = mass/N, l_i = length/N, k_i = 1000, g = 9.81, and the default state is the
//! equilibrium y_i = y_{i−1} + l_i + g Σ_{j≥i} m_j / k_i, x_i = 0, at rest except for the
//! horizontal momentum α of the free end. `k_i` (1-based) overrides the stiffness of spring i.
//!
//! Mirror: shaders/system/spring_chain.wgsl (per-spring arrays CHAIN_K, CHAIN_REST,
//! CHAIN_INV_M, CHAIN_M_G; the statement order below is the shader's).
//!
//! Written by hand, not generated from a formula (`generated/mod.rs`): its H is a sum over
//! the springs of a chain whose number N is a parameter; the generator would write every
//! spring's terms out for each N, while the loops over the per-spring arrays serve every N.

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{
    bad_param, named_components, require_positive, Hamiltonian, ParamSpec, SystemDef,
    SystemDescription, SystemInfo,
};
use crate::error::Result;
use crate::float::Real;

pub const NAME: &str = "spring-chain";
/// The largest number of masses (d = 2N = 128).
pub const MAX_MASSES: usize = 64;
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "vertical elastic cord (González-Santos): N masses hanging from a fixed anchor by N springs, planar, y down (d = 2N, q = (x_1, y_1, …, x_N, y_N)); default state: equilibrium with horizontal momentum alpha on the free end",
    params: &[
        ParamSpec { name: "n", default: 8.0, meaning: "number of moving masses N (= number of springs; integer, 1 ≤ N ≤ 64)" },
        ParamSpec { name: "k", default: 1000.0, meaning: "stiffness of every spring (k_i overrides spring i, 1-based; spring 1 holds mass 1 to the anchor)" },
        ParamSpec { name: "mass", default: 1.0, meaning: "total mass of the cord (m_i = mass/N)" },
        ParamSpec { name: "length", default: 1.0, meaning: "total rest length of the cord (l_i = length/N)" },
        ParamSpec { name: "g", default: 9.81, meaning: "gravitational acceleration (along +y, downward)" },
        ParamSpec { name: "alpha", default: 1.5625e-2, meaning: "initial horizontal momentum of the free end (default state only)" },
    ],
    separable: true,
    sweeps: Some(1),
    indexed: &["k"],
    variational: false,
};

#[derive(Debug, Clone)]
pub struct SpringChain {
    /// Number of moving masses N.
    pub n: usize,
    /// The uniform stiffness (the `k` parameter).
    pub k: f64,
    pub mass: f64,
    pub length: f64,
    pub g: f64,
    pub alpha: f64,
    /// Per-spring overrides `k_i` (1-based), as given.
    pub overrides: BTreeMap<usize, f64>,
    /// Resolved stiffness of spring i (0-based here: springs[i] joins mass i+1 to mass i).
    pub springs: Vec<f64>,
}

impl SystemDef for SpringChain {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/spring_chain.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/spring_chain.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        let nf = params["n"];
        if !(nf >= 1.0 && nf <= MAX_MASSES as f64 && nf.fract() == 0.0) {
            return Err(bad_param(
                "n",
                nf,
                format!(": system '{NAME}' needs the number of masses n to be an integer with 1 ≤ n ≤ {MAX_MASSES}"),
            ));
        }
        let n = nf as usize;
        require_positive(NAME, params, &["k", "mass", "length", "g"])?;
        let k = params["k"];
        let mut overrides = BTreeMap::new();
        for (key, &v) in params {
            let Some(i) = key.strip_prefix("k_") else {
                continue;
            };
            let i: usize = i.parse().map_err(|_| {
                bad_param(
                    key,
                    v,
                    format!(": expected k_i with i an integer from 1 to n = {n}"),
                )
            })?;
            if !(1..=n).contains(&i) {
                return Err(bad_param(
                    key,
                    v,
                    format!(": system '{NAME}' has springs 1..{n} (n = {n}); use k_i with 1 ≤ i ≤ {n}, or raise n"),
                ));
            }
            // resolve_params has already rejected non-finite values.
            if v <= 0.0 {
                return Err(bad_param(
                    key,
                    v,
                    format!(": system '{NAME}' needs every spring stiffness > 0"),
                ));
            }
            overrides.insert(i, v);
        }
        let springs = (1..=n).map(|i| *overrides.get(&i).unwrap_or(&k)).collect();
        Ok(SpringChain {
            n,
            k,
            mass: params["mass"],
            length: params["length"],
            g: params["g"],
            alpha: params["alpha"],
            overrides,
            springs,
        })
    }
}

impl SpringChain {
    /// Mass of each particle, m_i = mass/N.
    pub fn particle_mass(&self) -> f64 {
        self.mass / self.n as f64
    }

    /// Rest length of each spring, l_i = length/N.
    pub fn rest_length(&self) -> f64 {
        self.length / self.n as f64
    }

    /// The equilibrium (x_i = 0, y_i = y_{i−1} + l_i + g Σ_{j≥i} m_j / k_i) with zero momenta.
    pub fn equilibrium(&self) -> Vec<f64> {
        let n = self.n;
        let (m, l) = (self.particle_mass(), self.rest_length());
        let mut z = vec![0.0; 4 * n];
        let mut y = 0.0;
        for i in 0..n {
            // Tension of spring i+1 (1-based): the weight of the masses below its top end.
            let weight_below = self.g * m * (n - i) as f64;
            y += l + weight_below / self.springs[i];
            z[2 * i + 1] = y;
        }
        z
    }
}

impl SystemDescription for SpringChain {
    fn dof(&self) -> usize {
        2 * self.n
    }

    fn component_names(&self) -> Vec<String> {
        let q: Vec<String> = (1..=self.dof() / 2)
            .flat_map(|i| [format!("x{i}"), format!("y{i}")])
            .collect();
        named_components(&q, "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::from([
            ("n".into(), self.n as f64),
            ("k".into(), self.k),
            ("mass".into(), self.mass),
            ("length".into(), self.length),
            ("g".into(), self.g),
            ("alpha".into(), self.alpha),
        ]);
        for (i, v) in &self.overrides {
            out.insert(format!("k_{i}"), *v);
        }
        out
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// Per-spring / per-mass arrays, index i = 0..N−1 for spring i+1 and mass i+1:
    /// CHAIN_K = k_i, CHAIN_REST = l_i, CHAIN_INV_M = 1/m_i, CHAIN_M_G = m_i g.
    fn arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        let n = self.n;
        let (m, l) = (self.particle_mass(), self.rest_length());
        vec![
            ("CHAIN_K", self.springs.clone()),
            ("CHAIN_REST", vec![l; n]),
            ("CHAIN_INV_M", vec![1.0 / m; n]),
            ("CHAIN_M_G", vec![m * self.g; n]),
        ]
    }

    /// The free end's horizontal position x_N (González-Santos's figures 7–11).
    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("x of the free end", 2 * (self.n - 1)))
    }

    /// The equilibrium, at rest except for p_x = alpha on the free end (mass N).
    fn default_state(&self) -> Vec<f64> {
        let mut z = self.equilibrium();
        let d = self.dof();
        z[d + 2 * (self.n - 1)] = self.alpha;
        z
    }
}

impl Hamiltonian for SpringChain {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let (m, l) = (self.particle_mass(), self.rest_length());
        let mut kinetic = 0.0;
        let mut elastic = 0.0;
        let mut gravity = 0.0;
        let (mut ax, mut ay) = (0.0, 0.0);
        for i in 0..self.n {
            let (x, y) = (q[2 * i], q[2 * i + 1]);
            kinetic += (p[2 * i] * p[2 * i] + p[2 * i + 1] * p[2 * i + 1]) / (2.0 * m);
            let stretch = ((x - ax) * (x - ax) + (y - ay) * (y - ay)).sqrt() - l;
            elastic += 0.5 * self.springs[i] * stretch * stretch;
            gravity += m * y;
            (ax, ay) = (x, y);
        }
        kinetic + elastic - self.g * gravity
    }

    fn formula(&self) -> Option<String> {
        let (m, l, g) = (self.particle_mass(), self.rest_length(), self.g);
        let terms: Vec<String> = (0..self.n)
            .map(|i| {
                let (x, y) = (2 * i + 1, 2 * i + 2);
                let dx = if i == 0 {
                    format!("q{x}")
                } else {
                    format!("(q{x} - q{})", x - 2)
                };
                let dy = if i == 0 {
                    format!("q{y}")
                } else {
                    format!("(q{y} - q{})", y - 2)
                };
                format!(
                    "(p{x}^2 + p{y}^2)/(2*{}) + {}*(sqrt({dx}^2 + {dy}^2) - {})^2/2 - {}*q{y}",
                    literal(m),
                    literal(self.springs[i]),
                    literal(l),
                    literal(g * m)
                )
            })
            .collect();
        Some(terms.join(" + "))
    }

    /// ∂H/∂r_i = −m_i g ŷ + t_i d_i − t_{i+1} d_{i+1}, with d_i = r_i − r_{i−1} and the
    /// spring's tension per unit length t_i = k_i (1 − l_i/|d_i|).
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let np = q.len() / self.dof();
        let m_g = T::from_f64(self.particle_mass() * self.g);
        let rest = T::from_f64(self.rest_length());
        for s in 0..self.n {
            let (gx, gy) = (2 * s * np, (2 * s + 1) * np);
            for i in 0..np {
                out[gx + i] = T::ZERO;
                out[gy + i] = -m_g;
            }
        }
        for s in 0..self.n {
            let k = T::from_f64(self.springs[s]);
            let (x, y) = (2 * s * np, (2 * s + 1) * np);
            for i in 0..np {
                let (ax, ay) = if s == 0 {
                    (T::ZERO, T::ZERO)
                } else {
                    (q[x - 2 * np + i], q[y - 2 * np + i])
                };
                let dx = q[x + i] - ax;
                let dy = q[y + i] - ay;
                let len = (dx * dx + dy * dy).sqrt();
                let t = k * (T::ONE - rest / len);
                let fx = t * dx;
                let fy = t * dy;
                out[x + i] += fx;
                out[y + i] += fy;
                if s > 0 {
                    out[x - 2 * np + i] -= fx;
                    out[y - 2 * np + i] -= fy;
                }
            }
        }
    }

    /// ∂H/∂p_i = p_i / m_i.
    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        let inv_m = T::from_f64(1.0 / self.particle_mass());
        for (v, &x) in out.iter_mut().zip(p) {
            *v = x * inv_m;
        }
    }

    /// H_qq vq (H_qp = 0): spring i contributes w = k_i [(1 − l_i/L) v + (l_i/L) u (u·v)] to
    /// mass i and −w to mass i−1, with v = vq_i − vq_{i−1}, L = |d_i|, u = d_i/L.
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], _p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        let np = q.len() / self.dof();
        let rest = T::from_f64(self.rest_length());
        for o in out.iter_mut() {
            *o = T::ZERO;
        }
        for s in 0..self.n {
            let k = T::from_f64(self.springs[s]);
            let (x, y) = (2 * s * np, (2 * s + 1) * np);
            for i in 0..np {
                let (ax, ay, avx, avy) = if s == 0 {
                    (T::ZERO, T::ZERO, T::ZERO, T::ZERO)
                } else {
                    (
                        q[x - 2 * np + i],
                        q[y - 2 * np + i],
                        vq[x - 2 * np + i],
                        vq[y - 2 * np + i],
                    )
                };
                let dx = q[x + i] - ax;
                let dy = q[y + i] - ay;
                let vx = vq[x + i] - avx;
                let vy = vq[y + i] - avy;
                let len = (dx * dx + dy * dy).sqrt();
                let rl = rest / len;
                let t = k * (T::ONE - rl);
                let c = k * rl * (dx * vx + dy * vy) / (len * len);
                let wx = t * vx + c * dx;
                let wy = t * vy + c * dy;
                out[x + i] += wx;
                out[y + i] += wy;
                if s > 0 {
                    out[x - 2 * np + i] -= wx;
                    out[y - 2 * np + i] -= wy;
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

    fn chain(given: &[(&str, f64)]) -> Result<SpringChain> {
        let given: BTreeMap<String, f64> = given.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        match System::new(NAME, &given)? {
            System::Hamiltonian(HamiltonianSystem::SpringChain(c)) => Ok(c),
            other => panic!("not a spring chain: {}", other.name()),
        }
    }

    /// At the equilibrium (alpha = 0) every force balances: |∂H/∂q| is roundoff next to the
    /// weight g·mass, with uniform springs and with spring 3 softened.
    #[test]
    fn equilibrium_is_at_rest() {
        for given in [vec![("alpha", 0.0)], vec![("alpha", 0.0), ("k_3", 500.0)]] {
            let sys = chain(&given).unwrap();
            let d = sys.dof();
            let z = sys.default_state();
            assert!(z[d..].iter().all(|&p| p == 0.0));
            let (mut gq, mut gp) = (vec![0.0; d], vec![0.0; d]);
            sys.grad_q(&z[..d], &z[d..], &mut gq);
            sys.grad_p(&z[..d], &z[d..], &mut gp);
            let scale = 9.81 * 1.0;
            let worst = gq.iter().fold(0.0f64, |a, g| a.max(g.abs())) / scale;
            assert!(worst < 1e-12, "{given:?}: grad_q at equilibrium {gq:?}");
            assert!(gp.iter().all(|&v| v == 0.0));
        }
    }

    #[test]
    fn default_state_is_the_papers_table_1() {
        let c = chain(&[]).unwrap();
        assert_eq!((c.n, c.dof()), (8, 16));
        assert_eq!(c.particle_mass(), 0.125);
        assert_eq!(c.rest_length(), 0.125);
        let z = c.default_state();
        // Free end at rest length 1 plus the static stretch g m Σ_i (N − i + 1) / k.
        let stretch = 9.81 * 0.125 * 36.0 / 1000.0;
        assert!((z[15] - (1.0 + stretch)).abs() < 1e-14);
        assert_eq!(z[16 + 14], 1.5625e-2);
        assert_eq!(z.iter().filter(|&&v| v != 0.0).count(), 9);
    }

    #[test]
    fn parameters_are_validated_and_round_trip() {
        for bad in [
            vec![("n", 0.0)],
            vec![("n", 65.0)],
            vec![("n", 2.5)],
            vec![("k", -1.0)],
            vec![("mass", 0.0)],
            vec![("k_9", 1.0)],
            vec![("n", 4.0), ("k_5", 1.0)],
            vec![("k_2", 0.0)],
        ] {
            // The error names the parameter as data, and its message by name, not by flag.
            let err = chain(&bad).unwrap_err();
            let key = bad.last().unwrap().0;
            assert!(
                matches!(&err, crate::Error::Invalid { field: crate::error::Field::Param(p), .. } if p == key),
                "{bad:?}: {err:?}"
            );
            let text = err.to_string();
            assert!(
                text.starts_with(&format!("parameter {key} = ")) && !text.contains("--"),
                "{bad:?}: {text}"
            );
        }
        let sys = chain(&[("n", 32.0), ("k_3", 500.0)]).unwrap();
        assert_eq!(sys.dof(), 64);
        let params = sys.params();
        assert_eq!(params["k_3"], 500.0);
        assert!(!params.contains_key("k_4"));
        let again = System::new(NAME, &params).unwrap();
        assert_eq!(again.params(), params);
        assert_eq!(again.default_state(), sys.default_state());
        assert_eq!(sys.arrays()[0].1[2], 500.0);
    }

    /// The block kernels (component-major, several points) agree with the single-point ones,
    /// and f32 with f64.
    #[test]
    fn block_layout_matches_single_points() {
        let sys = chain(&[("n", 3.0), ("k_2", 700.0)]).unwrap();
        let d = sys.dof();
        let z0 = sys.default_state();
        let points: Vec<Vec<f64>> = (0..5)
            .map(|j| {
                z0.iter()
                    .enumerate()
                    .map(|(c, v)| v + 0.01 * ((c * 3 + j * 5) % 7) as f64)
                    .collect()
            })
            .collect();
        let np = points.len();
        let block = |part: usize| -> Vec<f64> {
            (0..d)
                .flat_map(|k| points.iter().map(move |z| z[part * d + k]))
                .collect()
        };
        let (q, p) = (block(0), block(1));
        let mut gq = vec![0.0; d * np];
        let mut gdir = vec![0.0; d * np];
        sys.grad_q(&q, &p, &mut gq);
        sys.grad_q_dir(&q, &p, &p, &q, &mut gdir);
        let q32: Vec<f32> = q.iter().map(|&v| v as f32).collect();
        let mut gq32 = vec![0.0f32; d * np];
        sys.grad_q(&q32, &q32, &mut gq32);
        for (i, z) in points.iter().enumerate() {
            let mut one = vec![0.0; d];
            let mut one_dir = vec![0.0; d];
            sys.grad_q(&z[..d], &z[d..], &mut one);
            sys.grad_q_dir(&z[..d], &z[d..], &z[d..], &z[..d], &mut one_dir);
            for k in 0..d {
                assert_eq!(gq[k * np + i], one[k]);
                assert_eq!(gdir[k * np + i], one_dir[k]);
                assert!((gq32[k * np + i] as f64 - one[k]).abs() < 1e-3 * (1.0 + one[k].abs()));
            }
        }
    }
}
