//! `family = "splitting"`: kicks (p ← p − c h ∂H/∂q) and drifts (q ← q + c h ∂H/∂p) in the order
//! they act, for separable H; run as the built-in splittings run (`method::splitting`).

use super::{Bases, Kind};
use crate::error::{Field, Result};
use crate::{input_err, invalid};
use crate::method::analysis::normal::{check_finite, splitting, Normal};
use crate::method::file::read::Doc;
use crate::method::ops::Ops;
use crate::method::splitting::{prologue_of, step_of};
use crate::method::tableau::Substep;
use crate::system::System;

/// A splitting method is its kicks and drifts, in order.
pub type Splitting = Vec<Substep>;

impl Kind for Vec<Substep> {
    const NAME: &'static str = "splitting";
    const FIELDS: &'static [&'static str] = &["steps"];

    fn read(doc: &Doc, _name: &str) -> Result<Self> {
        doc.steps()
    }

    fn summary(&self) -> String {
        let kicks = self
            .iter()
            .filter(|s| matches!(s, Substep::Kick(_)))
            .count();
        format!(
            "splitting of {kicks} kicks and {} drifts (separable H)",
            self.len() - kicks
        )
    }

    fn normal(&self, _bases: Bases, _depth: usize) -> Result<Normal> {
        if self.is_empty() {
            return Err(input_err!(
                "splitting: no kicks or drifts; give at least one"
            ));
        }
        check_finite(
            self.iter().map(|s| match *s {
                Substep::Kick(c) | Substep::Drift(c) => c,
            }),
            "steps",
        )?;
        Ok(splitting(self.clone()))
    }

    fn needs_separable(&self) -> bool {
        true
    }

    fn check_system(&self, name: &str, system: &System) -> Result<()> {
        if system.separable() {
            return Ok(());
        }
        Err(invalid!(Field::Method;
            Field::Method.is(name),
            format!(": system '{}' is not separable (H ≠ T(p) + V(q)), and a splitting's kicks and drifts need separable H; use a composition or a prk method (e.g. gauss2, lobatto-iiia-iiib-3)",
            system.name())
        ))
    }

    #[inline]
    fn prologue<O: Ops>(&self, o: &mut O) {
        prologue_of(o, self);
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        step_of(o, self);
    }
}
