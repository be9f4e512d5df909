//! The chaos indicators and the stop conditions of one run (`--chaos` with `--stop-when`) as
//! one observer: after each step the indicators' update (`observe::chaos`), then the
//! conditions in order (`observe::stop`), a threshold such as `megno>8` reading the
//! accumulators just updated. Its carried words are the chaos observer's, then the stop
//! words, where the run lays them (`RunConfig::stop_column`). A stopped point keeps its
//! accumulators as they were after the step it stopped on: the CPU block puts them back after
//! every later step of the block (as the engine puts back its state), and the GPU kernel's
//! loop ends for it (its accumulators are stored as they were then).

use std::sync::{Arc, OnceLock};

use super::chaos::{ChaosBlock, ChaosCpu, ChaosObserver};
use super::stop::{StopBlock, StopConditions, StopCpu};
use super::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use crate::float::Real;
use crate::method::Points;

/// The two observers, in this order (named as the chaos observer, whose place it takes).
#[derive(Debug, Clone)]
pub struct ChaosStop {
    pub chaos: ChaosObserver,
    pub stops: Arc<StopConditions>,
}

impl ChaosStop {
    fn chaos_words(&self) -> usize {
        self.chaos.carried_words()
    }
}

impl Observer for ChaosStop {
    fn name(&self) -> &'static str {
        super::chaos::NAME
    }

    fn carried_words(&self) -> usize {
        self.chaos_words() + self.stops.carried_words()
    }

    fn cpu_f64(&self, _n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(Cpu::<f64>::new(self))
    }

    fn cpu_f32(&self, _n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(Cpu::<f32>::new(self))
    }

    fn wgsl_prelude(&self, word: usize, f64: bool, literal: &dyn Fn(f64) -> String) -> String {
        self.chaos.wgsl_prelude(word, f64, literal)
            + &self
                .stops
                .wgsl_prelude(word + self.chaos_words(), f64, literal)
    }

    fn wgsl_source(&self) -> &'static str {
        static SOURCE: OnceLock<String> = OnceLock::new();
        SOURCE.get_or_init(|| format!("{}\n{}", super::chaos::SOURCE, super::stop::SOURCE))
    }

    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines {
        let (c, s) = (self.chaos.wgsl_driver(site), self.stops.wgsl_driver(site));
        DriverLines {
            start: c.start + &s.start,
            before_step: c.before_step + &s.before_step,
            after_step: c.after_step + &s.after_step,
            end: c.end + &s.end,
        }
    }
}

/// Both observers' CPU states.
struct Cpu<T> {
    chaos: ChaosCpu<T>,
    stops: StopCpu,
    width: usize,
}

impl<T: Real> Cpu<T> {
    fn new(o: &ChaosStop) -> Self {
        Cpu {
            chaos: ChaosCpu::new(&o.chaos),
            stops: StopCpu((*o.stops).clone()),
            width: o.chaos_words(),
        }
    }
}

impl<T: Real> CpuObserver<T> for Cpu<T> {
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        let (chaos, stops, width) = (&self.chaos, &self.stops.0, self.width);
        carried
            .into_iter()
            .map(|mut words| {
                let stop_words = words.split_off(width);
                Box::new(Both {
                    chaos: chaos.block(run, words),
                    stop: StopBlock::new(stops, stop_words, run),
                    b: run.b,
                    width,
                    kept: Vec::new(),
                    held: Vec::new(),
                }) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }

    fn stopped_points(&self, words: &[T], n: usize) -> Option<Vec<bool>> {
        self.stops.stopped_points(&words[self.width * n..], n)
    }
}

/// One block's hooks, and the stopped points' accumulators (`kept`: point, then its `width`
/// values; `held`: whether a point's are kept).
struct Both<'a, T> {
    chaos: ChaosBlock<'a, T>,
    stop: StopBlock<'a, T>,
    b: usize,
    width: usize,
    kept: Vec<(usize, Vec<T>)>,
    held: Vec<bool>,
}

impl<T: Real> Both<'_, T> {
    /// Keep the accumulators of the points stopped and not yet kept.
    fn keep_new(&mut self) {
        let (b, width) = (self.b, self.width);
        for (i, &s) in self.stop.stopped_mask().iter().enumerate() {
            if s && !self.held[i] {
                self.held[i] = true;
                let row = (0..width).map(|c| self.chaos.acc[c * b + i]).collect();
                self.kept.push((i, row));
            }
        }
    }
}

impl<T: Real> BlockObserver<T> for Both<'_, T> {
    fn start(&mut self, m: usize) {
        self.chaos.start(m);
        self.stop.start(m);
        self.held = vec![false; self.b];
        self.kept.clear();
        self.keep_new();
    }

    fn before_step(&mut self, blk: &Points<T>) {
        self.chaos.before_step(blk);
        self.stop.before_step(blk);
    }

    fn after_step(&mut self, blk: &mut Points<T>, k: u64) {
        self.chaos.after_step(blk, k);
        let b = self.b;
        for (i, row) in &self.kept {
            for (c, &x) in row.iter().enumerate() {
                self.chaos.acc[c * b + i] = x;
            }
        }
        self.stop.test(blk, k, Some(&self.chaos.acc));
        self.keep_new();
    }

    fn stopped(&self) -> Option<(&[bool], usize)> {
        self.stop.stopped()
    }

    fn finish(&mut self) {
        self.chaos.finish();
        self.stop.finish();
    }
}
