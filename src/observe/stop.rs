//! Per-point stop conditions (`--stop-when`): after every step each running point's
//! conditions are tested in order (a comparison of two formulas of q, p, t, H and the
//! system's parameters, parsed by `expr::parse::parse_comparison` as `A − B` compared with
//! zero); the first that holds stops the point. A stopped point keeps its state after that
//! step and takes no further steps: the CPU engine keeps its components as they were
//! (`BlockObserver::stopped`) and skips a block whose points have all stopped; the GPU
//! kernel leaves the step loop for it. Its record travels with the state in three carried
//! words (`WIDTH`): the condition's index plus one (0 while it runs) and its step count, the
//! low 16 bits and the rest (whole numbers an f32 holds exactly up to 2⁴⁰ steps). t = step ·
//! h, the step count converted to the run's precision times h, on both engines.
//!
//! A condition may instead be a threshold on a chaos indicator of `--chaos` (`megno > 8`,
//! `sali < 1e-8`; `Watched`): it reads the chaos observer's accumulators after the step's
//! update, compared without a division, as ⟨Y⟩ > c ⇔ Σ Y_j > c·k, λ > c ⇔ Σ ln r_j > c·(k·|h|),
//! FLI and SALI as carried. The chaos observer and the conditions then run as one observer
//! (`chaos_stop`), so a point stopped by a threshold keeps its indicators as they were then.

use std::collections::BTreeMap;

use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::chaos::{Chaos, Indicator, Layout, LOG_GROWTH, STEPS, Y_SUM};
use crate::error::{Error, Result};
use crate::expr::parse::{parse_comparison, Compare};
use crate::expr::program::{Inputs, Program};
use crate::float::Real;
use crate::method::Points;
use crate::system::System;

pub const SOURCE: &str = include_str!("../../shaders/common/stop.wgsl");

/// Its name (`Observer::name`).
pub const NAME: &str = "stop";

pub use crate::state::stop_words::{stops_of, Stop, CONDITION, HIGH, LOW, WIDTH};

/// One condition, compiled for both engines.
#[derive(Debug, Clone)]
pub struct Condition {
    /// As the user wrote it.
    pub text: String,
    compare: Compare,
    test: Test,
}

/// What a condition compares.
#[derive(Debug, Clone)]
enum Test {
    /// A formula `A − B` of (q1..qd, t) and (p1..pd) (t is the input q_{d+1}), and the same as a
    /// WGSL function `stop_when_<j>` of the run's precision, compared with zero.
    Formula { program: Program, wgsl: String },
    /// A chaos indicator against a threshold.
    Indicator { which: Watched, level: f64 },
}

/// The chaos indicators a condition may compare with a threshold, by their `--chaos` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watched {
    Megno,
    Lyapunov,
    Fli,
    Sali,
}

impl Watched {
    /// The `--chaos` indicator it reads.
    pub fn indicator(self) -> Indicator {
        match self {
            Watched::Megno => Indicator::Megno,
            Watched::Lyapunov => Indicator::Lyapunov,
            Watched::Fli => Indicator::Fli,
            Watched::Sali => Indicator::Sali,
        }
    }

    /// The accumulator it compares (in `State::chaos`'s order): Σ Y_j for MEGNO and Σ ln r_j
    /// for λ (against the threshold times k, or k·|h|), FLI's and SALI's own.
    fn words(self, layout: Layout) -> usize {
        match self {
            Watched::Megno => Y_SUM,
            Watched::Lyapunov => LOG_GROWTH,
            Watched::Fli => layout.fli_word().unwrap_or(0),
            Watched::Sali => layout.sali_word().unwrap_or(0),
        }
    }
}

/// The comparison of `a` with `b`.
fn holds<T: Real>(compare: Compare, a: T, b: T) -> bool {
    match compare {
        Compare::Greater => a > b,
        Compare::Less => a < b,
        Compare::GreaterEq => a >= b,
        Compare::LessEq => a <= b,
    }
}

