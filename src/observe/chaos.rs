//! The chaos indicators' observer (`--chaos`, `crate::chaos`): after every step each point's
//! deviation vector (the state's one tangent column) is renormalised and the step's log
//! growth added to its accumulators, carried with the state (`chaos::WIDTH` words:
//! `State::chaos`). On the CPU engine `chaos::update` runs on the block; on the GPU the
//! driver lines below run the same operations in the same order on the point (the functions
//! of `shaders/common/chaos.wgsl`), with the prelude's constants those `ln_poly`,
//! `ln_reduced` and `half_ln_ratio` use, rounded to the kernel's precision as `T::from_f64`
//! rounds them.

use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::chaos::{self, WIDTH};
use crate::float::Real;
use crate::method::Block;

pub const SOURCE: &str = include_str!("../../shaders/common/chaos.wgsl");

/// The deviation vector's renormalisation and the accumulators, with the metric's weights
/// w_k of the squared norm Σ (w_k δ_k)², 2d of them (q then p), or `None` for the unit metric
/// (`chaos::Deviation::weights`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChaosObserver {
    pub weights: Option<Vec<f64>>,
}

/// Its name (`Observer::name`).
pub const NAME: &str = "chaos";

impl Observer for ChaosObserver {
    fn name(&self) -> &'static str {
        NAME
    }

    fn carried_words(&self) -> usize {
        WIDTH
    }

    fn cpu_f64(&self, _n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(ChaosCpu::<f64>::new(self))
    }

    fn cpu_f32(&self, _n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(ChaosCpu::<f32>::new(self))
    }

    fn wgsl_prelude(&self, word: usize, f64: bool, literal: &dyn Fn(f64) -> String) -> String {
        prelude(word, self.weights.as_deref(), f64, literal)
    }

    fn wgsl_source(&self) -> &'static str {
        SOURCE
    }

    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines {
        DriverLines {
            start: start(),
            before_step: String::new(),
            after_step: after_step(site, self.weights.is_some()),
            end: end(),
        }
    }
}

/// The metric's weights at the engine's precision.
struct ChaosCpu<T> {
    weights: Option<Vec<T>>,
}

impl<T: Real> ChaosCpu<T> {
    fn new(o: &ChaosObserver) -> Self {
        let weights = o.weights.as_ref();
        ChaosCpu {
            weights: weights.map(|w| w.iter().map(|&x| T::from_f64(x)).collect()),
        }
    }
}

impl<T: Real> CpuObserver<T> for ChaosCpu<T> {
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let weights = self.weights.as_deref();
        carried
            .into_iter()
            .map(|columns| {
                Box::new(ChaosBlock {
                    columns,
                    acc: Vec::new(),
                    b: run.b,
                    weights,
                }) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }
}

/// One block's accumulators: its slices of `State::chaos` (`columns`) and their copies
/// padded to `b` points like the block's state, then `chaos::SCRATCH` scratch rows (`acc`).
struct ChaosBlock<'a, T> {
    columns: Vec<&'a mut [T]>,
    acc: Vec<T>,
    b: usize,
    weights: Option<&'a [T]>,
}

impl<T: Real> BlockObserver<T> for ChaosBlock<'_, T> {
    fn start(&mut self, m: usize) {
        let b = self.b;
        self.acc.resize((WIDTH + chaos::SCRATCH) * b, T::ZERO);
        for (dst, comp) in self.acc.chunks_mut(b).zip(&self.columns) {
            dst[..m].copy_from_slice(comp);
            // Padding: copies of the first point's, as the state's padding.
            dst[m..].fill(comp[0]);
        }
    }

    /// `chaos::update` on the block, with the block's vector instructions (`simd`).
    fn after_step(&mut self, k: &mut Block<T>, _step: u64) {
        let (b, weights) = (self.b, self.weights);
        let (sums, scratch) = self.acc.split_at_mut(WIDTH * b);
        let level = k.level;
        level.run(
            #[inline(always)]
            || {
                let x: [&mut [T]; 2] = [&mut k.q, &mut k.p];
                let y: [&mut [T]; 2] = [&mut k.dq, &mut k.dp];
                chaos::update(x, y, sums, scratch, (b, k.d), weights);
            },
        );
    }

    fn finish(&mut self) {
        for (comp, src) in self.columns.iter_mut().zip(self.acc.chunks(self.b)) {
            let m = comp.len();
            comp.copy_from_slice(&src[..m]);
        }
    }
}

/// The accumulators' names in the kernel, in `State::chaos`'s order (`STEPS`, `LOG_GROWTH`,
/// `WEIGHTED`, `Y_SUM`, `NORM`).
const NAMES: [&str; WIDTH] = [
    "chaos_steps",
    "chaos_growth",
    "chaos_weighted",
    "chaos_ysum",
    "chaos_norm",
];

