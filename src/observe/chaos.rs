//! The chaos indicators' observer (`--chaos`, `crate::chaos`): after every step each point's
//! deviation vector (the state's first tangent column) is renormalised and the step's log
//! growth added to its accumulators, carried with the state (`Layout::width` words:
//! `State::chaos`); with FLI, SALI or GALI_k, `chaos::update_more` follows (the further
//! vectors' renormalisation, the largest ln|δ|, SALI). On the CPU engine both run on the
//! block; on the GPU the driver lines below run the same operations in the same order on the
//! point (the functions of `shaders/common/chaos.wgsl`), with the prelude's constants those
//! `ln_poly`, `ln_reduced` and `half_ln_ratio` use, rounded to the kernel's precision as
//! `T::from_f64` rounds them.

use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::chaos::{self, Layout, WIDTH};
use crate::float::Real;
use crate::method::Points;

pub const SOURCE: &str = include_str!("../../shaders/common/chaos.wgsl");

/// The deviation vectors' renormalisation and the accumulators, with the metric's weights
/// w_k of the squared norm Σ (w_k δ_k)², 2d of them (q then p), or `None` for the unit metric
/// (`chaos::Deviation::weights`), and the vectors and accumulators the indicators need
/// (`chaos::Layout`: beyond MEGNO and λ's, `chaos::update_more`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChaosObserver {
    pub weights: Option<Vec<f64>>,
    pub layout: Layout,
}

impl ChaosObserver {
    /// MEGNO and λ's observer (one vector) in the metric of `weights`.
    pub fn plain(weights: Option<Vec<f64>>) -> Self {
        ChaosObserver {
            weights,
            layout: Layout::PLAIN,
        }
    }
}

/// Its name (`Observer::name`).
pub const NAME: &str = "chaos";

impl Observer for ChaosObserver {
    fn name(&self) -> &'static str {
        NAME
    }

    fn carried_words(&self) -> usize {
        self.layout.width()
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
            start: start(self.layout),
            before_step: String::new(),
            after_step: after_step(site, self.weights.is_some())
                + &after_step_more(site, self.weights.is_some(), self.layout),
            end: end(self.layout),
        }
    }
}

/// The metric's weights at the engine's precision, and the layout.
pub(super) struct ChaosCpu<T> {
    weights: Option<Vec<T>>,
    layout: Layout,
}

impl<T: Real> ChaosCpu<T> {
    pub(super) fn new(o: &ChaosObserver) -> Self {
        let weights = o.weights.as_ref();
        ChaosCpu {
            weights: weights.map(|w| w.iter().map(|&x| T::from_f64(x)).collect()),
            layout: o.layout,
        }
    }
}

impl<T: Real> ChaosCpu<T> {
    /// One block's hook over its slices of the accumulators (`columns`).
    pub(super) fn block<'a>(
        &'a self,
        run: &BlockRun<'a, T>,
        columns: Vec<&'a mut [T]>,
    ) -> ChaosBlock<'a, T> {
        ChaosBlock {
            columns,
            acc: Vec::new(),
            b: run.b,
            weights: self.weights.as_deref(),
            layout: self.layout,
        }
    }
}

impl<T: Real> CpuObserver<T> for ChaosCpu<T> {
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let this = &*self;
        carried
            .into_iter()
            .map(|columns| Box::new(this.block(run, columns)) as Box<dyn BlockObserver<T> + 'a>)
            .collect()
    }
}

/// One block's accumulators: its slices of `State::chaos` (`columns`) and their copies
/// padded to `b` points like the block's state, then `SCRATCH` scratch rows (`acc`).
pub(super) struct ChaosBlock<'a, T> {
    columns: Vec<&'a mut [T]>,
    pub(super) acc: Vec<T>,
    b: usize,
    weights: Option<&'a [T]>,
    layout: Layout,
}

/// Scratch rows per point: `chaos::update`'s or `chaos::update_more`'s, the more.
const SCRATCH: usize = if chaos::SCRATCH > chaos::SCRATCH_MORE {
    chaos::SCRATCH
} else {
    chaos::SCRATCH_MORE
};

