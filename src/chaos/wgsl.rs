//! The GPU side of the chaos indicators: the prelude constants of `shaders/common/chaos.wgsl`
//! and the lines `gpu::shader::compose_kernel` puts into the driver: the accumulators loaded
//! with the point, `update`'s renormalisation and bookkeeping after each step, and the
//! accumulators stored with the point. The constants are those `ln_poly`, `ln_reduced` and
//! `half_ln_ratio` use,
//! rounded to the kernel's precision as `T::from_f64` rounds them.

use super::WIDTH;

pub const SOURCE: &str = include_str!("../../shaders/common/chaos.wgsl");

/// The accumulators' names in the kernel, in `State::chaos`'s order (`STEPS`, `LOG_GROWTH`,
/// `WEIGHTED`, `Y_SUM`, `NORM`).
const NAMES: [&str; WIDTH] = [
    "chaos_steps",
    "chaos_growth",
    "chaos_weighted",
    "chaos_ysum",
    "chaos_norm",
];

/// The prelude: `word` is the point's first accumulator word (the state's words per point),
/// `weights` the metric's (`CHAOS_W<k>`, none for the unit metric), `f64` the kernel's
/// precision and `literal` writes a value of it.
pub fn prelude(
    word: usize,
    weights: Option<&[f64]>,
    f64: bool,
    literal: impl Fn(f64) -> String,
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
        ("CHAOS_LN2_HI", super::LN2_HI),
        ("CHAOS_LN2_LO", std::f64::consts::LN_2 - super::LN2_HI),
        ("CHAOS_REAL_MAX", max),
        ("CHAOS_NEAR_LOW", super::NEAR_LOW),
        ("CHAOS_NEAR_HIGH", super::NEAR_HIGH),
    ] {
        s.push_str(&format!("const {name}: real = {};\n", literal(value)));
    }
    // Horner from the highest term down, as `series` runs it: the whole series and the
    // short one of `half_ln_ratio` where the growth is near 1.
    for (name, terms) in [
        ("chaos_series", super::series_terms(f64)),
        ("chaos_series_near", super::near_terms(f64)),
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
pub fn start() -> String {
    let mut s = String::new();
    for (j, name) in NAMES.iter().enumerate() {
        s.push_str(&format!(
            "    var {name} = state[(CHAOS_WORD + {j}u) * n + i];\n"
        ));
    }
    s
}

/// After each step, `update` on the point: the deviation vector (components d..2d of q and
/// p) and the carried derivative vectors `dq`, `dp` where the kernel uses them (`carried`)
/// scaled by the power of two `binade_scale` finds, then the accumulators; its squared norm
/// `weighted` (each component times the prelude's `CHAOS_W<k>` before it is squared) where
/// the metric has weights. `comp(vector, k)`
/// names a component of the kernel's registers or arrays.
pub fn after_step(
    d: usize,
    carried: &[&str],
    weighted: bool,
    comp: impl Fn(&str, usize) -> String,
) -> String {
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
    for v in ["q", "p"].iter().chain(carried) {
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
pub fn end() -> String {
    let mut s = String::new();
    for (j, name) in NAMES.iter().enumerate() {
        s.push_str(&format!(
            "    state[(CHAOS_WORD + {j}u) * n + i] = {name};\n"
        ));
    }
    s
}
