//! What a method's coefficients promise, computed from the coefficients alone
//! (`method::tableau` conventions): explicit or implicit, the order from the order conditions,
//! symplecticity and symmetry from their algebraic conditions, and the linear stability
//! interval on the harmonic oscillator. `phaseflow method check`, `list`, config.toml and the
//! reports show these verdicts.
//!
//! Every family is first reduced to a normal form (`normal`): Runge–Kutta, partitioned
//! Runge–Kutta, a splitting with its equivalent partitioned method, or Nyström. Compositions
//! take their base's form with the stages stacked, so one set of conditions serves each:
//!
//! | form | order conditions over | symplectic when |
//! |---|---|---|
//! | Runge–Kutta | rooted trees | b_i a_ij + b_j a_ji = b_i b_j |
//! | partitioned | bicoloured trees | b_i â_ij + b̂_j a_ji = b_i b̂_j, b = b̂ |
//! | splitting | bicoloured trees with alternating colours (separable H) | the same, without b = b̂ (always holds) |
//! | Nyström | special Nyström trees | b̄_i = b_i(1 − c_i), b_i(b̄_j − ā_ij) = b_j(b̄_i − ā_ji) |
//!
//! (a, b: the q tableau's, `Prk::q`; â, b̂: the p tableau's, `Prk::p`.) The
//! conditions are checked up to order `MAX_ORDER` = 8: a method reported at order 8 has order
//! 8 or more.

mod algebra;
pub mod builtin;
pub mod normal;
mod order;
pub mod stability;
pub(crate) mod trees;

#[cfg(test)]
mod known;
#[cfg(test)]
mod tests;

use crate::error::Result;
use crate::method::family::Bases;
use crate::method::tableau::Family;
pub use normal::{normalise, to_prk, Normal};
pub use order::{decide, Condition, Order, Zero, COMPOSITION_TREE, ROUNDING, TOLERANCE};
use serde::Serialize;
pub use stability::StabilityInterval;
pub use trees::MAX_ORDER;

/// The verdicts on one method. Serialised (`serde`), `stability_interval` is `[0, end]` with
/// `end` infinite (TOML `inf`, JSON `null`) when no end was found up to hω = `stability::CAP`
/// and 0 when the step is unstable at every hω > 0; `first_failure` comes last, as TOML
/// writes a table after the plain values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdicts {
    /// The family as a method file names it (`rk`, `prk`, `rkn`, `splitting`, `composition`).
    pub family: &'static str,
    /// Every stage computable from the earlier ones, for every H the method serves.
    pub explicit: bool,
    /// Explicit on separable H = T(p) + V(q) (Störmer–Verlet and symplectic Euler are,
    /// though implicit on other H).
    pub explicit_if_separable: bool,
    /// The order from the order conditions, on every H the method serves (any H for
    /// Runge–Kutta, partitioned methods and their compositions; separable H for splittings;
    /// H = ½pᵀM⁻¹p + V(q) for Nyström methods); 0 when Σb ≠ 1. At most `MAX_ORDER`.
    pub order: u32,
    /// The condition above `order` (`first_failure`) is not decided: its residual is beyond
    /// f64 rounding of exact coefficients but within what coefficients given to fewer digits
    /// can leave (`order::TOLERANCE`), so the order is `order` or more.
    pub order_at_least: bool,
    /// The order on H = ½pᵀM⁻¹p + V(q) (q'' = −M⁻¹∇V), where fewer conditions apply:
    /// at least `order`.
    pub order_nystrom: u32,
    /// The symplecticity conditions hold within `TOLERANCE` of their terms' size.
    pub symplectic: bool,
    /// Their largest residual (for a composition or splitting, that of the equivalent
    /// stacked method).
    pub symplectic_residual: f64,
    /// The adjoint method equals the method.
    pub symmetric: bool,
    pub stability_interval: StabilityInterval,
    /// The first condition that fails (of order `order + 1`), or with `order_at_least` the
    /// first not decided; `None` at `MAX_ORDER`.
    pub first_failure: Option<Condition>,
}

/// The order of `family` (`Verdicts::order`, `order_at_least` and `first_failure`) from the
/// order conditions of its normal form `n`, on every H (`nystrom` false) or on
/// H = ½pᵀM⁻¹p + V(q); a composition's also from its weights and its base's order
/// (`order::composition_order`).
pub fn order_of(family: &Family, bases: Bases, n: &Normal, nystrom: bool) -> Result<Order> {
    let found = if nystrom {
        order::order_nystrom(n)
    } else {
        order::order(n)
    };
    let Family::Composition(c) = family else {
        return Ok(found);
    };
    let Some(base) = bases(&c.base) else {
        return Ok(found);
    };
    let base_order = order_of(&base, bases, &base.normal(bases, 0)?, nystrom)?;
    Ok(order::composition_order(found, &c.weights, &base_order))
}

/// The verdicts on `family`; `base` finds a composition's base method by name (a built-in:
/// `builtin::family`, or a method file). Errors (exit 2): a composition over an unknown base
/// or one that leads back to itself, tableaus of the wrong shape, non-finite coefficients.
pub fn analyse(family: &Family, base: Bases) -> Result<Verdicts> {
    let n = normalise(family, base)?;
    let found = order_of(family, base, &n, false)?;
    let nystrom = order_of(family, base, &n, true)?;
    let (symplectic, symplectic_residual) = algebra::symplectic(&n);
    Ok(Verdicts {
        family: family.name(),
        explicit: algebra::explicit(&n),
        explicit_if_separable: algebra::explicit_if_separable(&n),
        order: found.order,
        order_at_least: found.at_least,
        order_nystrom: nystrom.order,
        symplectic,
        symplectic_residual,
        symmetric: algebra::symmetric(&n),
        stability_interval: stability::interval(&family.oscillator(base, n)?),
        first_failure: found.first_failure,
    })
}
