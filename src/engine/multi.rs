//! `--devices`: one ensemble over several GPUs of one process. `MultiGpuEngine` gives each
//! device a contiguous slice (`ensemble::shard::split`: boundaries at multiples of
//! `SHARD_ALIGN`, so every device reduction has exactly the whole ensemble's workgroups) and
//! is an `Engine` like any other: `advance` submits to every device before waiting on any
//! (each GPU engine's `advance` only submits), `state` reads the slices back and puts them
//! one after the other, its `Acceleration` appends the devices' parts (workgroup
//! accumulators, counts) in device order. So stats.csv is the one a single device writes, bit for bit.

use super::{Engine, GpuEngine, Integrator};
use crate::ensemble::shard::{split, SHARD_ALIGN};
use crate::error::Result;
use crate::float::Real;
use crate::gpu::GpuContext;
use crate::measure::measurement::{Acceleration, Part};
use crate::state::State;

/// Several GPU engines, one slice of the ensemble each (see the module doc).
pub struct MultiGpuEngine<T: Real> {
    integrator: Integrator,
    /// The devices, in slice order (`gpu::context_at`).
    contexts: Vec<&'static GpuContext>,
    /// One engine per slice; fewer than `contexts` when the ensemble has fewer aligned
    /// blocks than there are devices.
    engines: Vec<GpuEngine<T>>,
    /// The slices' states put together (`state`), valid while `current`.
    whole: State<T>,
    current: bool,
}

impl<T: Real> MultiGpuEngine<T> {
    pub fn new(
        contexts: Vec<&'static GpuContext>,
        k: &Integrator,
        state: State<T>,
    ) -> Result<Self> {
        let mut e = MultiGpuEngine {
            integrator: k.clone(),
            contexts,
            engines: Vec::new(),
            whole: State::zeros(0, state.d),
            current: false,
        };
        e.set_state(state)?;
        Ok(e)
    }

    /// The slices of `n` points: one per device, as many as whole aligned blocks allow.
    fn slices(&self, n: usize) -> Vec<std::ops::Range<usize>> {
        if n == 0 {
            // an empty ensemble (refinement's engine before its first nodes)
            return std::iter::once(0..0).collect();
        }
        let count = self.contexts.len().min(n.div_ceil(SHARD_ALIGN)).max(1);
        split(n, count).expect("count is at most the number of aligned blocks")
    }
}

impl<T: Real> Engine<T> for MultiGpuEngine<T> {
    fn describe(&self) -> String {
        let names: Vec<String> = self.contexts.iter().map(|c| c.describe()).collect();
        match names.len() {
            1 => format!("gpu: {}", names[0]),
            n => format!("{n} GPUs: {}", names.join("; ")),
        }
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        self.current = false;
        for e in &mut self.engines {
            e.advance(steps)?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<&State<T>> {
        if !self.current {
            // each device's read-back, concatenated without a copy of it
            let parts = self
                .engines
                .iter_mut()
                .map(|e| e.state())
                .collect::<Result<Vec<_>>>()?;
            self.whole = State::concat(&parts);
            self.current = true;
        }
        Ok(&self.whole)
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        let slices = self.slices(state.n);
        self.engines.truncate(slices.len());
        for (j, r) in slices.into_iter().enumerate() {
            let part = state.range(r);
            match self.engines.get_mut(j) {
                Some(e) => e.set_state(part)?,
                None => self
                    .engines
                    .push(GpuEngine::on(self.contexts[j], &self.integrator, part)?),
            }
        }
        self.whole = state;
        self.current = true;
        Ok(())
    }

    fn points(&self) -> usize {
        self.engines.iter().map(|e| e.points()).sum()
    }

    fn reverse(&mut self) {
        // `set_state` builds the devices' engines again from the integrator.
        self.integrator.h = -self.integrator.h;
        for e in &mut self.engines {
            e.reverse();
        }
    }

    fn acceleration(&mut self) -> Result<Option<&mut dyn Acceleration>> {
        for e in &mut self.engines {
            if e.acceleration()?.is_none() {
                return Ok(None);
            }
        }
        Ok(Some(self))
    }
}

/// Every device's acceleration (`Engine::acceleration` checked that each has one), their
/// parts appended in device order.
impl<T: Real> Acceleration for MultiGpuEngine<T> {
    fn start(&mut self) -> Result<()> {
        self.engines.iter_mut().try_for_each(Acceleration::start)
    }

    fn parts(&mut self) -> Result<Vec<(&'static str, Part)>> {
        let mut all: Vec<(&'static str, Part)> = Vec::new();
        for e in &mut self.engines {
            for (name, part) in Acceleration::parts(e)? {
                match all.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, whole)) => whole.append(part),
                    None => all.push((name, part)),
                }
            }
        }
        Ok(all)
    }

    fn initial(&mut self) -> Result<Vec<f64>> {
        let mut all = Vec::new();
        for e in &mut self.engines {
            all.extend(Acceleration::initial(e)?);
        }
        Ok(all)
    }

    fn restore(&mut self, initial: &[f64]) -> Result<()> {
        let mut at = 0;
        for e in &mut self.engines {
            let n = e.points();
            Acceleration::restore(e, &initial[at..at + n])?;
            at += n;
        }
        Ok(())
    }
}
