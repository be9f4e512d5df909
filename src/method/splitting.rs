//! Splitting methods for separable H given as a list of kicks (p −= b h ∇V) and drifts
//! (q += a h M⁻¹p). Blanes–Moan 2002 SRKN6b (order 4) is the first; its coefficient list is
//! mirrored symmetrically. The step runs the list as an explicit kick–drift sequence
//! (`method::kick_drift`: adjacent substeps of a kind fused, the last kick's force carried).
//! A new splitting is one const here (a `Splitting`) and one line in `methods!` (`method/mod.rs`).

use super::tableau::Substep::{self, Drift, Kick};
use super::{kick_drift, MethodInfo, Ops, Scheme};

const B1: f64 = 0.0829844064174052;
const B2: f64 = 0.396309801498368;
const B3: f64 = -0.0390563049223486;
const B4: f64 = 0.1195241940131508;
const A1: f64 = 0.245298957184271;
const A2: f64 = 0.604872665711080;
const A3: f64 = -0.350171622895351;

/// A splitting method: its description and its kicks and drifts, in order.
#[derive(Debug, Clone, Copy)]
pub struct Splitting {
    pub info: MethodInfo,
    pub substeps: &'static [Substep],
}

/// Blanes–Moan SRKN6b: b1 a1 b2 a2 b3 a3 b4 a3 b3 a2 b2 a1 b1.
pub const BLANES_MOAN4: Splitting = Splitting {
    info: MethodInfo {
        name: "blanes-moan4",
        order: 4,
        symplectic: true,
        summary: "Blanes-Moan 2002 SRKN6b kick-drift splitting (separable H)",
    },
    substeps: &[
        Kick(B1),
        Drift(A1),
        Kick(B2),
        Drift(A2),
        Kick(B3),
        Drift(A3),
        Kick(B4),
        Drift(A3),
        Kick(B3),
        Drift(A2),
        Kick(B2),
        Drift(A1),
        Kick(B1),
    ],
};

/// Where the sequence starts and ends with a kick, the force the first kick takes over
/// (`kick_drift`): the statements before a run of steps of the splitting `substeps`.
#[inline]
pub fn prologue_of<O: Ops>(o: &mut O, substeps: &[Substep]) {
    kick_drift::prologue(o, carries(substeps));
}

/// One step of the splitting `substeps`.
#[inline]
pub fn step_of<O: Ops>(o: &mut O, substeps: &[Substep]) {
    kick_drift::step(o, carries(substeps), substeps.iter().copied());
}

/// Whether the last kick's force is the next step's first (`kick_drift::carries`).
fn carries(substeps: &[Substep]) -> bool {
    kick_drift::carries(substeps.first().copied(), substeps.last().copied())
}

impl Scheme for Splitting {
    fn info(&self) -> MethodInfo {
        self.info
    }

    #[inline]
    fn prologue<O: Ops>(&self, o: &mut O) {
        prologue_of(o, self.substeps);
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        step_of(o, self.substeps);
    }

    /// A kick or drift is explicit only for H = T(p) + V(q).
    fn needs_separable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_are_consistent() {
        let (mut a, mut b) = (0.0, 0.0);
        for s in BLANES_MOAN4.substeps {
            match *s {
                Kick(c) => b += c,
                Drift(c) => a += c,
            }
        }
        assert!(
            (a - 1.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12,
            "a {a} b {b}"
        );
    }
}
