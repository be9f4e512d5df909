//! Mathematical pendulum H = p²/(2 m l²) + m g l (1 − cos q). Mirror: shaders/system/pendulum.wgsl.

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{
    energy_per_point, require_positive, Hamiltonian, ParamSpec, SystemDef, SystemDescription,
    SystemInfo,
};
use crate::error::Result;
use crate::float::{cos_poly, exact_reciprocal, sin_poly, Real, SIN_POLY_F64_RANGE};

pub const NAME: &str = "pendulum";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "pendulum H = p²/(2 m l²) + m g l (1 − cos q) (d = 1), q the angle from the downward vertical",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "bob mass" },
        ParamSpec { name: "g", default: 1.0, meaning: "gravitational acceleration" },
        ParamSpec { name: "l", default: 1.0, meaning: "rod length" },
    ],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

#[derive(Debug, Clone)]
pub struct Pendulum {
    pub m: f64,
    pub g: f64,
    pub l: f64,
}

impl SystemDef for Pendulum {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/pendulum.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/pendulum.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "g", "l"])?;
        Ok(Pendulum {
            m: params["m"],
            g: params["g"],
            l: params["l"],
        })
    }
}

impl SystemDescription for Pendulum {
    fn dof(&self) -> usize {
        1
    }

    /// The default centre of ensembles: a point on the upper half of a level curve.
    fn default_state(&self) -> Vec<f64> {
        vec![0.0, 0.8]
    }

    fn minimum(&self) -> Option<Vec<f64>> {
        Some(vec![0.0, 0.0])
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m".into(), self.m),
            ("g".into(), self.g),
            ("l".into(), self.l),
        ])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("M_G_L", self.m * self.g * self.l),
            ("INV_M_L2", 1.0 / (self.m * self.l * self.l)),
        ]
    }
}

impl Hamiltonian for Pendulum {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        p[0] * p[0] / (2.0 * self.m * self.l * self.l)
            + self.m * self.g * self.l * (1.0 - q[0].cos())
    }

    /// Vectorised, with the f64 `sin_poly`: H = p²/(2 m l²) + 2 m g l sin²(q/2), the same
    /// kinetic term as `energy` and 1 − cos q without its cancellation near q = 0 (within
    /// 1e-15 (1 + |H|) of `energy`, a few ulp, tested). A block with a |q| beyond `SIN_POLY_F64_RANGE`,
    /// where the polynomial's range reduction loses accuracy, goes point by point through `energy`.
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], _n: usize, first: usize, out: &mut [f64]) {
        let len = out.len();
        let (q, p) = (&q[first..first + len], &p[first..first + len]);
        let mut out_of_range = false;
        for &x in q {
            out_of_range |= x.to_f64().abs() > SIN_POLY_F64_RANGE;
        }
        if out_of_range {
            return energy_per_point(1, |q, p| self.energy(q, p), q, p, len, 0, out);
        }
        let two_m_l2 = 2.0 * self.m * self.l * self.l;
        let two_m_g_l = 2.0 * (self.m * self.g * self.l);
        // The statistics evaluate H at every snapshot, so the loop takes the engine's vector
        // level (`simd`), and where 2 m l² is a power of two (m = l = 1) its division is the
        // multiplication by its exact reciprocal: the same bits, without a division per point.
        crate::simd::dispatch(
            #[inline(always)]
            || match exact_reciprocal(two_m_l2) {
                Some(inv) => pendulum_energies(q, p, out, |y2| y2 * inv, two_m_g_l),
                None => pendulum_energies(q, p, out, |y2| y2 / two_m_l2, two_m_g_l),
            },
        )
    }

    /// WGSL constants: M_G_L = m g l, INV_M_L2 = 1/(m l²).
    fn formula(&self) -> Option<String> {
        let (m, g, l) = (literal(self.m), literal(self.g), literal(self.l));
        Some(format!("p^2/(2*{m}*{l}^2) + {m}*{g}*{l}*(1 - cos(q))"))
    }

    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let m_g_l = T::from_f64(self.m * self.g * self.l);
        for (g, &x) in out.iter_mut().zip(q) {
            *g = m_g_l * sin_poly(x);
        }
    }

    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        let inv_m_l2 = T::from_f64(1.0 / (self.m * self.l * self.l));
        for (v, &x) in out.iter_mut().zip(p) {
            *v = x * inv_m_l2;
        }
    }

    /// H_qq vq = m g l cos(q) vq (H_qp = 0).
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], _p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        let m_g_l = T::from_f64(self.m * self.g * self.l);
        for ((g, &x), &v) in out.iter_mut().zip(q).zip(vq) {
            *g = m_g_l * cos_poly(x) * v;
        }
    }

    /// The force and, for every tangent column, m g l cos(q) vq, with sin and cos evaluated once
    /// per point (in runs of 64 points, each its own plain loop so that it vectorises). Same
    /// arithmetic as `grad_q` and `grad_q_dir`; without tangent columns it is `grad_q`.
    #[inline(always)]
    fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        const RUN: usize = 64;
        if q.len() == nd {
            return self.grad_q(q, p, out);
        }
        let m_g_l = T::from_f64(self.m * self.g * self.l);
        let mut c = [T::ZERO; RUN];
        for start in (0..nd).step_by(RUN) {
            let end = (start + RUN).min(nd);
            let len = end - start;
            self.grad_q(&q[start..end], &p[start..end], &mut out[start..end]);
            for (ck, &x) in c[..len].iter_mut().zip(&q[start..end]) {
                *ck = m_g_l * cos_poly(x);
            }
            for j in 1..q.len() / nd {
                let (v, o) = (
                    &q[j * nd + start..j * nd + end],
                    &mut out[j * nd + start..j * nd + end],
                );
                for ((g, &x), &ck) in o.iter_mut().zip(v).zip(&c[..len]) {
                    *g = ck * x;
                }
            }
        }
    }

    /// H_pp vp = vp / (m l²) (H_pq = 0).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, q: &[T], _p: &[T], _vq: &[T], vp: &[T], out: &mut [T]) {
        self.grad_p(q, vp, out);
    }
}

/// H = kinetic(p²) + 2 m g l sin²(q/2) of each point (`Pendulum::energy_block`'s loop).
#[inline(always)]
fn pendulum_energies<T: Real>(
    q: &[T],
    p: &[T],
    out: &mut [f64],
    kinetic: impl Fn(f64) -> f64,
    two_m_g_l: f64,
) {
    for ((h, &x), &y) in out.iter_mut().zip(q).zip(p) {
        let (x, y) = (x.to_f64(), y.to_f64());
        let s = sin_poly(0.5 * x);
        *h = kinetic(y * y) + two_m_g_l * (s * s);
    }
}