/// `text` as a threshold on a chaos indicator (`megno > 8`), None when it names none; an
/// input error when it names one but its threshold is not a number.
fn parse_threshold(text: &str) -> Result<Option<(Watched, Compare, f64)>> {
    let ops = [
        (">=", Compare::GreaterEq),
        ("<=", Compare::LessEq),
        (">", Compare::Greater),
        ("<", Compare::Less),
    ];
    let Some((at, op, compare)) = ops
        .iter()
        .filter_map(|&(op, c)| text.find(op).map(|at| (at, op, c)))
        .min_by_key(|&(at, op, _)| (at, std::cmp::Reverse(op.len())))
    else {
        return Ok(None);
    };
    let which = match text[..at].trim() {
        "megno" => Watched::Megno,
        "lyapunov" => Watched::Lyapunov,
        "fli" => Watched::Fli,
        "sali" => Watched::Sali,
        _ => return Ok(None),
    };
    let rest = text[at + op.len()..].trim();
    match rest.parse::<f64>() {
        Ok(level) if level.is_finite() => Ok(Some((which, compare, level))),
        _ => Err(crate::input_err!(
            "invalid --stop-when condition '{text}': a threshold on {} takes a number on its right (e.g. '{} {op} 8'), not '{rest}'",
            which.indicator().name(),
            which.indicator().name()
        )),
    }
}

/// The run's stop conditions in order (the first that holds is the point's), for a system of
/// `d` degrees of freedom: the observer. `chaos`: the chaos indicators' accumulators the
/// thresholds read (`Some` exactly when a condition is a threshold).
#[derive(Debug, Clone)]
pub struct StopConditions {
    pub conditions: Vec<Condition>,
    d: usize,
    chaos: Option<Layout>,
}

/// A stop condition's input error, said as one.
fn refused(text: &str, e: Error) -> Error {
    let message = e.to_string().replacen(
        "invalid Hamiltonian: ",
        &format!("invalid --stop-when condition '{text}': "),
        1,
    );
    crate::input_err!("{message}")
}

