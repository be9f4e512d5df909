//! Frequency analysis's observer (`--frequencies`, `crate::naff`): every `stride` steps each
//! point's chosen signals (a coordinate, or a complex pair such as q1 − i p1) are kept as
//! samples, and after the last sample each signal's fundamental frequency over the whole run
//! and over its two halves is found by NAFF. The samples are kept words: on the CPU engine a
//! `FrequencyStore` (point by point, analysed when the frequencies are asked for); on the GPU
//! after the carried words in the chunk, written by the driver lines below and analysed on the
//! device by `shaders/common/frequencies.wgsl` in the pass after the steps (a dispatch of no
//! steps, `Observer::finish_loops`), so only the frequencies are read back. On a CPU driver
//! whose loop limiter would cut that pass short (lavapipe: 65 535 loop iterations per
//! invocation), the samples are read back once instead and analysed on the host.

use std::ops::Range;

use rayon::prelude::*;

use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::method::Points;
use crate::naff;

pub const SOURCE: &str = include_str!("../../shaders/common/frequencies.wgsl");

/// Its name (`Observer::name`).
pub const NAME: &str = "frequencies";

/// Words per signal of the results: 1 when its samples were finite, then the frequency of the
/// whole run, of its first half and of its second half (radians per sample).
const RESULT_WORDS: usize = 4;

/// One coordinate of a point: q_k (`momentum` false) or p_k, `index` = k − 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coord {
    pub momentum: bool,
    pub index: usize,
}

impl Coord {
    fn parse(text: &str, d: usize) -> Option<Coord> {
        let (momentum, rest) = match text.as_bytes().first()? {
            b'q' => (false, &text[1..]),
            b'p' => (true, &text[1..]),
            _ => return None,
        };
        let k = match (rest, d) {
            ("", 1) => 1,
            _ => rest.parse::<usize>().ok()?,
        };
        (1..=d).contains(&k).then_some(Coord {
            momentum,
            index: k - 1,
        })
    }
}

/// One analysed signal: a coordinate, or the complex `re ± i im`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    pub text: String,
    pub re: Coord,
    /// The imaginary part and whether it is subtracted (`q1-ip1`).
    pub im: Option<(Coord, bool)>,
}

impl Signal {
    pub fn real(&self) -> bool {
        self.im.is_none()
    }
}

/// `--frequencies` and `--frequency-stride` resolved against the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrequencySpec {
    pub signals: Vec<Signal>,
    /// Steps between samples; sample j is taken after step (j + 1)·stride.
    pub stride: u64,
    /// Samples per point: ⌊steps / stride⌋.
    pub samples: usize,
}

impl FrequencySpec {
    /// `text`: signals separated by commas, each `q<k>`, `p<k>` or a complex `q<k>-ip<k>` /
    /// `q<k>+ip<k>` (k from 1 to `d`; `q`, `p` when d = 1).
    pub fn parse(text: &str, stride: Option<u64>, steps: u64, d: usize) -> Result<FrequencySpec> {
        let mut signals: Vec<Signal> = Vec::new();
        for item in text.split(',').map(str::trim) {
            let bad = || {
                let names = if d == 1 {
                    "q, p".to_string()
                } else {
                    format!("q1..q{d}, p1..p{d}")
                };
                input_err!(
                    "--frequencies {text}: `{item}` is not a signal; give coordinates ({names}) or complex signals such as {}, separated by commas",
                    if d == 1 { "q-ip" } else { "q1-ip1" }
                )
            };
            let split = item
                .find("-i")
                .map(|at| (at, true))
                .or(item.find("+i").map(|at| (at, false)));
            let signal = match split {
                Some((at, minus)) => Signal {
                    text: item.to_string(),
                    re: Coord::parse(&item[..at], d).ok_or_else(bad)?,
                    im: Some((Coord::parse(&item[at + 2..], d).ok_or_else(bad)?, minus)),
                },
                None => Signal {
                    text: item.to_string(),
                    re: Coord::parse(item, d).ok_or_else(bad)?,
                    im: None,
                },
            };
            if signals.iter().any(|s| s.text == signal.text) {
                return Err(input_err!(
                    "--frequencies {text}: `{item}` is given twice; give each signal once"
                ));
            }
            signals.push(signal);
        }
        if signals.len() > 8 {
            return Err(input_err!(
                "--frequencies {text}: at most 8 signals per run, got {}",
                signals.len()
            ));
        }
        let stride = stride.unwrap_or_else(|| default_stride(steps));
        if stride == 0 {
            return Err(input_err!(
                "--frequency-stride must be at least 1 (a sample every K steps), got 0"
            ));
        }
        let samples = steps / stride;
        let least = 2 * naff::MIN_SAMPLES as u64;
        if samples < least {
            return Err(input_err!(
                "--frequencies: {steps} steps give {samples} samples every {stride} steps, fewer than the {least} the frequency analysis needs (each half at least {}); use more --steps or a smaller --frequency-stride",
                naff::MIN_SAMPLES
            ));
        }
        if samples > 1 << 24 {
            return Err(input_err!(
                "--frequencies: {samples} samples per point are more than 2^24; use a larger --frequency-stride (e.g. {})",
                steps.div_ceil(1 << 24)
            ));
        }
        Ok(FrequencySpec {
            signals,
            stride,
            samples: samples as usize,
        })
    }

