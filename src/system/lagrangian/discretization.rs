//! The discrete Lagrangians by quadrature (`--discretization`): L_d(q0, q1) = h Σᵢ wᵢ
//! L(q(cᵢh), q̇(cᵢh)) along a polynomial path q of degree s from q0 to q1, made stationary
//! over its interior control points, after Fernández's slides (L_d = h L(q0, (q1 − q0)/h))
//! and Marsden & West, "Discrete mechanics and variational integrators" (§2.2: the midpoint
//! and trapezoidal rules, s = 1; §2.6: the Galerkin discrete Lagrangians, s > 1, with Gauss
//! and Lobatto quadrature, which give the variational partitioned Runge–Kutta methods of
//! order 2s and 2s − 2 counted in nodes). Each is a degree and a quadrature rule of nodes
//! cᵢ ∈ [0, 1] and weights wᵢ; the step (`equations.rs`, `step.rs`) and its WGSL (`wgsl.rs`)
//! read only those (`stages`), so a rule is a line in each table here.

use std::sync::OnceLock;

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
    /// Quadratic paths, Simpson's rule (3 Lobatto nodes): order 4 (Lobatto IIIA–IIIB).
    Lobatto3,
    /// Cubic paths, 4 Lobatto nodes: order 6.
    Lobatto4,
    /// Quadratic paths, 2 Gauss nodes: order 4 (the Gauss collocation method).
    Gauss2,
    /// Cubic paths, 3 Gauss nodes: order 6.
    Gauss3,
}

/// One quadrature node of a discrete Lagrangian with what the step needs there: the node c
/// and weight w, and the Lagrange basis of the path's s + 1 control points (at τ = ν/s) at c,
/// its values ℓ_ν(c) and slopes ℓ'_ν(c) (`equations.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub c: f64,
    pub w: f64,
    pub value: Vec<f64>,
    pub slope: Vec<f64>,
}

impl Stage {
    /// The stage at node c, weight w, for paths of degree s.
    fn new(c: f64, w: f64, s: usize) -> Stage {
        let t = |nu: usize| nu as f64 / s as f64;
        // ℓ_ν(c) = Π_{μ≠ν} (c − t_μ)/(t_ν − t_μ): for s = 1, (c − 1)/(−1) = 1 − c and c/1 = c
        // exactly, the one-segment rules' coefficients.
        let value = |nu: usize, skip: Option<usize>| {
            (0..=s)
                .filter(|&mu| mu != nu && Some(mu) != skip)
                .fold(1.0, |acc, mu| acc * ((c - t(mu)) / (t(nu) - t(mu))))
        };
        let slope = |nu: usize| {
            (0..=s)
                .filter(|&j| j != nu)
                .map(|j| value(nu, Some(j)) / (t(nu) - t(j)))
                .sum()
        };
        Stage {
            c,
            w,
            value: (0..=s).map(|nu| value(nu, None)).collect(),
            slope: (0..=s).map(slope).collect(),
        }
    }
}

impl Discretization {
    pub const ALL: [Discretization; 8] = [
        Discretization::Left,
        Discretization::Right,
        Discretization::Midpoint,
        Discretization::Trapezoid,
        Discretization::Lobatto3,
        Discretization::Lobatto4,
        Discretization::Gauss2,
        Discretization::Gauss3,
    ];

    /// What a run uses when `--discretization` is not given.
    pub const DEFAULT: Discretization = Discretization::Trapezoid;