impl StopConditions {
    /// `texts` (each `A > B`, `A < B`, `A >= B` or `A <= B`, or a threshold on one of the
    /// `chaos` indicators, `megno > 8`) compiled for `system`; an input error names the
    /// condition and the fix.
    pub fn parse(texts: &[String], system: &System, chaos: Option<&Chaos>) -> Result<Self> {
        let d = system.dof();
        let mut params = system.params();
        let formula = system.formula();
        if let Some((_, own, _)) = &formula {
            params.extend(own.iter().map(|(k, v)| (k.clone(), *v)));
        }
        let no_params = BTreeMap::new();
        let conditions = texts
            .iter()
            .enumerate()
            .map(|(j, text)| {
                if let Some((which, compare, level)) = parse_threshold(text)? {
                    let name = which.indicator().name();
                    return match chaos {
                        Some(c) if c.has(which.indicator()) => Ok(Condition {
                            text: text.clone(),
                            compare,
                            test: Test::Indicator { which, level },
                        }),
                        _ => Err(crate::input_err!(
                            "invalid --stop-when condition '{text}': it reads the chaos indicator {name}, which the run does not compute; add --chaos {name} (or add {name} to --chaos's list)"
                        )),
                    };
                }
                let h = match &formula {
                    Some((f, own, _)) => Some((f.as_str(), own)),
                    None if names_h(text) => {
                        return Err(crate::input_err!(
                            "invalid --stop-when condition '{text}': the system {} has no Hamiltonian formula to evaluate H with; write the condition in q1..qd, p1..pd and t",
                            system.name()
                        ))
                    }
                    None => None,
                };
                let h = h.map(|(f, own)| (f, if own.is_empty() { &no_params } else { own }));
                let (mut parsed, compare) =
                    parse_comparison(text, &params, d, h).map_err(|e| refused(text, e))?;
                let program = Program::compile(&mut parsed.dag.clone(), &[parsed.root]);
                let args = format!("q: array<real, {}>, p: array<real, {d}>", d + 1);
                let wgsl = crate::expr::wgsl::scalar_function(
                    &mut parsed.dag,
                    &format!("stop_when_{j}"),
                    &args,
                    parsed.root,
                );
                Ok(Condition {
                    text: text.clone(),
                    compare,
                    test: Test::Formula { program, wgsl },
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let thresholds = (conditions.iter()).any(|c| matches!(c.test, Test::Indicator { .. }));
        Ok(StopConditions {
            conditions,
            d,
            chaos: chaos.filter(|_| thresholds).map(Chaos::layout),
        })
    }

    /// The chaos indicators' layout, where a condition is a threshold on one (`chaos_stop`).
    pub fn thresholds(&self) -> Option<Layout> {
        self.chaos
    }

    /// The conditions as given (config.toml's `stop_when`).
    pub fn texts(&self) -> Vec<String> {
        self.conditions.iter().map(|c| c.text.clone()).collect()
    }
}

/// Whether `text` names `H` (a name token, not part of a longer name).
fn names_h(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == "H")
}

impl Observer for StopConditions {
    fn name(&self) -> &'static str {
        NAME
    }

    fn carried_words(&self) -> usize {
        WIDTH
    }

    fn cpu_f64(&self, _n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(StopCpu(self.clone()))
    }

    fn cpu_f32(&self, _n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(StopCpu(self.clone()))
    }

    fn wgsl_prelude(&self, word: usize, _f64: bool, literal: &dyn Fn(f64) -> String) -> String {
        let mut s = format!("const STOP_WORD: u32 = {word}u;\n");
        for (j, c) in self.conditions.iter().enumerate() {
            match &c.test {
                Test::Formula { wgsl, .. } => s.push_str(wgsl),
                Test::Indicator { level, .. } => s.push_str(&format!(
                    "const STOP_LEVEL_{j}: real = {};",
                    literal(*level)
                )),
            }
            s.push('\n');
        }
        s
    }

    fn wgsl_source(&self) -> &'static str {
        SOURCE
    }

    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines {
        DriverLines {
            start: START.into(),
            before_step: BEFORE_STEP.into(),
            after_step: after_step(self, site),
            end: END.into(),
        }
    }
}

/// The conditions on the CPU engine (nothing kept between advances: the records are carried).
pub(super) struct StopCpu(pub(super) StopConditions);

impl<T: Real> CpuObserver<T> for StopCpu {
    fn stopped_points(&self, words: &[T], n: usize) -> Option<Vec<bool>> {
        Some(
            words[CONDITION * n..(CONDITION + 1) * n]
                .iter()
                .map(|&w| w != T::ZERO)
                .collect(),
        )
    }

    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let conds = &self.0;
        carried
            .into_iter()
            .map(|words| {
                Box::new(StopBlock::new(conds, words, run)) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }
}

/// One block's conditions: its slices of the stop words and their state during the advance.
pub(super) struct StopBlock<'a, T> {
    conds: &'a StopConditions,
    words: Vec<&'a mut [T]>,
    h: T,
    b: usize,
    m: usize,
    /// Per point: the condition's index + 1, 0 while running.
    status: Vec<u32>,
    /// Per point of the block (padding: false): stopped.
    stopped: Vec<bool>,
    stopped_count: usize,
    /// Per point: its steps taken when the advance started.
    clock: Vec<u64>,
    /// Per point stopped during this advance: the steps it took in it.
    taken: Vec<u64>,
    /// Steps seen (after_step calls).
    calls: u64,
    /// Scratch: q1..qd and t of the block's points, and one condition's values.
    qt: Vec<T>,
    out: Vec<T>,
}

impl<'a, T: Real> StopBlock<'a, T> {
    pub(super) fn new(
        conds: &'a StopConditions,
        words: Vec<&'a mut [T]>,
        run: &BlockRun<'a, T>,
    ) -> Self {
        StopBlock {
            conds,
            words,
            h: run.h,
            b: run.b,
            m: 0,
            status: Vec::new(),
            stopped: Vec::new(),
            stopped_count: 0,
            clock: Vec::new(),
            taken: Vec::new(),
            calls: 0,
            qt: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The block's points stopped so far (padding: false).
    pub(super) fn stopped_mask(&self) -> &[bool] {
        &self.stopped
    }

    /// After step `k`: each running point's conditions in order, the thresholds reading the
    /// chaos accumulators `acc` (rows of `b` values, `State::chaos`'s order) where given.
    pub(super) fn test(&mut self, blk: &mut Points<T>, k: u64, acc: Option<&[T]>) {
        self.calls = k + 1;
        if self.stopped_count == self.m {
            return;
        }
        let (b, d, m) = (self.b, self.conds.d, self.m);
        if (self.conds.conditions.iter()).any(|c| matches!(c.test, Test::Formula { .. })) {
            self.qt[..d * b].copy_from_slice(&blk.q[..d * b]);
            for i in 0..b {
                self.qt[d * b + i] = T::from_f64((self.clock[i] + k + 1) as f64) * self.h;
            }
        }
        for (j, c) in self.conds.conditions.iter().enumerate() {
            match &c.test {
                Test::Formula { program, .. } => {
                    let inputs = Inputs {
                        q: &self.qt,
                        p: &blk.p[..d * b],
                        vq: &[],
                        vp: &[],
                    };
                    program.run(&inputs, b, &mut self.out);
                }
                Test::Indicator { which, level } => {
                    let (Some(acc), Some(layout)) = (acc, self.conds.chaos) else {
                        continue;
                    };
                    let (word, level) = (which.words(layout), T::from_f64(*level));
                    let steps = &acc[STEPS * b..(STEPS + 1) * b];
                    for i in 0..m {
                        // As the kernel: the value less the threshold (times k or k·|h|).
                        let against = match which {
                            Watched::Megno => level * steps[i],
                            Watched::Lyapunov => level * (steps[i] * self.h.abs()),
                            _ => level,
                        };
                        let x = acc[word * b + i];
                        self.out[i] = match holds(c.compare, x, against) {
                            true => T::ONE,
                            false => T::ZERO,
                        };
                    }
                }
            }
            let formula = matches!(c.test, Test::Formula { .. });
            for i in 0..m {
                let met = match formula {
                    true => holds(c.compare, self.out[i], T::ZERO),
                    false => self.out[i] == T::ONE,
                };
                if !self.stopped[i] && met {
                    self.stopped[i] = true;
                    self.status[i] = j as u32 + 1;
                    self.taken[i] = k + 1;
                    self.stopped_count += 1;
                }
            }
        }
    }
}

impl<T: Real> BlockObserver<T> for StopBlock<'_, T> {
    fn start(&mut self, m: usize) {
        let (b, d) = (self.b, self.conds.d);
        self.m = m;
        self.status = vec![0; b];
        self.stopped = vec![false; b];
        self.clock = vec![0; b];
        self.taken = vec![0; b];
        for i in 0..m {
            let w = |k: usize| self.words[k][i].to_f64();
            self.status[i] = w(CONDITION) as u32;
            self.stopped[i] = self.status[i] != 0;
            self.clock[i] = w(HIGH) as u64 * 65536 + w(LOW) as u64;
        }
        self.stopped_count = self.stopped.iter().filter(|&&s| s).count();
        self.qt = vec![T::ZERO; (d + 1) * b];
        self.out = vec![T::ZERO; b];
    }

    fn after_step(&mut self, blk: &mut Points<T>, k: u64) {
        self.test(blk, k, None);
    }

    fn stopped(&self) -> Option<(&[bool], usize)> {
        Some((&self.stopped, self.stopped_count))
    }

    fn finish(&mut self) {
        for i in 0..self.m {
            let was_running = self.words[CONDITION][i] == T::ZERO;
            if !was_running {
                continue;
            }
            let steps = match self.status[i] {
                0 => self.calls,
                _ => self.taken[i],
            };
            let clock = self.clock[i] + steps;
            self.words[CONDITION][i] = T::from_f64(self.status[i] as f64);
            self.words[LOW][i] = T::from_f64((clock % 65536) as f64);
            self.words[HIGH][i] = T::from_f64((clock / 65536) as f64);
        }
    }
}

/// After the declarations: the point's stop words, and the steps it takes in this dispatch
/// (all of them unless it stops).
const START: &str = "    var stop_cond = u32(state[STOP_WORD * n + i]);\n    let stop_lo = u32(state[(STOP_WORD + 1u) * n + i]);\n    let stop_hi = state[(STOP_WORD + 2u) * n + i];\n    var stop_n = params.steps;\n";

/// Before each step: a point stopped before the dispatch takes none.
const BEFORE_STEP: &str =
    "        if (stop_cond != 0u) {\n            stop_n = 0u;\n            break;\n        }\n";

/// After each step (the last observer's lines): the conditions in order, and on the first
/// that holds the point's record and the end of its loop.
fn after_step(c: &StopConditions, site: &DriverSite) -> String {
    let (d, comp) = (site.d, site.comp);
    let q: Vec<String> = (0..d).map(|k| comp("q", k)).collect();
    let p: Vec<String> = (0..d).map(|k| comp("p", k)).collect();
    let mut s = format!(
        "        {{\n            let stop_q = array<real, {}>({}, stop_time(stop_lo, stop_hi, s, h));\n            let stop_p = array<real, {d}>({});\n",
        d + 1,
        q.join(", "),
        p.join(", ")
    );
    for (j, cond) in c.conditions.iter().enumerate() {
        let op = cond.compare.text();
        let head = if j == 0 { "            " } else { " else " };
        let test = match (&cond.test, c.chaos) {
            (Test::Indicator { which, .. }, Some(layout)) => {
                let names = super::chaos::names(layout);
                let x = names[which.words(layout)];
                let against = match which {
                    Watched::Megno => format!("STOP_LEVEL_{j} * chaos_steps"),
                    Watched::Lyapunov => format!("STOP_LEVEL_{j} * (chaos_steps * abs(h))"),
                    _ => format!("STOP_LEVEL_{j}"),
                };
                format!("{x} {op} {against}")
            }
            _ => format!("stop_when_{j}(stop_q, stop_p) {op} real(0.0)"),
        };
        s.push_str(&format!(
            "{head}if ({test}) {{\n                stop_cond = {}u;\n            }}",
            j + 1
        ));
    }
    s.push_str("\n            if (stop_cond != 0u) {\n                stop_n = s + 1u;\n                break;\n            }\n        }\n");
    s
}

/// With the stores: the condition and the point's steps taken, advanced by this dispatch's.
const END: &str = "    state[STOP_WORD * n + i] = real(stop_cond);\n    let stop_sum = stop_lo + stop_n;\n    state[(STOP_WORD + 1u) * n + i] = real(stop_sum & 0xFFFFu);\n    state[(STOP_WORD + 2u) * n + i] = stop_hi + real(stop_sum >> 16u);\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn system(name: &str) -> System {
        System::new(name, &BTreeMap::new()).unwrap()
    }