    /// config.toml's `frequencies`.
    pub fn text(&self) -> String {
        let names: Vec<&str> = self.signals.iter().map(|s| s.text.as_str()).collect();
        names.join(",")
    }

    /// Sample values per point (two per sample and signal).
    pub fn sample_words(&self) -> usize {
        2 * self.samples * self.signals.len()
    }

    fn head(&self) -> usize {
        2 + RESULT_WORDS * self.signals.len()
    }
}

/// Samples the default stride (`default_stride`) aims at.
pub const DEFAULT_SAMPLES: u64 = 1 << 9;

/// The stride when `--frequency-stride` is not given: about `DEFAULT_SAMPLES` samples over the
/// run (⌊steps / 2^9⌋, at least 1: runs up to 1 023 steps sample every step). The analysis's
/// error falls with the length of the run T (as 1/T^4 for a quasi-periodic signal and the
/// Hann window, Laskar), not with the number of samples, as long as the samples resolve the
/// signal (Nyquist: stride·dt well under π over the largest frequency); 2^9 samples resolve
/// frequencies up to 2^8 cycles over the run (over 2^14 steps of dt = 0.05, π/(K·dt) = 1.96
/// rad per time unit, twice the Hénon–Heiles and pendulum frequencies), and the analysis's
/// cost, proportional to the samples, is fixed however long the run. A frequency found near
/// the limit is noted (it may be a higher one folded back).
pub fn default_stride(steps: u64) -> u64 {
    (steps / DEFAULT_SAMPLES).max(1)
}

/// The frequencies of every point: per point and signal, the whole run's, the first half's and
/// the second half's, in radians per sample (`None`: no value, the samples were not all
/// finite or the run did not reach its last sample).
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyTable {
    pub signals: usize,
    pub points: usize,
    pub values: Vec<[Option<f64>; 3]>,
}

