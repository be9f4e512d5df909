//! The GPU side of a section: the prelude constants of `shaders/common/section.wgsl` and the
//! lines `gpu::shader::compose_kernel` puts around the driver's step (before it: the point's
//! primal components; after it: the crossing test), at the start of a dispatch (the steps
//! taken so far) and at its end (those steps advanced by the dispatch's).

use super::locate::NEWTON_ITERATIONS;
use super::{Direction, Section};

pub const SOURCE: &str = include_str!("../../shaders/common/section.wgsl");

/// Words per point after the state: the count, the steps taken (two words), and per record
/// the step index (two words), s and the 2d − 1 other coordinates.
pub fn words(sec: &Section) -> usize {
    3 + sec.max as usize * (2 + sec.record_values())
}

/// The prelude constants; `word` is the point's first section word (the state's words per
/// point) and `literal` writes a value of the kernel's precision.
pub fn prelude(sec: &Section, word: usize, literal: impl Fn(f64) -> String) -> String {
    let own = sec.index + if sec.momentum { sec.d } else { 0 };
    let (up, down) = match sec.direction {
        Direction::Up => (true, false),
        Direction::Down => (false, true),
        Direction::Both => (true, true),
    };
    format!(
        "const SEC_WORD: u32 = {word}u;\nconst SEC_Z: u32 = {}u;\nconst SEC_OWN: u32 = {own}u;\nconst SEC_VALUE: real = {};\nconst SEC_UP: bool = {up};\nconst SEC_DOWN: bool = {down};\nconst SEC_MAX: u32 = {}u;\nconst SEC_RECORD: u32 = {}u;\nconst SEC_NEWTON: u32 = {NEWTON_ITERATIONS}u;\n",
        2 * sec.d,
        literal(sec.value),
        sec.max,
        2 + sec.record_values(),
    )
}

/// The point's primal q and p as `array<real, D>` expressions; `comp(vector, k)` names a
/// component of the kernel's registers or arrays.
fn arrays(sec: &Section, comp: &impl Fn(&str, usize) -> String) -> (String, String) {
    let one = |v: &str| {
        let items: Vec<String> = (0..sec.d).map(|k| comp(v, k)).collect();
        format!("array<real, D>({})", items.join(", "))
    };
    (one("q"), one("p"))
}

/// At the start of a dispatch, after the declarations: the steps taken before it.
pub fn start() -> &'static str {
    "    let sec_base_lo = u32(state[(SEC_WORD + 1u) * n + i]);\n    let sec_base_hi = state[(SEC_WORD + 2u) * n + i];\n"
}

/// Before each step: the point as it was.
pub fn before_step(sec: &Section, comp: impl Fn(&str, usize) -> String) -> String {
    let (q, p) = arrays(sec, &comp);
    format!("        let sec_q0 = {q};\n        let sec_p0 = {p};\n")
}

/// After each step: the crossing test, and the record when it crossed.
pub fn after_step(sec: &Section, comp: impl Fn(&str, usize) -> String) -> String {
    let (q, p) = arrays(sec, &comp);
    let (m, k) = (sec.momentum, sec.index);
    let before = format!("{}[{k}u]", if m { "sec_p0" } else { "sec_q0" });
    let after = comp(if m { "p" } else { "q" }, k);
    format!(
        "        if (section_crosses({before} - SEC_VALUE, {after} - SEC_VALUE)) {{\n            section_record(i, n, s, sec_base_lo, sec_base_hi, h, sec_q0, sec_p0, {q}, {p});\n        }}\n"
    )
}

/// At the end of a dispatch: the steps taken, advanced by this dispatch's.
pub fn end() -> &'static str {
    "    let sec_end = sec_base_lo + (params.steps & 0xFFFFu);\n    state[(SEC_WORD + 1u) * n + i] = real(sec_end & 0xFFFFu);\n    state[(SEC_WORD + 2u) * n + i] = sec_base_hi + real((params.steps >> 16u) + (sec_end >> 16u));\n"
}
