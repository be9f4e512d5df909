//! `family = "rk"`: a Butcher tableau, explicit or implicit, on y' = (∂H/∂p, −∂H/∂q); run as
//! the partitioned method with the same tableau for q and p.

use super::{stages, Bases, Kind};
use crate::error::Result;
use crate::method::analysis::normal::{check_tableau, Normal};
use crate::method::file::read::Doc;
use crate::method::ops::Ops;
use crate::method::tableau::Tableau;

/// A Runge–Kutta method is its tableau.
pub type Rk = Tableau;

impl Kind for Tableau {
    const NAME: &'static str = "rk";
    const FIELDS: &'static [&'static str] = &["a", "b", "c"];

    fn read(doc: &Doc, _name: &str) -> Result<Self> {
        doc.tableau(doc.table(), "")
    }

    fn summary(&self) -> String {
        format!(
            "{}-stage {} Runge-Kutta method",
            self.stages(),
            if self.explicit() { "explicit" } else { "implicit" }
        )
    }

    fn normal(&self, _bases: Bases, _depth: usize) -> Result<Normal> {
        check_tableau(self, "")?;
        Ok(Normal::Rk(self.clone()))
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        stages::prk(o, self, self, h);
    }
}
