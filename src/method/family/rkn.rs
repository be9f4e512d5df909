//! `family = "rkn"`: a Runge–Kutta–Nyström method for q'' = g(q), H = ½pᵀM⁻¹p + V(q): ā (`a`),
//! b̄ (`b_bar`), b and the stage times c.

use super::{stages, Bases, Kind};
use crate::error::{Field, Result};
use crate::invalid;
use crate::method::analysis::normal::{check_len, check_tableau, Normal};
use crate::method::file::read::Doc;
use crate::method::ops::Ops;
use crate::method::tableau::Tableau;
use crate::system::System;

#[derive(Debug, Clone, PartialEq)]
pub struct Rkn {
    /// ā, the stages' h² coefficients (s×s).
    pub a: Vec<Vec<f64>>,
    /// b̄, the h² weights of the position.
    pub b_bar: Vec<f64>,
    /// The weights of the velocity.
    pub b: Vec<f64>,
    /// The stage times.
    pub c: Vec<f64>,
}

impl Rkn {
    /// Every stage uses only earlier ones.
    fn explicit(&self) -> bool {
        self.a
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().skip(i).all(|&x| x == 0.0))
    }
}

impl Kind for Rkn {
    const NAME: &'static str = "rkn";
    const FIELDS: &'static [&'static str] = &["a", "b_bar", "b", "c"];

    fn read(doc: &Doc, _name: &str) -> Result<Self> {
        let t = doc.table();
        let a = doc.square(t, "a", "a")?;
        let s = a.len();
        let b_bar = doc.stage_vector(t, "b_bar", "b_bar", s, "a")?;
        let b = doc.stage_vector(t, "b", "b", s, "a")?;
        doc.sums_to_one("b", &b, "the b")?;
        let c = match t.get("c") {
            Some(_) => doc.stage_vector(t, "c", "c", s, "a")?,
            None => {
                return Err(doc.err(
                    "c",
                    "missing; an rkn method gives c, the stage times (ā does not determine them): c = [c_1, …, c_s]",
                ))
            }
        };
        Ok(Rkn { a, b_bar, b, c })
    }

    fn summary(&self) -> String {
        format!("{}-stage Runge-Kutta-Nyström method", self.b.len())
    }

    fn normal(&self, _bases: Bases, _depth: usize) -> Result<Normal> {
        let t = Tableau {
            a: self.a.clone(),
            b: self.b.clone(),
            c: self.c.clone(),
        };
        check_tableau(&t, "")?;
        check_len(&self.b_bar, self.b.len(), "b_bar")?;
        Ok(Normal::Rkn {
            a: self.a.clone(),
            b_bar: self.b_bar.clone(),
            b: self.b.clone(),
            c: self.c.clone(),
        })
    }

    fn needs_separable(&self) -> bool {
        true
    }

    /// H = T(p) + V(q) with T quadratic, tested as ∂H/∂p linear in p at the system's default
    /// state (exact for T = ½pᵀM⁻¹p, the built-in separable systems' kinetic energy, and for
    /// `--hamiltonian` systems written so); an implicit Nyström tableau is not run
    /// (`family = "prk"` runs any tableau pair).
    fn check_system(&self, name: &str, system: &System) -> Result<()> {
        if !self.explicit() {
            return Err(invalid!(Field::Method;
                Field::Method.is(name),
                ": an implicit Runge-Kutta-Nystrom tableau (a nonzero on or above the diagonal of a) is not run; write the method as family prk"
            ));
        }
        if !system.separable() || !kinetic_quadratic(system) {
            return Err(invalid!(Field::Method;
                Field::Method.is(name),
                format!(": a Runge-Kutta-Nystrom method needs H = T(p) + V(q) with T quadratic in p (∂H/∂p linear in p, e.g. T = p²/2m), which system '{}' is not; use family prk",
                system.name())
            ));
        }
        Ok(())
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        stages::rkn(o, self, h);
    }
}

/// Whether ∂H/∂p is linear in p at the system's default q: ∂H/∂p(q, 0) = 0 and
/// ∂H/∂p(q, x + 2y) = ∂H/∂p(q, x) + 2 ∂H/∂p(q, y), to rounding.
fn kinetic_quadratic(system: &System) -> bool {
    // A discrete map has no ∂H/∂p (nor runs with a Nyström method).
    let Some(h) = system.hamiltonian() else {
        return false;
    };
    let d = system.dof();
    let q: Vec<f64> = system.default_state()[..d].to_vec();
    let x: Vec<f64> = (0..d).map(|k| 0.7 + 0.3 * k as f64).collect();
    let y: Vec<f64> = (0..d).map(|k| -0.4 + 0.2 * k as f64).collect();
    let xy: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + 2.0 * b).collect();
    let grad = |p: &[f64]| {
        let mut out = vec![0.0; d];
        h.grad_p(&q, p, &mut out);
        out
    };
    let (g0, gx, gy, gxy) = (grad(&vec![0.0; d]), grad(&x), grad(&y), grad(&xy));
    (0..d).all(|k| {
        let scale = gx[k].abs() + 2.0 * gy[k].abs() + 1.0;
        g0[k].abs() <= 1e-12 * scale && (gxy[k] - gx[k] - 2.0 * gy[k]).abs() <= 1e-12 * scale
    })
}