impl Observer for FrequencySpec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn kept_words(&self) -> usize {
        self.head() + self.sample_words()
    }

    fn result_words(&self) -> Range<usize> {
        0..self.head()
    }

    fn finish_loops(&self) -> Option<u64> {
        let analysis = |len: usize| {
            let m = 1u64 << (usize::BITS - 1 - len.leading_zeros());
            let fft = 3 * m + m / 2 * m.ilog2() as u64;
            2 * fft + 3 * m + (naff::REFINE_STEPS as u64 + 1) * len as u64
        };
        let n = self.samples;
        let per_signal = 2 * n as u64 + analysis(n) + 2 * analysis(n / 2) + 1;
        Some(per_signal * self.signals.len() as u64 + 1)
    }

    fn cpu_f64(&self, n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(FrequencyStore::<f64>::new(self.clone(), n))
    }

    fn cpu_f32(&self, n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(FrequencyStore::<f32>::new(self.clone(), n))
    }

    fn wgsl_prelude(&self, word: usize, f64: bool, literal: &dyn Fn(f64) -> String) -> String {
        let mask: u32 = self
            .signals
            .iter()
            .enumerate()
            .map(|(s, sig)| (sig.real() as u32) << s)
            .sum();
        let pow2 = |k: usize| 1usize << (usize::BITS - 1 - k.leading_zeros());
        format!(
            "const FQ_WORD: u32 = {word}u;\nconst FQ_HEAD: u32 = {}u;\nconst FQ_STRIDE: u32 = {}u;\nconst FQ_SAMPLES: u32 = {}u;\nconst FQ_SIGNALS: u32 = {}u;\nconst FQ_REAL_MASK: u32 = {mask}u;\nconst FQ_M_WHOLE: u32 = {}u;\nconst FQ_M_HALF: u32 = {}u;\nconst FQ_REFINE_STEPS: u32 = {}u;\nconst FQ_CONVERGED: real = {};\nconst FQ_RESEED: u32 = {}u;\nconst FQ_TWO_PI: real = {};\nconst FQ_HUGE: real = {};\n",
            self.head(),
            self.stride,
            self.samples,
            self.signals.len(),
            pow2(self.samples),
            pow2(self.samples / 2),
            naff::REFINE_STEPS,
            literal(naff::converged(f64)),
            naff::RESEED,
            literal(std::f64::consts::TAU),
            literal(if f64 { f64::MAX } else { f32::MAX as f64 }),
        )
    }

    fn wgsl_source(&self) -> &'static str {
        SOURCE
    }

    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines {
        let comp = |c: Coord| (site.comp)(if c.momentum { "p" } else { "q" }, c.index);
        let mut store = String::new();
        for (s, sig) in self.signals.iter().enumerate() {
            let im = match sig.im {
                Some((c, true)) => format!("-({})", comp(c)),
                Some((c, false)) => comp(c),
                None => "real(0.0)".into(),
            };
            store.push_str(&format!(
                "                fq_set(FQ_HEAD + {}u * FQ_SAMPLES + 2u * fq_count, n, i, {});\n                fq_set(FQ_HEAD + {}u * FQ_SAMPLES + 2u * fq_count + 1u, n, i, {im});\n",
                2 * s,
                comp(sig.re),
                2 * s,
            ));
        }
        DriverLines {
            start: START.into(),
            before_step: String::new(),
            after_step: format!(
                "        fq_phase += 1u;\n        if (fq_phase == FQ_STRIDE) {{\n            fq_phase = 0u;\n            if (fq_count < FQ_SAMPLES) {{\n{store}            }}\n            fq_count += 1u;\n        }}\n"
            ),
            end: END.into(),
        }
    }

    fn frequencies_from_words(&self, chunks: &[(Vec<f64>, usize)]) -> Option<FrequencyTable> {
        let sig = self.signals.len();
        let mut values = Vec::new();
        for (words, n) in chunks {
            let word = |j: usize, i: usize| words[j * n + i];
            if words.len() >= self.kept_words() * n {
                values.extend(self.analyse_words(words, *n).values);
                continue;
            }
            for i in 0..*n {
                let done = word(1, i) as usize > self.samples;
                for s in 0..sig {
                    let at = 2 + RESULT_WORDS * s;
                    let ok = done && word(at, i) == 1.0;
                    let v = |k: usize| Some(word(at + k, i)).filter(|x| ok && x.is_finite());
                    values.push([v(1), v(2), v(3)]);
                }
            }
        }
        Some(FrequencyTable {
            signals: sig,
            points: values.len() / sig.max(1),
            values,
        })
    }
}

impl FrequencySpec {
    /// The frequencies of one chunk's `n` points from all their kept words (word j of point i
    /// at `j·n + i`), analysed on the host.
    fn analyse_words(&self, words: &[f64], n: usize) -> FrequencyTable {
        let mut store = FrequencyStore::<f64>::new(self.clone(), n);
        let (len, per_point, head) = (self.samples, self.sample_words(), self.head());
        for i in 0..n {
            for k in 0..per_point {
                store.samples[i * per_point + k] = words[(head + k) * n + i];
            }
        }
        let done = (0..n).all(|i| words[n + i] as usize >= len);
        store.steps = if done { len as u64 * self.stride } else { 0 };
        store.analyse()
    }
}

/// At the start of a dispatch: the steps since the last sample and the samples taken.
const START: &str =
    "    var fq_phase = u32(fq_get(0u, n, i));\n    var fq_count = u32(fq_get(1u, n, i));\n";

/// At the end of a dispatch: in the pass after the steps (a dispatch of no steps), the
/// analysis, once, the count then one past the samples; both counts.
const END: &str = "    if (params.steps == 0u && fq_count == FQ_SAMPLES) {\n        frequencies_analyse(n, i);\n        fq_count = FQ_SAMPLES + 1u;\n    }\n    fq_set(0u, n, i, real(fq_phase));\n    fq_set(1u, n, i, real(fq_count));\n";

/// The samples of `n` points at precision `T`, point by point (point i's signal s at
/// `[(i·S + s)·2N ..]`, sample j its (re, im) at 2j), and the steps taken since they started.
pub struct FrequencyStore<T> {
    spec: FrequencySpec,
    n: usize,
    steps: u64,
    samples: Vec<T>,
}

