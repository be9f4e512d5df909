//! `family = "composition"`: steps of a named base method (built-in, shipped or loaded) of
//! sizes w_1 h, …, w_s h, the first weight acting first. Over Verlet it runs as the built-in
//! compositions run (`method::composition`: kicks fused, the force carried); over any other
//! base, as that method's steps with the step size scaled (`Scaled`).

use std::fmt;
use std::sync::OnceLock;

use super::scaled::Scaled;
use super::{Bases, Kind};
use crate::error::Result;
use crate::input_err;
use crate::method::analysis::normal::{check_finite, compose, Normal, MAX_ANALYSED_STAGES};
use crate::method::analysis::stability::Step;
use crate::method::composition::{prologue_over_verlet, step_over_verlet};
use crate::method::file::read::Doc;
use crate::method::file::MAX_STAGES;
use crate::method::ops::Ops;
use crate::method::{verlet, Method};
use crate::system::System;

/// Compositions nest (a composition over a composition); deeper than this is taken for a
/// cycle (a composition whose base is, through others, itself).
const MAX_NESTING: usize = 16;

#[derive(Clone)]
pub struct Composition {
    /// The base method's name (a built-in or a shipped method file).
    pub base: String,
    pub weights: Vec<f64>,
    /// The base method, found by name on first use (a method file's base was checked when it
    /// was loaded), so that steps do not look it up.
    resolved: OnceLock<Method>,
}

impl Composition {
    pub fn new(base: impl Into<String>, weights: Vec<f64>) -> Self {
        Composition {
            base: base.into(),
            weights,
            resolved: OnceLock::new(),
        }
    }

    fn over_verlet(&self) -> bool {
        self.base == verlet::INFO.name
    }

    /// The base method.
    fn base_method(&self) -> Method {
        *self.resolved.get_or_init(|| {
            Method::from_name(&self.base)
                .unwrap_or_else(|e| unreachable!("a loaded composition's base: {e}"))
        })
    }
}

/// Equal coefficients make equal methods (the resolved base follows from the name).
impl PartialEq for Composition {
    fn eq(&self, other: &Self) -> bool {
        self.base == other.base && self.weights == other.weights
    }
}

impl fmt::Debug for Composition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Composition")
            .field("base", &self.base)
            .field("weights", &self.weights)
            .finish()
    }
}

impl Kind for Composition {
    const NAME: &'static str = "composition";
    const FIELDS: &'static [&'static str] = &["base", "weights"];

    fn read(doc: &Doc, name: &str) -> Result<Self> {
        let base = doc.string("base")?.ok_or_else(|| {
            doc.err(
                "base",
                "missing; name the method composed, e.g. base = \"verlet\"",
            )
        })?;
        if base.eq_ignore_ascii_case(name) {
            return Err(doc.err(
                "base",
                format!("{base:?} is this method itself; a composition is over another method, e.g. base = \"verlet\""),
            ));
        }
        let weights = doc.vector(doc.table(), "weights", "weights")?;
        if weights.is_empty() {
            return Err(doc.err(
                "weights",
                "empty; give the step fractions w_1, …, w_s (they sum to 1), e.g. weights = [1]",
            ));
        }
        if weights.len() > MAX_STAGES {
            return Err(doc.err(
                "weights",
                format!("{} weights; at most {MAX_STAGES}", weights.len()),
            ));
        }
        doc.sums_to_one("weights", &weights, "the weights")?;
        Ok(Composition::new(base, weights))
    }

    fn summary(&self) -> String {
        format!("{}-stage composition of {}", self.weights.len(), self.base)
    }

    /// The base's normal form with the stages stacked (the composition of Runge–Kutta steps is
    /// a Runge–Kutta method, GNI III.1).
    fn normal(&self, bases: Bases, depth: usize) -> Result<Normal> {
        let name = &self.base;
        if self.weights.is_empty() {
            return Err(input_err!("composition: no weights; give at least one"));
        }
        check_finite(self.weights.iter().copied(), "weights")?;
        if depth >= MAX_NESTING {
            return Err(input_err!(
                "composition over '{name}': compositions nest more than {MAX_NESTING} deep; a composition's base must not lead back to itself"
            ));
        }
        let inner = bases(name).ok_or_else(|| {
            input_err!(
                "composition: unknown base method '{name}'; name a built-in method or a shipped method file (see `phaseflow list`)"
            )
        })?;
        let inner = inner.normal(bases, depth + 1)?;
        let stages = inner.stages() * self.weights.len();
        if stages > MAX_ANALYSED_STAGES {
            return Err(input_err!(
                "composition over '{name}': {} weights over its {} stages make {stages} stages, more than the {MAX_ANALYSED_STAGES} the analysis of a method reads; use fewer weights or a base with fewer stages",
                self.weights.len(),
                inner.stages()
            ));
        }
        Ok(compose(inner, &self.weights))
    }

    /// Kept as products of the base's step (one small solve per weight rather than one over
    /// every stacked stage).
    fn oscillator(&self, bases: Bases, _normal: Normal) -> Result<Step> {
        let name = &self.base;
        let inner = bases(name)
            .ok_or_else(|| input_err!("composition: unknown base method '{name}'"))?;
        let inner_normal = inner.normal(bases, 0)?;
        Ok(Step::Composition(
            Box::new(inner.oscillator(bases, inner_normal)?),
            self.weights.clone(),
        ))
    }

    fn base(&self) -> Option<&str> {
        Some(&self.base)
    }

    fn needs_separable(&self) -> bool {
        self.base_method().needs_separable()
    }

    fn check_system(&self, _name: &str, system: &System) -> Result<()> {
        self.base_method().check_system(system)
    }

    #[inline]
    fn prologue<O: Ops>(&self, o: &mut O) {
        if self.over_verlet() {
            return prologue_over_verlet(o);
        }
        self.base_method().prologue(o);
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        if self.over_verlet() {
            return step_over_verlet(o, &self.weights);
        }
        let (m, h) = (self.base_method(), o.h());
        for &w in &self.weights {
            let w = o.lit(w);
            let h = o.mul(w, h);
            m.step(&mut Scaled { o, h });
        }
    }
}
