//! `validate --chaos` and `validate --section`: the chaos indicators and the Poincaré section
//! crossings of the GPU engine against the CPU engine's, in the style of `compare_states`:
//! each compared quantity's largest deviation relative to the RMS size of the CPU's values.

use crate::chaos::Chaos;
use crate::engine::FrequencyTable;
use crate::float::Real;
use crate::measure::chaos::indicator_rows;
use crate::observe::stop::{stops_of, Stop};
use crate::section::store::Record;
use crate::section::Crossings;
use crate::state::State;

/// How far the GPU's chaos indicators are from the CPU's, over the points where both engines
/// define them (finite, after the first step).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChaosDeviation {
    /// Per indicator asked for, the largest |g − c| over the points divided by the RMS of the
    /// CPU's values (the deviation itself where that RMS is 0); the worst indicator.
    pub max_rel: f64,
    /// Points whose indicators are defined on one engine only.
    pub undefined_mismatch: usize,
}

/// The indicators `chaos` asks for of two states (GPU `g`, CPU `c`) at step size `dt`, column
/// by column of `chaos/step_<k>.npy` (`indicator_rows`).
pub fn compare_chaos<T: Real>(
    g: &State<T>,
    c: &State<T>,
    dt: f64,
    chaos: &Chaos,
) -> ChaosDeviation {
    let columns = chaos.columns().len();
    let (gi, ci) = (indicator_rows(g, dt, chaos), indicator_rows(c, dt, chaos));
    let mismatch = gi
        .chunks(columns)
        .zip(ci.chunks(columns))
        .filter(|(a, b)| a[0].is_finite() != b[0].is_finite())
        .count();
    let max_rel = (0..columns)
        .map(|j| {
            let pairs = gi
                .iter()
                .zip(&ci)
                .skip(j)
                .step_by(columns)
                .map(|(&a, &b)| (a, b))
                .filter(|(a, b)| a.is_finite() && b.is_finite());
            relative(pairs)
        })
        .fold(0.0, f64::max);
    ChaosDeviation {
        max_rel,
        undefined_mismatch: mismatch,
    }
}

/// The GPU's stops against the CPU's (`--stop-when`): the points stopped on the CPU, and the
/// points whose stop record (step, condition, or stopped at all) differs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopDeviation {
    pub stopped: usize,
    pub mismatch: usize,
}

/// The stop records of two states (GPU `g`, CPU `c`), stop words at `column`.
pub fn compare_stops<T: Real>(g: &State<T>, c: &State<T>, column: usize) -> StopDeviation {
    let (gs, cs) = (stops_of(g, column), stops_of(c, column));
    let on = |s: &[Stop]| -> std::collections::BTreeMap<usize, (u64, u32)> {
        s.iter().map(|r| (r.point, (r.step, r.condition))).collect()
    };
    let (gm, cm) = (on(&gs), on(&cs));
    let mismatch = gm
        .keys()
        .chain(cm.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|i| gm.get(i) != cm.get(i))
        .count();
    StopDeviation {
        stopped: cs.len(),
        mismatch,
    }
}

/// How far the GPU's section crossings are from the CPU's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SectionDeviation {
    /// Points whose crossing count, or the step of a recorded crossing, differs.
    pub count_mismatch: usize,
    /// Over the crossings both engines recorded at the same step: the largest deviation of
    /// the fraction of the step and the other coordinates, relative to the RMS size of the
    /// CPU's values.
    pub max_rel: f64,
    /// Crossings compared.
    pub crossings: u64,
}

/// The crossings of the GPU (`g`) and the CPU (`c`), point by point.
pub fn compare_sections(g: &Crossings, c: &Crossings) -> SectionDeviation {
    let (gk, ck) = (g.kept(), c.kept());
    let (gr, cr) = (by_point(&gk, c.n), by_point(&ck, c.n));
    let mut count_mismatch = 0;
    let mut pairs = Vec::new();
    let mut crossings = 0;
    for i in 0..c.n {
        let (gi, ci) = (&gk[gr[i].clone()], &ck[cr[i].clone()]);
        let steps = |k: &[Record<f64>]| k.iter().map(|r| r.k).collect::<Vec<_>>();
        if g.seen.get(i) != Some(&c.seen[i]) || steps(gi) != steps(ci) {
            count_mismatch += 1;
            continue;
        }
        crossings += ci.len() as u64;
        for (a, b) in gi.iter().zip(ci) {
            pairs.extend(a.values.iter().zip(b.values));
        }
    }
    SectionDeviation {
        count_mismatch,
        max_rel: relative(pairs.into_iter().map(|(&a, &b)| (a, b))),
        crossings,
    }
}

/// How far the GPU's frequencies (`--frequencies`) are from the CPU's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrequencyDeviation {
    /// Signals of points with a frequency on one engine only.
    pub mismatch: usize,
    /// Over the frequencies (whole run and halves) both engines found: the largest
    /// deviation relative to the RMS size of the CPU's.
    pub max_rel: f64,
    /// Frequencies compared.
    pub compared: usize,
}