impl<T: Real> BlockObserver<T> for ChaosBlock<'_, T> {
    fn start(&mut self, m: usize) {
        let b = self.b;
        self.acc
            .resize((self.layout.width() + SCRATCH) * b, T::ZERO);
        for (dst, comp) in self.acc.chunks_mut(b).zip(&self.columns) {
            dst[..m].copy_from_slice(comp);
            // Padding: copies of the first point's, as the state's padding.
            dst[m..].fill(comp[0]);
        }
    }

    /// `chaos::update` on the block, then `chaos::update_more` where the layout has more
    /// than MEGNO and λ's, with the block's vector instructions (`simd`).
    fn after_step(&mut self, k: &mut Points<T>, _step: u64) {
        let (b, weights, layout) = (self.b, self.weights, self.layout);
        let (sums, scratch) = self.acc.split_at_mut(layout.width() * b);
        let level = k.level;
        level.run(
            #[inline(always)]
            || {
                let x: [&mut [T]; 2] = [&mut *k.q, &mut *k.p];
                let y: [&mut [T]; 2] = [&mut *k.dq, &mut *k.dp];
                chaos::update(x, y, &mut sums[..WIDTH * b], scratch, (b, k.d), weights);
                if layout != Layout::PLAIN {
                    let x: [&mut [T]; 2] = [&mut k.q, &mut k.p];
                    let y: [&mut [T]; 2] = [&mut k.dq, &mut k.dp];
                    chaos::update_more(x, y, sums, scratch, (b, k.d), weights, layout);
                }
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
/// `WEIGHTED`, `Y_SUM`, `NORM`, then the layout's: FLI, SALI and its least value).
pub(super) fn names(layout: Layout) -> Vec<&'static str> {
    let mut names = vec![
        "chaos_steps",
        "chaos_growth",
        "chaos_weighted",
        "chaos_ysum",
        "chaos_norm",
    ];
    if layout.fli {
        names.push("chaos_fli");
    }
    if layout.sali {
        names.extend(["chaos_sali", "chaos_sali_min"]);
    }
    names
}

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
fn start(layout: Layout) -> String {
    let mut s = String::new();
    for (j, name) in names(layout).iter().enumerate() {
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
fn end(layout: Layout) -> String {
    let mut s = String::new();
    for (j, name) in names(layout).iter().enumerate() {
        s.push_str(&format!(
            "    state[(CHAOS_WORD + {j}u) * n + i] = {name};\n"
        ));
    }
    s
}

/// After `after_step`'s lines, `update_more` on the point: FLI, the renormalisation of
/// vectors 2..k (tangent columns 1..k−1) and SALI, in `update_more`'s order.
fn after_step_more(site: &DriverSite, weighted: bool, layout: Layout) -> String {
    let (d, comp) = (site.d, site.comp);
    // Component k of column j (q then p: v), times its weight where the metric has weights.
    let y = |v: &str, j: usize, k: usize| {
        let x = comp(v, d * (1 + j) + k);
        let w = if v == "q" { k } else { d + k };
        match weighted {
            true => format!("({x} * CHAOS_W{w})"),
            false => x,
        }
    };
    let mut s = String::new();
    if layout.fli {
        s.push_str(
            "        chaos_fli = select(chaos_fli, chaos_growth, chaos_growth > chaos_fli);\n",
        );
    }
    if layout.vectors > 1 {
        s.push_str("        var chaos_second = real(0.0);\n");
    }
    for j in 1..layout.vectors {
        s.push_str("        {\n            var chaos_ns = real(0.0);\n");
        for v in ["q", "p"] {
            for k in 0..d {
                let x = y(v, j, k);
                s.push_str(&format!("            chaos_ns = chaos_ns + {x} * {x};\n"));
            }
        }
        s.push_str("            let chaos_s = chaos_scale(chaos_ns);\n");
        for v in ["q", "p"].iter().chain(site.carried) {
            for k in 0..d {
                let x = comp(v, d * (1 + j) + k);
                s.push_str(&format!("            {x} = {x} * chaos_s;\n"));
            }
        }
        if j == 1 {
            s.push_str("            chaos_second = chaos_ns * chaos_s * chaos_s;\n");
        }
        s.push_str("        }\n");
    }
    if layout.sali {
        s.push_str(
            "        {\n            let chaos_i1 = real(1.0) / sqrt(chaos_norm);\n            let chaos_i2 = real(1.0) / sqrt(chaos_second);\n            var chaos_minus = real(0.0);\n            var chaos_plus = real(0.0);\n",
        );
        for v in ["q", "p"] {
            for k in 0..d {
                let (x1, x2) = (y(v, 0, k), y(v, 1, k));
                s.push_str(&format!(
                    "            {{\n                let a = {x1} * chaos_i1;\n                let c = {x2} * chaos_i2;\n                let e = a - c;\n                let f = a + c;\n                chaos_minus = chaos_minus + e * e;\n                chaos_plus = chaos_plus + f * f;\n            }}\n"
                ));
            }
        }
        s.push_str(
            "            chaos_sali = sqrt(select(chaos_plus, chaos_minus, chaos_minus < chaos_plus));\n            chaos_sali_min = select(chaos_sali_min, chaos_sali, chaos_steps == real(1.0) || chaos_sali < chaos_sali_min);\n        }\n",
        );
    }
    s
}
