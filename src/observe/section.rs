//! A Poincaré section's observer (`--section`, `crate::section`): before each step the
//! point's primal components are kept, after it the crossing test (`section::locate`), and a
//! crossing is counted and, under the cap, recorded. The crossings are kept words: on the CPU
//! engine a `SectionStore`; on the GPU after the carried words in the chunk, written by the
//! driver lines below (the functions of `shaders/common/section.wgsl`) and decoded here when
//! the crossings are asked for.

use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::float::Real;
use crate::method::Points;
use crate::section::locate::{check_block, BlockStep, Scratch, NEWTON_ITERATIONS};
use crate::section::store::BlockRecords;
use crate::section::{Crossings, Direction, Section, SectionStore};
use crate::system::System;

pub const SOURCE: &str = include_str!("../../shaders/common/section.wgsl");

/// Its name (`Observer::name`).
pub const NAME: &str = "section";

impl Observer for Section {
    fn name(&self) -> &'static str {
        NAME
    }

    fn kept_words(&self) -> usize {
        words(self)
    }

    fn cpu_f64(&self, n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(SectionStore::<f64>::new(*self, n))
    }

    fn cpu_f32(&self, n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(SectionStore::<f32>::new(*self, n))
    }

    fn wgsl_prelude(&self, word: usize, _f64: bool, literal: &dyn Fn(f64) -> String) -> String {
        prelude(self, word, literal)
    }

    fn wgsl_source(&self) -> &'static str {
        SOURCE
    }

    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines {
        DriverLines {
            start: START.into(),
            before_step: before_step(self, site.comp),
            after_step: after_step(self, site.comp),
            end: END.into(),
        }
    }

    fn crossings_from_words(&self, chunks: &[(Vec<f64>, usize)], steps: u64) -> Option<Crossings> {
        let parts = chunks
            .iter()
            .map(|(words, n)| decode(self, words, *n, steps))
            .collect();
        Some(SectionStore::concat(parts).unwrap_or_else(|| SectionStore::new(*self, 0)))
    }
}

impl<T: Real> CpuObserver<T> for SectionStore<T> {
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        _carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let (section, k0) = (self.section, self.steps);
        let dq = section.d * run.b;
        self.blocks(run.b)
            .into_iter()
            .map(|records| {
                Box::new(SectionBlock {
                    section,
                    system: run.system,
                    h: run.h,
                    k0,
                    b: run.b,
                    m: 0,
                    q0: vec![T::ZERO; dq],
                    p0: vec![T::ZERO; dq],
                    records,
                    scratch: Scratch::default(),
                }) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }

    fn advanced(&mut self, steps: u64) {
        self.steps += steps;
    }

    fn restart(&mut self, n: usize) {
        if self.n != n {
            *self = SectionStore::new(self.section, n);
        }
    }

    fn crossings(&self) -> Option<Crossings> {
        Some(self.to_f64())
    }
}

/// One block's crossing test: the points before each step (`q0`, `p0`, primal components)
/// and the block's share of the store.
struct SectionBlock<'a, T> {
    section: Section,
    system: &'a System,
    h: T,
    /// The index of the advance's first step.
    k0: u64,
    b: usize,
    m: usize,
    q0: Vec<T>,
    p0: Vec<T>,
    records: BlockRecords<'a, T>,
    scratch: Scratch<T>,
}

impl<T: Real> BlockObserver<T> for SectionBlock<'_, T> {
    fn start(&mut self, m: usize) {
        self.m = m;
    }

    fn before_step(&mut self, blk: &Points<T>) {
        let nq = self.q0.len();
        self.q0.copy_from_slice(&blk.q[..nq]);
        self.p0.copy_from_slice(&blk.p[..nq]);
    }

    fn after_step(&mut self, blk: &mut Points<T>, k: u64) {
        let nq = self.q0.len();
        let st = BlockStep {
            b: self.b,
            q0: &self.q0,
            p0: &self.p0,
            q1: &blk.q[..nq],
            p1: &blk.p[..nq],
        };
        let (sec, system) = (&self.section, self.system);
        check_block(
            sec,
            system,
            self.h,
            (self.k0 + k, self.m),
            &st,
            &mut self.records,
            &mut self.scratch,
        );
    }
}

/// Words per point after the state: the count, the steps taken (two words), and per record
/// the step index (two words), s and the 2d − 1 other coordinates.
pub fn words(sec: &Section) -> usize {
    3 + sec.max as usize * (2 + sec.record_values())
}

/// One chunk's crossings from its section words (`shaders/common/section.wgsl`'s layout).
fn decode(sec: &Section, raw: &[f64], n: usize, steps: u64) -> Crossings {
    let mut st = SectionStore::new(*sec, n);
    st.steps = steps;
    let (max, rv) = (st.max(), sec.record_values());
    let word = |j: usize, i: usize| raw[j * n + i];
    let mut values = vec![0.0; rv];
    for mut block in st.blocks(n.max(1)) {
        for i in 0..n {
            let seen = word(0, i) as u64;
            for r in 0..(seen as usize).min(max) {
                let at = 3 + r * (2 + rv);
                let k = word(at + 1, i) as u64 * 65536 + word(at, i) as u64;
                for (c, v) in values.iter_mut().enumerate() {
                    *v = word(at + 2 + c, i);
                }
                block.push(i, max, k, &values);
            }
            block.seen[i] = seen;
        }
    }
    st
}

/// The prelude constants; `word` is the point's first section word and `literal` writes a
/// value of the kernel's precision.
fn prelude(sec: &Section, word: usize, literal: &dyn Fn(f64) -> String) -> String {
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
fn arrays(sec: &Section, comp: &dyn Fn(&str, usize) -> String) -> (String, String) {
    let one = |v: &str| {
        let items: Vec<String> = (0..sec.d).map(|k| comp(v, k)).collect();
        format!("array<real, D>({})", items.join(", "))
    };
    (one("q"), one("p"))
}

/// At the start of a dispatch, after the declarations: the steps taken before it.
const START: &str = "    let sec_base_lo = u32(state[(SEC_WORD + 1u) * n + i]);\n    let sec_base_hi = state[(SEC_WORD + 2u) * n + i];\n";

/// Before each step: the point as it was.
fn before_step(sec: &Section, comp: &dyn Fn(&str, usize) -> String) -> String {
    let (q, p) = arrays(sec, comp);
    format!("        let sec_q0 = {q};\n        let sec_p0 = {p};\n")
}

/// After each step: the crossing test, and the record when it crossed.
fn after_step(sec: &Section, comp: &dyn Fn(&str, usize) -> String) -> String {
    let (q, p) = arrays(sec, comp);
    let (m, k) = (sec.momentum, sec.index);
    let before = format!("{}[{k}u]", if m { "sec_p0" } else { "sec_q0" });
    let after = comp(if m { "p" } else { "q" }, k);
    format!(
        "        if (section_crosses({before} - SEC_VALUE, {after} - SEC_VALUE)) {{\n            section_record(i, n, s, sec_base_lo, sec_base_hi, h, sec_q0, sec_p0, {q}, {p});\n        }}\n"
    )
}

/// At the end of a dispatch: the steps taken, advanced by this dispatch's.
const END: &str = "    let sec_end = sec_base_lo + (params.steps & 0xFFFFu);\n    state[(SEC_WORD + 1u) * n + i] = real(sec_end & 0xFFFFu);\n    state[(SEC_WORD + 2u) * n + i] = sec_base_hi + real((params.steps >> 16u) + (sec_end >> 16u));\n";
