//! The discrete Lagrangians by quadrature (`--discretization`): L_d(q0, q1) = h Σᵢ wᵢ
//! L(Qᵢ, V) with Qᵢ = (1 − cᵢ) q0 + cᵢ q1 and V = (q1 − q0)/h, after Fernández's slides
//! (L_d = h L(q0, (q1 − q0)/h)) and Marsden & West, "Discrete mechanics and variational
//! integrators" (§2.2: the midpoint and trapezoidal rules). Each is a quadrature rule of
//! nodes cᵢ ∈ [0, 1] and weights wᵢ; the step (`step.rs`) and its WGSL (`wgsl.rs`) read
//! only those, so a rule is one line here.

use crate::error::{Field, Result};
use crate::invalid;

/// A quadrature rule for the discrete Lagrangian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discretization {
    /// h L(q0, V): the rectangle rule at the left end (order 1).
    Left,
    /// h L(q1, V): at the right end (order 1).
    Right,
    /// h L((q0 + q1)/2, V): the midpoint rule (order 2; the implicit midpoint rule).
    Midpoint,
    /// (h/2)[L(q0, V) + L(q1, V)]: the trapezoidal rule (order 2; Störmer–Verlet for
    /// L = ½vᵀMv − V(q)).
    Trapezoid,
}

impl Discretization {
    pub const ALL: [Discretization; 4] = [
        Discretization::Left,
        Discretization::Right,
        Discretization::Midpoint,
        Discretization::Trapezoid,
    ];

    /// What a run uses when `--discretization` is not given.
    pub const DEFAULT: Discretization = Discretization::Trapezoid;

    pub fn name(self) -> &'static str {
        match self {
            Discretization::Left => "left",
            Discretization::Right => "right",
            Discretization::Midpoint => "midpoint",
            Discretization::Trapezoid => "trapezoid",
        }
    }

    /// The discrete Lagrangian as a formula, for help text and reports.
    pub fn formula(self) -> &'static str {
        match self {
            Discretization::Left => "h L(q0, (q1 - q0)/h)",
            Discretization::Right => "h L(q1, (q1 - q0)/h)",
            Discretization::Midpoint => "h L((q0 + q1)/2, (q1 - q0)/h)",
            Discretization::Trapezoid => "(h/2) [L(q0, (q1 - q0)/h) + L(q1, (q1 - q0)/h)]",
        }
    }

    /// The order of the variational integrator it gives.
    pub fn order(self) -> u32 {
        match self {
            Discretization::Left | Discretization::Right => 1,
            Discretization::Midpoint | Discretization::Trapezoid => 2,
        }
    }

    /// Whether every node is an end of the step (cᵢ ∈ {0, 1}): the rule's equations are then
    /// explicit for an L with a constant mass matrix (`step::explicit`).
    pub fn ends_only(self) -> bool {
        self.nodes().iter().all(|&(c, _)| c == 0.0 || c == 1.0)
    }

    /// The quadrature's (node cᵢ, weight wᵢ) pairs.
    pub fn nodes(self) -> &'static [(f64, f64)] {
        match self {
            Discretization::Left => &[(0.0, 1.0)],
            Discretization::Right => &[(1.0, 1.0)],
            Discretization::Midpoint => &[(0.5, 1.0)],
            Discretization::Trapezoid => &[(0.0, 0.5), (1.0, 0.5)],
        }
    }

    /// The rule named `name` (`--discretization`), or the error listing the names.
    pub fn from_name(name: &str) -> Result<Discretization> {
        Self::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|d| d.name()).collect();
                invalid!(Field::Discretization;
                    Field::Discretization.is(name),
                    format!(": unknown discrete Lagrangian (known: {})", names.join(", "))
                )
            })
    }
}