/// The frequencies of the GPU (`g`) and the CPU (`c`), point by point.
pub fn compare_frequencies(g: &FrequencyTable, c: &FrequencyTable) -> FrequencyDeviation {
    let mut mismatch = usize::from(g.values.len() != c.values.len());
    let mut pairs = Vec::new();
    for (a, b) in g.values.iter().zip(&c.values) {
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Some(x), Some(y)) => pairs.push((*x, *y)),
                (None, None) => {}
                _ => mismatch += 1,
            }
        }
    }
    FrequencyDeviation {
        mismatch,
        compared: pairs.len(),
        max_rel: relative(pairs.into_iter()),
    }
}

/// The range of each of the `n` points' records in `kept` (sorted by point).
fn by_point(kept: &[Record<f64>], n: usize) -> Vec<std::ops::Range<usize>> {
    let mut j = 0;
    (0..n)
        .map(|i| {
            let start = j;
            while j < kept.len() && kept[j].point == i {
                j += 1;
            }
            start..j
        })
        .collect()
}

/// max |g − c| over `pairs` (GPU, CPU) divided by the RMS of the CPU's values, or the maximum
/// itself when that RMS is 0 (as `compare_states` measures); non-finite pairs count as an
/// infinite deviation unless both are the same non-finite value.
fn relative(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut max_abs, mut sum_sq, mut count) = (0.0f64, 0.0f64, 0usize);
    for (g, c) in pairs {
        let dev = if g.is_finite() && c.is_finite() {
            (g - c).abs()
        } else if g.to_bits() == c.to_bits() || (g.is_nan() && c.is_nan()) {
            0.0
        } else {
            f64::INFINITY
        };
        max_abs = max_abs.max(dev);
        if c.is_finite() {
            sum_sq += c * c;
            count += 1;
        }
    }
    let rms = if count > 0 {
        (sum_sq / count as f64).sqrt()
    } else {
        0.0
    };
    if rms > 0.0 {
        max_abs / rms
    } else {
        max_abs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::section::Section;

    fn chaos_state(acc: [f64; 2 * crate::chaos::WIDTH]) -> State<f64> {
        let mut s = State::<f64>::zeros(2, 1).with_deviation(|_, _| {});
        s.chaos = acc.to_vec();
        s
    }

    /// Equal indicators deviate by 0; a changed ⟨Y⟩ by its share of the RMS; a point defined
    /// on one engine only is counted.
    #[test]
    fn chaos_indicators_are_compared_per_point() {
        let chaos = |text: &str| {
            let deviation = crate::chaos::Deviation::resolve(None, None, 1, None).unwrap();
            Chaos::parse(text, deviation).unwrap()
        };
        let (both, megno, lyap) = (chaos("megno,lyapunov"), chaos("megno"), chaos("lyapunov"));
        // Two points after 10 steps: (k, Σ ln r, Σ k ln r, Σ Y, |δ|²), component-major.
        let cpu = chaos_state([10.0, 10.0, 0.1, 0.2, 0.5, 1.0, 20.0, 20.0, 1.5, 2.5]);
        let same = compare_chaos(&cpu, &cpu, 0.1, &both);
        assert_eq!((same.max_rel, same.undefined_mismatch), (0.0, 0));
        let mut gpu = cpu.clone();
        gpu.chaos[7] = 22.0; // point 1's ⟨Y⟩: 2.2 against 2
        let dev = compare_chaos(&gpu, &cpu, 0.1, &megno);
        assert!((dev.max_rel - 0.2 / 2.0).abs() < 1e-12, "{dev:?}");
        // λ alone does not see it.
        assert_eq!(compare_chaos(&gpu, &cpu, 0.1, &lyap).max_rel, 0.0);
        gpu.chaos[1] = f64::NAN; // point 1 blew up on the GPU only
        assert_eq!(compare_chaos(&gpu, &cpu, 0.1, &both).undefined_mismatch, 1);
    }

    /// Crossing counts and steps must be equal; coordinates deviate relative to their RMS.
    #[test]
    fn section_crossings_are_compared_per_point() {
        let hh = crate::system::System::new("henon-heiles", &Default::default()).unwrap();
        let sec = Section::parse("q1=0", None, &hh).unwrap();
        let rv = sec.record_values();
        // Point 0 crossed at step 5, point 1 at step `k1`, each with values (0.5, v1, 0, …).
        let crossings = |v1: f64, k1: u64| {
            let mut c = Crossings::new(sec, 2);
            let max = c.max();
            let mut values = vec![0.0; rv];
            values[0] = 0.5;
            for mut block in c.blocks(2) {
                values[1] = 1.0;
                block.push(0, max, 5, &values);
                values[1] = v1;
                block.push(1, max, k1, &values);
            }
            c
        };
        let cpu = crossings(1.0, 7);
        let same = compare_sections(&cpu, &cpu);
        assert_eq!(
            (same.count_mismatch, same.max_rel, same.crossings),
            (0, 0.0, 2)
        );
        let mut gpu = crossings(1.1, 7);
        let dev = compare_sections(&gpu, &cpu);
        // The CPU's values: (0.5, 1, 0, 0) twice, RMS √(2.5/8).
        assert!(
            (dev.max_rel - 0.1 / 0.3125f64.sqrt()).abs() < 1e-12,
            "{dev:?}"
        );
        gpu.seen[1] = 2;
        let dev = compare_sections(&gpu, &cpu);
        assert_eq!((dev.count_mismatch, dev.crossings), (1, 1));
        assert_eq!(compare_sections(&crossings(1.0, 8), &cpu).count_mismatch, 1);
    }
}