    #[test]
    fn conditions_compare_formulas_of_the_state_time_and_energy() {
        let s = system("henon-heiles");
        let c = StopConditions::parse(&["q1^2 + q2^2 > 4".into(), "H >= 0.2".into()], &s, None)
            .unwrap();
        let program = |j: usize| match &c.conditions[j].test {
            Test::Formula { program, .. } => program.clone(),
            Test::Indicator { .. } => unreachable!(),
        };
        let (q, p) = ([1.5f64, 1.5, 0.0], [0.0f64, 0.0]);
        let mut out = [0.0];
        let inputs = Inputs {
            q: &q,
            p: &p,
            vq: &[],
            vp: &[],
        };
        program(0).run(&inputs, 1, &mut out);
        assert_eq!(out[0], 4.5 - 4.0);
        assert!(holds(c.conditions[0].compare, out[0], 0.0));
        program(1).run(&inputs, 1, &mut out);
        let h = s.energy(0.1, &q[..2], &p);
        assert!((out[0] - (h - 0.2)).abs() < 1e-15, "{} {h}", out[0]);
        let prelude = c.wgsl_prelude(0, true, &|x| format!("{x}"));
        assert!(prelude.contains("fn stop_when_1("), "{prelude}");
        assert!(c.thresholds().is_none());
    }

