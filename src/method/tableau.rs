//! Methods as data: the coefficient families a method file (`--method-file`, the shipped
//! `methods/*.toml`) describes, and the form in which the analysis (`method::analysis`: order,
//! symplecticity, symmetry, linear stability) and the engines (`method::family`) read them.
//!
//! Conventions (GNI II.1–II.2, III.2; González-Santos, Métodos numéricos simplécticos de un
//! paso, §4):
//!
//! - `Rk`: y' = f(y) = (∂H/∂p, −∂H/∂q), stages Y_i = y0 + h Σ_j a_ij f(Y_j),
//!   y1 = y0 + h Σ_i b_i f(Y_i). Explicit when a is strictly lower triangular.
//! - `Prk`: `q` is the tableau of the q equation (q' = ∂H/∂p), `p` that of the p equation
//!   (p' = −∂H/∂q): Q_i = q0 + h Σ_j a_ij ∂pH(Q_j, P_j), P_i = p0 − h Σ_j â_ij ∂qH(Q_j, P_j),
//!   q1 = q0 + h Σ b_i ∂pH(Q_i, P_i), p1 = p0 − h Σ b̂_i ∂qH(Q_i, P_i). Both tableaus have the
//!   same number of stages s.
//! - `Rkn`: q'' = g(q) for H = T(p) + V(q) with T(p) = ½ pᵀM⁻¹p (so q' = M⁻¹p, p' = −∇V(q)):
//!   Q_i = q0 + c_i h q0' + h² Σ_j a_ij g(Q_j), q1 = q0 + h q0' + h² Σ b̄_i g(Q_i),
//!   q1' = q0' + h Σ b_i g(Q_i) (`a` is ā, `b_bar` is b̄).
//! - `Splitting`: kicks p ← p − c h ∂qH and drifts q ← q + c h ∂pH in the order given (separable
//!   H only).
//! - `Composition`: Φ_{w_s h} ∘ … ∘ Φ_{w_1 h} of a named base method (the first weight acts
//!   first).

/// A Butcher tableau with s stages: `a` is s×s, `b` and `c` have s entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Tableau {
    pub a: Vec<Vec<f64>>,
    pub b: Vec<f64>,
    pub c: Vec<f64>,
}

impl Tableau {
    pub fn stages(&self) -> usize {
        self.b.len()
    }

    /// Strictly lower triangular a: every stage uses only earlier ones.
    pub fn explicit(&self) -> bool {
        self.a
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().skip(i).all(|&x| x == 0.0))
    }
}

/// One kick or drift of a splitting method, with its coefficient (times h).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Substep {
    /// p ← p − c h ∂H/∂q
    Kick(f64),
    /// q ← q + c h ∂H/∂p
    Drift(f64),
}

pub use super::family::composition::Composition;
pub use super::family::prk::Prk;
pub use super::family::rkn::Rkn;
pub use super::family::Family;

/// A method given as data: a shipped `methods/*.toml` or a user's `--method-file`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodDef {
    /// The name `--method` and the outputs use.
    pub name: String,
    /// One line for `phaseflow list`.
    pub summary: String,
    /// Where the coefficients come from (author, title, year), if the file says.
    pub reference: Option<String>,
    pub family: Family,
    /// The file's text as read, recorded whole in config.toml so that `--config` and `resume`
    /// work without the file.
    pub source: String,
}
