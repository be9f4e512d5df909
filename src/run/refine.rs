//! Loop refinement (`Tracker::refine`): after a snapshot, gaps between neighbouring nodes
//! longer than the refinement distance get new nodes, generated exactly on the initial loop,
//! integrated from t = 0 and merged into the state in loop order.

use crate::engine::Engine;
use crate::error::Result;
use crate::float::Real;
use crate::measure::energy::{angular_momenta, energies, RunEnergy};
use crate::measure::modified::modified_energies;
use crate::state::State;

use super::progress::{advance_with_progress, Progress};
use super::stops::with_columns;
use super::tracker::Tracker;
use crate::measure::measurement::PerPoint;

/// Refinement passes allowed at one snapshot before the remaining long gaps are left alone
/// (each pass at least halves the gaps it treats where the loop is smooth, so a handful do).
const MAX_REFINE_PASSES: usize = 64;

/// A gap a refinement pass treats: from node `start` to the next, `len` long, and the number
/// of nodes to insert into it.
struct Gap {
    start: usize,
    len: f64,
    nodes: usize,
}

/// A treated gap after the merge: its first node's index in the new order, the nodes
/// inserted after it, and the gap's length before.
struct Chain {
    first: usize,
    nodes: usize,
    len: f64,
}

/// Distance in phase space (f64) between points i and j of `s` (primal components only).
fn gap_len<T: Real>(s: &State<T>, i: usize, j: usize) -> f64 {
    let (n, d) = (s.n, s.d);
    (0..d)
        .map(|k| {
            let a = s.q[k * n + j].to_f64() - s.q[k * n + i].to_f64();
            let b = s.p[k * n + j].to_f64() - s.p[k * n + i].to_f64();
            a * a + b * b
        })
        .sum::<f64>()
        .sqrt()
}

/// The gaps of the loop `state` longer than `dist`, with the nodes each needs.
fn long_gaps<T: Real>(state: &State<T>, dist: f64) -> Vec<Gap> {
    let n = state.n;
    (0..n)
        .filter_map(|i| {
            let len = gap_len(state, i, (i + 1) % n);
            (len.is_finite() && len > dist).then(|| Gap {
                start: i,
                len,
                // Enough to bring the gap under half the distance if the loop is locally
                // straight (later passes catch the rest). Half, not just under: a loop that
                // keeps stretching then needs a new pass only when its gaps have doubled, so
                // passes come at geometrically spaced times instead of at every snapshot (each
                // pass integrates its new nodes from t = 0, the cost that dominates long runs).
                nodes: ((2.0 * len / dist).ceil() as usize).clamp(2, 129) - 1,
            })
        })
        .collect()
}

/// Loop parameters of the new nodes: evenly between those of each gap's ends (`s`: the
/// nodes' parameters, increasing around the loop).
fn new_params(s: &[f64], gaps: &[Gap]) -> Vec<f64> {
    let n = s.len();
    gaps.iter()
        .flat_map(|g| {
            let (i, k) = (g.start, g.nodes);
            let next = if i + 1 < n { s[i + 1] } else { 1.0 + s[0] };
            let si = s[i];
            (1..=k).map(move |j| {
                let s = si + (next - si) * j as f64 / (k + 1) as f64;
                if s >= 1.0 {
                    s - 1.0
                } else {
                    s
                }
            })
        })
        .collect()
}

/// The merged order of a refinement pass: each gap's new nodes right after the node that
/// starts it.
struct Interleaved {
    /// Per point of the merged loop: whether it is an old node (else the next new one).
    from_old: Vec<bool>,
    points: PerPoint,
    chains: Vec<Chain>,
}

/// Interleave the `n` old nodes' `old` data with the new nodes' `fresh`, gap by gap.
fn interleave(old: &PerPoint, fresh: &PerPoint, gaps: &[Gap], n: usize) -> Interleaved {
    let mut from_old = Vec::with_capacity(n + fresh.s.len());
    let mut points = PerPoint::default();
    let mut chains = Vec::with_capacity(gaps.len());
    let mut gaps = gaps.iter().peekable();
    let mut fresh_i = 0;
    for i in 0..n {
        let gap = gaps.next_if(|g| g.start == i);
        if let Some(g) = gap {
            chains.push(Chain {
                first: points.s.len(),
                nodes: g.nodes,
                len: g.len,
            });
        }
        let nodes = gap.map_or(0, |g| g.nodes);
        from_old.push(true);
        from_old.extend(std::iter::repeat_n(false, nodes));
        points.push_from(old, i);
        for j in fresh_i..fresh_i + nodes {
            points.push_from(fresh, j);
        }
        fresh_i += nodes;
    }
    Interleaved {
        from_old,
        points,
        chains,
    }
}

