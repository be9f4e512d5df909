//! Composition methods: a symmetric second-order base step S (velocity Verlet) applied as
//! S(w_1 h) ∘ … ∘ S(w_s h). The methods are data (a `Composition`: description and weights),
//! not code: the step below walks the list on either engine. A new
//! composition is one const here and one line in `methods!` (`method/mod.rs`).

use super::verlet::verlet;
use super::{kick_drift, MethodInfo, Ops, Scheme};

/// A composition method: its description and its weights w_1 … w_s (they sum to 1).
#[derive(Debug, Clone, Copy)]
pub struct Composition {
    pub info: MethodInfo,
    pub weights: &'static [f64],
}

/// Every composition of a symplectic method is symplectic.
const fn info(name: &'static str, order: u32, summary: &'static str) -> MethodInfo {
    MethodInfo {
        name,
        order,
        symplectic: true,
        summary,
    }
}

/// Yoshida / Forest–Ruth triple jump, order 4.
pub const YOSHIDA4: Composition = Composition {
    info: info(
        "yoshida4",
        4,
        "Yoshida/Forest-Ruth triple jump of velocity Verlet",
    ),
    weights: &[1.3512071919596578, -1.7024143839193153, 1.3512071919596578],
};
/// Suzuki's five-stage fourth-order composition.
pub const SUZUKI4: Composition = Composition {
    info: info(
        "suzuki4",
        4,
        "Suzuki's 5-stage composition of velocity Verlet",
    ),
    weights: &[
        0.4144907717943757,
        0.4144907717943757,
        -0.6579630871775028,
        0.4144907717943757,
        0.4144907717943757,
    ],
};
/// Yoshida's solution A, order 6, seven stages.
pub const YOSHIDA6: Composition = Composition {
    info: info(
        "yoshida6",
        6,
        "Yoshida's 7-stage composition (solution A) of velocity Verlet",
    ),
    weights: &[
        0.784_513_610_477_557_3,
        0.235_573_213_359_358_13,
        -1.177_679_984_178_871,
        1.315_186_320_683_911_2,
        -1.177_679_984_178_871,
        0.235_573_213_359_358_13,
        0.784_513_610_477_557_3,
    ],
};

/// With explicit kicks, the force the first half kick takes over (`kick_drift`): the
/// statements before a run of steps of a composition of Verlet steps.
#[inline]
pub fn prologue_over_verlet<O: Ops>(o: &mut O) {
    let carries = o.explicit_kicks();
    kick_drift::prologue(o, carries);
}

/// One step of the composition of Verlet steps of sizes w_1 h, …, w_s h. With explicit kicks,
/// the stages' kicks and drifts as one sequence, each stage's closing half kick fused with
/// the next one's opening half kick, the force carried from step to step (`kick_drift`);
/// otherwise one implicit Verlet step per weight.
#[inline]
pub fn step_over_verlet<O: Ops>(o: &mut O, weights: &[f64]) {
    if o.explicit_kicks() {
        let substeps = weights.iter().flat_map(|&w| kick_drift::verlet(w));
        return kick_drift::step(o, true, substeps);
    }
    let h = o.h();
    for &w in weights {
        let w = o.lit(w);
        let h_w = o.mul(w, h);
        verlet(o, h_w);
    }
}

impl Scheme for Composition {
    fn info(&self) -> MethodInfo {
        self.info
    }

    #[inline]
    fn prologue<O: Ops>(&self, o: &mut O) {
        prologue_over_verlet(o);
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        step_over_verlet(o, self.weights);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one() {
        for w in [YOSHIDA4.weights, SUZUKI4.weights, YOSHIDA6.weights] {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
        // triple jump: w1³ + w2³ + w3³ = 0 (the order-3 condition)
        assert!(
            YOSHIDA4
                .weights
                .iter()
                .map(|w| w * w * w)
                .sum::<f64>()
                .abs()
                < 1e-14
        );
    }
}