    pub fn name(self) -> &'static str {
        match self {
            Discretization::Left => "left",
            Discretization::Right => "right",
            Discretization::Midpoint => "midpoint",
            Discretization::Trapezoid => "trapezoid",
            Discretization::Lobatto3 => "lobatto3",
            Discretization::Lobatto4 => "lobatto4",
            Discretization::Gauss2 => "gauss2",
            Discretization::Gauss3 => "gauss3",
        }
    }

    /// The discrete Lagrangian as a formula, for help text and reports.
    pub fn formula(self) -> &'static str {
        match self {
            Discretization::Left => "h L(q0, (q1 - q0)/h)",
            Discretization::Right => "h L(q1, (q1 - q0)/h)",
            Discretization::Midpoint => "h L((q0 + q1)/2, (q1 - q0)/h)",
            Discretization::Trapezoid => "(h/2) [L(q0, (q1 - q0)/h) + L(q1, (q1 - q0)/h)]",
            Discretization::Lobatto3 => {
                "h Σ wᵢ L(q(cᵢh), q'(cᵢh)), q quadratic from q0 to q1, 3 Lobatto nodes (Simpson), stationary in q's midpoint"
            }
            Discretization::Lobatto4 => {
                "h Σ wᵢ L(q(cᵢh), q'(cᵢh)), q cubic from q0 to q1, 4 Lobatto nodes, stationary in q's interior points"
            }
            Discretization::Gauss2 => {
                "h Σ wᵢ L(q(cᵢh), q'(cᵢh)), q quadratic from q0 to q1, 2 Gauss nodes, stationary in q's midpoint"
            }
            Discretization::Gauss3 => {
                "h Σ wᵢ L(q(cᵢh), q'(cᵢh)), q cubic from q0 to q1, 3 Gauss nodes, stationary in q's interior points"
            }
        }
    }

    /// The order of the variational integrator it gives.
    pub fn order(self) -> u32 {
        match self {
            Discretization::Left | Discretization::Right => 1,
            Discretization::Midpoint | Discretization::Trapezoid => 2,
            Discretization::Lobatto3 | Discretization::Gauss2 => 4,
            Discretization::Lobatto4 | Discretization::Gauss3 => 6,
        }
    }

    /// The degree s of the path: its unknowns per step are s control points (q1 and s − 1
    /// interior ones).
    pub fn degree(self) -> usize {
        match self {
            Discretization::Lobatto3 | Discretization::Gauss2 => 2,
            Discretization::Lobatto4 | Discretization::Gauss3 => 3,
            _ => 1,
        }
    }

    /// The nodes with the path's basis at each (`Stage`), built once.
    pub fn stages(self) -> &'static [Stage] {
        static TABLES: OnceLock<Vec<Vec<Stage>>> = OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            Self::ALL
                .iter()
                .map(|r| {
                    r.nodes()
                        .iter()
                        .map(|&(c, w)| Stage::new(c, w, r.degree()))
                        .collect()
                })
                .collect()
        });
        let at = Self::ALL.iter().position(|&r| r == self).unwrap_or(0);
        &tables[at]
    }

    /// Whether the path is one segment and every node an end of the step (cᵢ ∈ {0, 1}): the
    /// rule's equations are then explicit for an L with a constant mass matrix (`explicit`).
    pub fn ends_only(self) -> bool {
        self.degree() == 1 && self.nodes().iter().all(|&(c, _)| c == 0.0 || c == 1.0)
    }

    /// The quadrature's (node cᵢ, weight wᵢ) pairs.
    pub fn nodes(self) -> &'static [(f64, f64)] {
        match self {
            Discretization::Left => &[(0.0, 1.0)],
            Discretization::Right => &[(1.0, 1.0)],
            Discretization::Midpoint => &[(0.5, 1.0)],
            Discretization::Trapezoid => &[(0.0, 0.5), (1.0, 0.5)],
            Discretization::Lobatto3 => &[
                (0.0, 0.16666666666666666),
                (0.5, 0.6666666666666666),
                (1.0, 0.16666666666666666),
            ],
            // (5 ∓ √5)/10; 1/12, 5/12.
            Discretization::Lobatto4 => &[
                (0.0, 0.08333333333333333),
                (0.276393202250021, 0.4166666666666667),
                (0.7236067977499789, 0.4166666666666667),
                (1.0, 0.08333333333333333),
            ],
            // 1/2 ∓ √3/6.
            Discretization::Gauss2 => &[(0.21132486540518713, 0.5), (0.7886751345948129, 0.5)],
            // 1/2 ∓ √15/10; 5/18, 8/18.
            Discretization::Gauss3 => &[
                (0.1127016653792583, 0.2777777777777778),
                (0.5, 0.4444444444444444),
                (0.8872983346207417, 0.2777777777777778),
            ],
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