/// Whether a treated gap was not shortened at all: it cannot be refined at this precision, as
/// the nodes inserted into it coincide with its ends after evolving. In f32 this is what
/// rounding does to a long run: the points' energies random-walk, their phases spread until
/// neighbours pass each other and merge, and the evolved loop is no longer a smooth curve that
/// more nodes would resolve (inserting into it only grows the node count).
fn is_stuck<T: Real>(merged: &State<T>, chains: &[Chain]) -> bool {
    let m = merged.n;
    // (A new node off the chord, as at a fold's tip, may lengthen a gap; what marks a merge is
    // a new node that coincides with a neighbour while the gap stays as long.)
    chains.iter().any(|c| {
        let sub: Vec<f64> = (c.first..=c.first + c.nodes)
            .map(|a| gap_len(merged, a % m, (a + 1) % m))
            .collect();
        sub.contains(&0.0) && sub.iter().any(|&g| g >= c.len)
    })
}

impl<'a, T: Real> Tracker<'a, T> {
    /// Insert nodes (integrated from t = 0 to `step`) until no neighbours are farther apart
    /// than the refinement distance, the node cap is reached, or a gap proves unresolvable at
    /// the run's precision (refinement then stops for good).
    pub(super) fn refine(&mut self, step: u64) -> Result<()> {
        let (Some(dist), Some(r)) = (self.refine_dist, self.cfg.refine) else {
            return Ok(());
        };
        if self.stuck_at.is_some() {
            return Ok(());
        }
        for _pass in 0..MAX_REFINE_PASSES {
            if !self.refine_pass(step, dist, r.max_nodes)? {
                return Ok(());
            }
        }
        crate::warn!(
            "phaseflow: warning: loop refinement gave up after {MAX_REFINE_PASSES} passes at step {step} with gaps still longer than the tolerance; refinement stops and the loop area from here on is under-resolved"
        );
        self.stuck_at = Some(step);
        Ok(())
    }

    /// One refinement pass at `step`; whether another is needed (not when no gap is longer
    /// than `dist`, no node fits under `max_nodes`, or a gap is stuck).
    fn refine_pass(&mut self, step: u64, dist: f64, max_nodes: usize) -> Result<bool> {
        let state = self.engine.state()?;
        let (n, d) = (state.n, state.d);
        let gaps = long_gaps(state, dist);
        if gaps.is_empty() {
            return Ok(false);
        }
        let gaps = self.within_cap(gaps, n, max_nodes, step);
        if gaps.is_empty() {
            return Ok(false);
        }
        let new_s = new_params(&self.points.s, &gaps);
        let (moved, fresh) = self.integrate_new_nodes(new_s, d, step)?;
        let order = interleave(&self.points, &fresh, &gaps, n);
        let merged = State::merge(self.engine.state()?, &moved, &order.from_old);
        // Refinement stops for the rest of the run when a gap is stuck, and says so.
        let stuck = is_stuck(&merged, &order.chains);
        self.engine.set_state(merged)?;
        self.points = order.points;
        if stuck {
            crate::warn!(
                "phaseflow: warning: at step {step} a loop gap could not be refined: the nodes inserted into it coincide with its end at {} precision (neighbouring nodes have merged); refinement stops and the loop area from here on is under-resolved{}",
                T::NAME,
                if T::NAME == "f32" {
                    " (use --precision f64)"
                } else {
                    ""
                }
            );
            self.stuck_at = Some(step);
            return Ok(false);
        }
        Ok(true)
    }

    /// `gaps` as they fit under `max_nodes` for a loop of `n` nodes: all of them, or, with a
    /// warning the first time, one node each in the longest gaps that still fit.
    fn within_cap(
        &mut self,
        mut gaps: Vec<Gap>,
        n: usize,
        max_nodes: usize,
        step: u64,
    ) -> Vec<Gap> {
        let room = max_nodes.saturating_sub(n);
        if gaps.iter().map(|g| g.nodes).sum::<usize>() <= room {
            return gaps;
        }
        if self.capped_at.is_none() {
            crate::warn!(
                "phaseflow: warning: loop refinement reached --max-nodes {max_nodes} at step {step}; the loop is under-resolved from here on (raise --max-nodes or --refine-tol)"
            );
            self.capped_at = Some(step);
        }
        gaps.sort_by(|a, b| b.len.total_cmp(&a.len));
        gaps.truncate(room);
        gaps.sort_by_key(|g| g.start);
        for g in &mut gaps {
            g.nodes = 1;
        }
        gaps
    }

