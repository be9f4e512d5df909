//! `family = "prk"`: a partitioned Runge–Kutta method, a tableau `[q]` for q' = ∂H/∂p and a
//! tableau `[p]` for p' = −∂H/∂q with the same number of stages.

use super::{stages, Bases, Kind};
use crate::error::Result;
use crate::input_err;
use crate::method::analysis::normal::{check_tableau, Normal};
use crate::method::file::read::{counted, Doc};
use crate::method::ops::Ops;
use crate::method::tableau::Tableau;

#[derive(Debug, Clone, PartialEq)]
pub struct Prk {
    /// The q equation's tableau (a, b).
    pub q: Tableau,
    /// The p equation's tableau (â, b̂).
    pub p: Tableau,
}

impl Kind for Prk {
    const NAME: &'static str = "prk";
    const FIELDS: &'static [&'static str] = &["q", "p"];

    fn read(doc: &Doc, _name: &str) -> Result<Self> {
        let q = doc.tableau(doc.sub_table("q")?, "q.")?;
        let p = doc.tableau(doc.sub_table("p")?, "p.")?;
        if q.stages() != p.stages() {
            return Err(doc.err(
                "p.a",
                format!(
                    "{}, but q.a has {}; the q and p tableaus need the same number of stages (pad the shorter with a stage of zero coefficients)",
                    counted(p.stages(), "stage", "stages"),
                    counted(q.stages(), "stage", "stages")
                ),
            ));
        }
        Ok(Prk { q, p })
    }

    fn summary(&self) -> String {
        format!("{}-stage partitioned Runge-Kutta method", self.q.stages())
    }

    fn normal(&self, _bases: Bases, _depth: usize) -> Result<Normal> {
        check_tableau(&self.q, "q.")?;
        check_tableau(&self.p, "p.")?;
        if self.q.stages() != self.p.stages() {
            return Err(input_err!(
                "prk: the q tableau has {} stages and the p tableau {}; give both the same number of stages (pad with zero rows and columns)",
                self.q.stages(),
                self.p.stages()
            ));
        }
        Ok(Normal::Prk {
            q: self.q.clone(),
            p: self.p.clone(),
        })
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        stages::prk(o, &self.q, &self.p, h);
    }
}