impl<T: Real> FrequencyStore<T> {
    pub fn new(spec: FrequencySpec, n: usize) -> Self {
        let samples = vec![T::ZERO; n * spec.sample_words()];
        FrequencyStore {
            spec,
            n,
            steps: 0,
            samples,
        }
    }

    /// Every point's frequencies, found in parallel, `naff::LANES` points at a time (each
    /// signal of theirs copied side by side into vector lanes).
    pub fn analyse(&self) -> FrequencyTable {
        const L: usize = naff::LANES;
        let (len, sig) = (self.spec.samples, self.spec.signals.len());
        let done = self.steps / self.spec.stride >= len as u64;
        let plan = naff::Plan::<T>::new(len);
        let per_point = self.spec.sample_words();
        let values: Vec<[Option<f64>; 3]> = self
            .samples
            .par_chunks((L * per_point).max(1))
            .map_init(
                || vec![[T::ZERO; L]; 2 * len],
                |lanes, points| {
                    let count = points.len() / per_point.max(1);
                    let mut out = vec![[None; 3]; count * sig];
                    if !done {
                        return out;
                    }
                    for (s, signal) in self.spec.signals.iter().enumerate() {
                        for (k, lane) in lanes.iter_mut().enumerate() {
                            for (l, v) in lane.iter_mut().enumerate() {
                                *v = match l < count {
                                    true => points[l * per_point + s * 2 * len + k],
                                    false => T::ZERO,
                                };
                            }
                        }
                        let found = plan.whole_and_halves(lanes, signal.real());
                        for (l, f) in found.iter().take(count).enumerate() {
                            out[l * sig + s] = f.map(|x| x.map(|x| x.to_f64()));
                        }
                    }
                    out
                },
            )
            .flatten()
            .collect();
        FrequencyTable {
            signals: sig,
            points: self.n,
            values,
        }
    }
}

impl<T: Real> CpuObserver<T> for FrequencyStore<T> {
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        _carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let per_point = self.spec.sample_words();
        let (spec, k0) = (&self.spec, self.steps);
        self.samples
            .chunks_mut((run.b * per_point).max(1))
            .map(|samples| {
                Box::new(FrequencyBlock {
                    spec,
                    k0,
                    b: run.b,
                    m: 0,
                    samples,
                }) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }

    fn advanced(&mut self, steps: u64) {
        self.steps += steps;
    }

    fn restart(&mut self, n: usize) {
        if self.n != n {
            *self = FrequencyStore::new(self.spec.clone(), n);
        }
    }

    fn frequencies(&self) -> Option<FrequencyTable> {
        Some(self.analyse())
    }
}

/// One block's share of the samples.
struct FrequencyBlock<'a, T> {
    spec: &'a FrequencySpec,
    /// The steps taken before this advance.
    k0: u64,
    b: usize,
    m: usize,
    samples: &'a mut [T],
}

impl<T: Real> BlockObserver<T> for FrequencyBlock<'_, T> {
    fn start(&mut self, m: usize) {
        self.m = m;
    }

    /// Quiet up to the next sample's step; after the last sample, to the end.
    fn quiet(&self, k: u64) -> u64 {
        let (s, stride) = (self.k0 + k + 1, self.spec.stride);
        let next = s.div_ceil(stride);
        match next > self.spec.samples as u64 {
            true => u64::MAX,
            false => next * stride - s,
        }
    }

    fn after_step(&mut self, blk: &mut Points<T>, k: u64) {
        let s = self.k0 + k + 1;
        let spec = self.spec;
        if !s.is_multiple_of(spec.stride) || s / spec.stride > spec.samples as u64 {
            return;
        }
        let j = (s / spec.stride - 1) as usize;
        let (b, len, per_point) = (self.b, spec.samples, spec.sample_words());
        let m = self.m.min(self.samples.len() / per_point);
        let value = |c: Coord, i: usize| match c.momentum {
            true => blk.p[c.index * b + i],
            false => blk.q[c.index * b + i],
        };
        for (si, sig) in spec.signals.iter().enumerate() {
            for i in 0..m {
                let at = i * per_point + si * 2 * len + 2 * j;
                self.samples[at] = value(sig.re, i);
                self.samples[at + 1] = match sig.im {
                    Some((c, true)) => -value(c, i),
                    Some((c, false)) => value(c, i),
                    None => T::ZERO,
                };
            }
        }
    }
}