    /// The new nodes at loop parameters `new_s`, generated exactly on the initial set and
    /// integrated from t = 0 to `step` on the auxiliary engine: their state and their data.
    fn integrate_new_nodes(
        &mut self,
        new_s: Vec<f64>,
        d: usize,
        step: u64,
    ) -> Result<(State<T>, PerPoint)> {
        let cfg = self.cfg;
        let rows = new_s
            .iter()
            .map(|&s| cfg.ensemble.loop_point(&cfg.system, s, &self.file_nodes))
            .collect::<Result<Vec<_>>>()?;
        let mut points = State::<f64>::from_rows(&rows, d);
        crate::ensemble::start_points(&cfg.system, &mut points, 0)?;
        let fresh = super::initial::start_state(cfg, &points);
        let points = PerPoint {
            h0: energies(
                &RunEnergy {
                    system: &cfg.system,
                    dt: cfg.dt,
                },
                &fresh,
            ),
            l0: angular_momenta(&cfg.system, &fresh).unwrap_or_default(),
            s: new_s,
            log2_scale: if cfg.tangent {
                vec![0.0; rows.len()]
            } else {
                Vec::new()
            },
            mod_h0: match &cfg.modified {
                Some(m) => modified_energies(m, &fresh),
                None => Vec::new(),
            },
            ..PerPoint::default()
        };
        let fresh = with_columns(cfg, fresh);
        let aux = self.aux_engine(d)?;
        aux.set_state(fresh)?;
        let evals = cfg.evals_per_step();
        advance_with_progress(
            aux.as_mut(),
            step,
            rows.len(),
            evals,
            &mut Progress::hidden(),
            &mut || false,
        )?;
        Ok((aux.state()?.clone(), points))
    }

    /// The engine for inserted nodes, made on first use.
    fn aux_engine(&mut self, d: usize) -> Result<&mut Box<dyn Engine<T>>> {
        if self.aux.is_none() {
            let empty = with_columns(self.cfg, State::<T>::zeros(0, d));
            self.aux = Some((self.factory)(empty)?);
        }
        Ok(self.aux.as_mut().expect("made just above"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunBuilder;
    use crate::run::initial::Initial;

    /// A stand-in engine whose every advance snaps each point to the nearest of 8 directions
    /// on the unit circle: it merges neighbours, as f32 rounding does to a sheared loop.
    struct Snap8(State<f64>);

    impl Engine<f64> for Snap8 {
        fn describe(&self) -> String {
            "snap8".into()
        }
        fn advance(&mut self, _steps: u64) -> Result<()> {
            let step = std::f64::consts::FRAC_PI_4;
            for i in 0..self.0.n {
                let a = (self.0.p[i].atan2(self.0.q[i]) / step).round() * step;
                (self.0.q[i], self.0.p[i]) = (a.cos(), a.sin());
            }
            Ok(())
        }
        fn state(&mut self) -> Result<&State<f64>> {
            Ok(&self.0)
        }
        fn points(&self) -> usize {
            self.0.n
        }
        // Snapping to the nearest direction has no step to reverse.
        fn reverse(&mut self) {}
        fn set_state(&mut self, state: State<f64>) -> Result<()> {
            self.0 = state;
            Ok(())
        }
    }

    #[test]
    fn refinement_stops_on_gaps_it_cannot_shorten() {
        let file = crate::config::RunFile {
            system: Some("oscillator".into()),
            method: Some("verlet".into()),
            dt: Some(0.1),
            steps: Some(2),
            snapshot_every: Some(1),
            ensemble: Some(crate::config::EnsembleFile {
                kind: Some("circle".into()),
                points: Some(64),
                center: Some(vec![0.0, 0.0]),
                radius: Some(1.0),
                ..Default::default()
            }),
            ..Default::default()
        };
        let cfg = RunBuilder::from(file).build().unwrap();
        let init = Initial::generate(&cfg).unwrap();
        let factory = |s: State<f64>| -> Result<Box<dyn Engine<f64>>> { Ok(Box::new(Snap8(s))) };
        let mut tracker = Tracker::new(&cfg, init, &factory).unwrap();
        // Step 0: the circle is refined to the tolerance (no gap is stuck).
        tracker.refine(0).unwrap();
        let refined = tracker.engine.state().unwrap().n;
        assert!(refined > 64 * 10, "{refined}");
        assert_eq!(tracker.stuck_at, None);
        // After one advance every node sits on one of 8 points: 8 gaps of a chord 0.77 each,
        // which inserted nodes (snapped too) cannot shorten. Refinement must give up after
        // one pass instead of looping for ever.
        tracker.engine.advance(1).unwrap();
        tracker.refine(1).unwrap();
        assert_eq!(tracker.stuck_at, Some(1));
        let n = tracker.engine.state().unwrap().n;
        assert!(n <= refined + 8 * 128, "{n} nodes after the stuck pass");
        // Later snapshots refine no more.
        tracker.refine(2).unwrap();
        assert_eq!(tracker.engine.state().unwrap().n, n);
    }
}