    /// Thresholds on the indicators the run computes are conditions; on others, or with a
    /// threshold that is not a number, they are refused naming the fix.
    #[test]
    fn thresholds_read_the_indicators_the_run_computes() {
        let s = system("henon-heiles");
        let deviation = crate::chaos::Deviation::resolve(None, None, 2, None).unwrap();
        let chaos = Chaos::parse("megno,sali", deviation).unwrap();
        let texts = ["sali < 1e-8".to_string(), "megno>8".into(), "q2 > 2".into()];
        let c = StopConditions::parse(&texts, &s, Some(&chaos)).unwrap();
        assert_eq!(c.thresholds(), Some(chaos.layout()));
        assert!(matches!(
            c.conditions[1].test,
            Test::Indicator { which: Watched::Megno, level } if level == 8.0
        ));
        assert_eq!(c.conditions[0].compare, Compare::Less);
        for (text, chaos, says) in [
            ("megno > 8", None, "add --chaos megno"),
            ("fli > 8", Some(&chaos), "add --chaos fli"),
            ("sali < tiny", Some(&chaos), "takes a number on its right"),
        ] {
            let e = StopConditions::parse(&[text.into()], &s, chaos)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says) && e.contains("--stop-when"), "{text}: {e}");
        }
    }

    #[test]
    fn bad_conditions_are_refused_with_the_fix() {
        let s = system("pendulum");
        for (text, says) in [
            ("q > ", "ends where a value"),
            ("q + 1", "expected a comparison"),
            ("q > 1 > 2", "one comparison"),
            ("q = 1", "expected a comparison"),
            ("x > 1", "unknown name 'x'"),
            ("q2 > 1", "above the 1 degrees"),
        ] {
            let e = StopConditions::parse(&[text.into()], &s, None)
                .unwrap_err()
                .to_string();
            assert!(e.contains("--stop-when") && e.contains(says), "{text}: {e}");
        }
    }
}