/// The prelude: `word` is the point's first accumulator word, `weights` the metric's
/// (`CHAOS_W<k>`, none for the unit metric), `f64` the kernel's precision and `literal`
/// writes a value of it.
fn prelude(
    word: usize,
    weights: Option<&[f64]>,
    f64: bool,
    literal: &dyn Fn(f64) -> String,
) -> String {
    let max = if f64 { f64::MAX } else { f32::MAX as f64 };
    let mut s = format!("const CHAOS_WORD: u32 = {word}u;\n");
    for (k, &w) in weights.unwrap_or_default().iter().enumerate() {
        s.push_str(&format!("const CHAOS_W{k}: real = {};\n", literal(w)));
    }
    for (name, value) in [
        ("CHAOS_SQRT_2", std::f64::consts::SQRT_2),
        ("CHAOS_FRAC_1_SQRT_2", std::f64::consts::FRAC_1_SQRT_2),
        ("CHAOS_BIG", 65536.0),
        ("CHAOS_INV_BIG", 1.0 / 65536.0),
        ("CHAOS_LN2_HI", chaos::LN2_HI),
        ("CHAOS_LN2_LO", std::f64::consts::LN_2 - chaos::LN2_HI),
        ("CHAOS_REAL_MAX", max),
        ("CHAOS_NEAR_LOW", chaos::NEAR_LOW),
        ("CHAOS_NEAR_HIGH", chaos::NEAR_HIGH),
    ] {
        s.push_str(&format!("const {name}: real = {};\n", literal(value)));
    }
    // Horner from the highest term down, as `series` runs it: the whole series and the
    // short one of `half_ln_ratio` where the growth is near 1.
    for (name, terms) in [
        ("chaos_series", chaos::series_terms(f64)),
        ("chaos_series_near", chaos::near_terms(f64)),
    ] {
        let mut acc = literal(1.0 / (2 * terms - 1) as f64);
        for k in (0..terms - 1).rev() {
            acc = format!("({acc} * s2 + {})", literal(1.0 / (2 * k + 1) as f64));
        }
        s.push_str(&format!(
            "fn {name}(s2: real) -> real {{\n    return {acc};\n}}\n"
        ));
    }
    s
}

/// After the declarations: the accumulators loaded.
fn start() -> String {
    let mut s = String::new();
    for (j, name) in NAMES.iter().enumerate() {
        s.push_str(&format!(
            "    var {name} = state[(CHAOS_WORD + {j}u) * n + i];\n"
        ));
    }
    s
}

/// After each step, `update` on the point: the deviation vector (components d..2d of q and
/// p) and the carried derivative vectors scaled by the power of two `binade_scale` finds,
/// then the accumulators; its squared norm `weighted` (each component times the prelude's
/// `CHAOS_W<k>` before it is squared) where the metric has weights.
fn after_step(site: &DriverSite, weighted: bool) -> String {
    let (d, comp) = (site.d, site.comp);
    let mut s = String::from("        {\n            var chaos_ns = real(0.0);\n");
    for (j, v) in ["q", "p"].into_iter().enumerate() {
        for k in d..2 * d {
            let x = match weighted {
                true => format!("({} * CHAOS_W{})", comp(v, k), j * d + k - d),
                false => comp(v, k),
            };
            s.push_str(&format!("            chaos_ns = chaos_ns + {x} * {x};\n"));
        }
    }
    s.push_str("            let chaos_s = chaos_scale(chaos_ns);\n");
    for v in ["q", "p"].iter().chain(site.carried) {
        for k in d..2 * d {
            let x = comp(v, k);
            s.push_str(&format!("            {x} = {x} * chaos_s;\n"));
        }
    }
    s.push_str(
        "            let chaos_prev = select(chaos_norm, real(1.0), chaos_norm == real(0.0));\n            let chaos_l = chaos_half_ln_ratio(chaos_ns, chaos_prev);\n            chaos_norm = chaos_ns * chaos_s * chaos_s;\n            let chaos_k = chaos_steps + real(1.0);\n            chaos_steps = chaos_k;\n            chaos_growth = chaos_growth + chaos_l;\n            chaos_weighted = chaos_weighted + chaos_k * chaos_l;\n            chaos_ysum = chaos_ysum + chaos_weighted * (real(2.0) / chaos_k);\n        }\n",
    );
    s
}

/// With the stores: the accumulators written back.
fn end() -> String {
    let mut s = String::new();
    for (j, name) in NAMES.iter().enumerate() {
        s.push_str(&format!(
            "    state[(CHAOS_WORD + {j}u) * n + i] = {name};\n"
        ));
    }
    s
}
