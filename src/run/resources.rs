//! Resources a run needs before it starts: which engine runs it (`--backend auto` resolved)
//! and how much host memory each of its points takes (checked by `crate::memory`).

use super::calibration;
use crate::config::{Backend, Precision, RunConfig};
use crate::ensemble::EnsembleKind;
use crate::error::{Field, Message, Result};
use crate::gpu;
use crate::invalid;
use crate::section::Section;

/// Which engine a run uses after `auto` is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    Gpu,
    Cpu,
}

/// Resolve `--backend` (auto: a hardware GPU when present, and for f64 one whose adapter has
/// f64 in shaders; else the CPU engine).
pub fn choose_engine(cfg: &RunConfig) -> (EngineChoice, Option<Message>) {
    match cfg.backend {
        Backend::Gpu => (EngineChoice::Gpu, None),
        Backend::Cpu => (EngineChoice::Cpu, None),
        // The discrete maps' GPU kernels carry no tangent columns (`GpuEngine::new`).
        Backend::Auto if cfg.tangent && cfg.system.variational() => (
            EngineChoice::Cpu,
            Some(Message(vec![
                Field::Backend.is("auto"),
                ": the GPU kernels of the discrete maps carry no tangent columns, so ".into(),
                Field::Tangent.into(),
                " runs on the CPU engine".into(),
            ])),
        ),
        Backend::Auto => {
            let can = auto_engine(gpu::hardware_gpu_available(), computes_in_f64(cfg), || {
                cfg.system.check_gpu_f64().is_ok() && gpu::context().map(|c| c.f64).unwrap_or(false)
            });
            // With --devices the run asked for GPUs by number.
            match can.0 {
                EngineChoice::Gpu if cfg.devices.is_none() => by_size(cfg),
                _ => can,
            }
        }
    }
}

/// Between a GPU that can run it and the CPU engine, the one estimated faster for the run's
/// size from the machine's calibration (`run::calibration`), with a note saying why; the GPU
/// where no estimate can be made (its context fails later with its own error).
fn by_size(cfg: &RunConfig) -> (EngineChoice, Option<Message>) {
    let Ok(ctx) = gpu::context() else {
        return (EngineChoice::Gpu, None);
    };
    let cal = match calibration::for_context(ctx) {
        Ok(c) => c,
        Err(e) => {
            let note = format!(": the engines could not be timed ({e}), so the GPU runs it");
            let note = Message(vec![Field::Backend.is("auto"), note.into()]);
            return (EngineChoice::Gpu, Some(note));
        }
    };
    size_choice(cfg, &cal, &ctx.info.name)
}

/// The engine `cal` estimates faster for `cfg`'s points (a refined loop's most nodes), steps
/// (there and back with --reverse), snapshots and work per point-step, with the note; the GPU
/// where there is no estimate (f64 on a GPU without it: `auto_engine` has refused that).
fn size_choice(
    cfg: &RunConfig,
    cal: &calibration::Calibration,
    adapter: &str,
) -> (EngineChoice, Option<Message>) {
    let points = match cfg.refine {
        Some(r) => r.max_nodes.max(cfg.local_points()),
        None => cfg.local_points(),
    };
    let steps = if cfg.reverse {
        2 * cfg.steps
    } else {
        cfg.steps
    };
    let advances = cfg.snapshot_steps().len() as u64;
    let f64 = cfg.precision == Precision::F64;
    let work = calibration::relative_work(cfg);
    match cal.estimate(f64, points, steps, advances, work) {
        Some(e) => {
            let (gpu, why) = e.choose(points, steps, adapter);
            let engine = if gpu {
                EngineChoice::Gpu
            } else {
                EngineChoice::Cpu
            };
            let note = Message(vec![Field::Backend.is("auto"), why.into()]);
            (engine, Some(note))
        }
        None => (EngineChoice::Gpu, None),
    }
}

/// What of the run computes in f64 on the GPU, as `auto_engine`'s note names it: f64 runs, and
/// compensated f32 runs of the discrete maps that drift (`KernelSpec::pairs`); None for the rest.
fn computes_in_f64(cfg: &RunConfig) -> Option<&'static str> {
    let f64 = cfg.precision == Precision::F64;
    if f64 {
        return Some("f64");
    }
    crate::method::variational::map_in_f64(cfg.compensated, f64, &cfg.system)
        .then_some("this compensated f32 run of a discrete map (its steps taken in f64)")
}

/// `--backend auto`'s choice: the GPU when there is a hardware one (`hardware`) that can run the
/// precision (`has_f64`, asked only of runs that compute in f64, `in_f64`: what they are, as
/// the note names them), else the CPU engine with a note saying why.
fn auto_engine(
    hardware: bool,
    in_f64: Option<&str>,
    has_f64: impl FnOnce() -> bool,
) -> (EngineChoice, Option<Message>) {
    let auto = |rest: String| Message(vec![Field::Backend.is("auto"), rest.into()]);
    if !hardware {
        let note = ": no hardware GPU found, using the CPU engine";
        return (EngineChoice::Cpu, Some(auto(note.into())));
    }
    if let Some(what) = in_f64.filter(|_| !has_f64()) {
        let note = format!(": the GPU has no f64 in shaders (or not for this Hamiltonian's functions), so {what} runs on the CPU engine");
        return (EngineChoice::Cpu, Some(auto(note)));
    }
    (EngineChoice::Gpu, None)
}

/// Host bytes per point that `run` holds at its peak, for its configuration and engine
/// (`gpu`: the GPU engine). Measured, as peak RSS at 1e7 points minus a 1-point run: an f32
/// d = 1 run without --tangent holds 20 B per point (the checked figure):
/// - the engine's state: q and p, `2·comps` values of the run's precision (comps = d, or
///   d(1 + 2d) with --tangent), and the unconverged count (u32; the GPU engine's read-back writes
///   it, so it is not made lazy);
/// - H0 per point, f64 (an f32 evaluation cannot resolve the 1e-8 energy errors the studies
///   report); L0 (3 × f64) for systems with angular momentum.
///
/// Nothing else is n-sized: the initial set is generated straight into the run's precision,
/// the statistics are reduced chunk by chunk, and the loop parameters and tangent scales exist
/// only for loops and --tangent. Those, and what the GPU engine and --save-states hold on the
/// host, are added where they apply.
pub fn run_bytes_per_point(cfg: &RunConfig, gpu: bool) -> u64 {
    let d = cfg.system.dof() as u64;
    let comps = if cfg.tangent { d * (1 + 2 * d) } else { d };
    let bytes = if cfg.precision == Precision::F64 {
        8
    } else {
        4
    };
    // q and p, and compensated summation's eq and ep beside them
    let vectors = if cfg.compensated { 4 } else { 2 };
    let state = vectors * comps * bytes + 4;
    let zero = vec![0.0; d as usize];
    let mut per_point = state + 8;
    if cfg.system.angular_momentum(&zero, &zero).is_some() {
        per_point += 24;
    }
    if cfg.tangent {
        // log2_scale; the plain initial state beside the one with columns; renormalise's copy
        per_point += 8 + 2 * d * bytes + state;
    }
    if cfg.refine.is_some() {
        // loop parameter s; the f64 initial set while it is converted (kept for a file loop);
        // a refinement pass's merged state and new s, H0 and scale vectors beside the old ones
        per_point += 8 + 16 * d + state + 24;
    }
    if gpu {
        // the upload vector and wgpu's staging copy of a chunk, or the read-back staging buffer
        let words = crate::engine::gpu_layout::words_per_point(comps as usize, cfg.compensated);
        // --chaos: the deviation vectors' 2d words each and the accumulators
        let chaos = cfg.chaos.as_ref().map_or(0, |c| {
            let l = c.layout();
            2 * d * l.vectors as u64 + l.width() as u64
        });
        per_point += 2 * (words as u64 + chaos) * bytes;
    }
    if cfg.save_states {
        per_point += 2 * d * bytes;
    }
    if let Some(f) = &cfg.frequencies {
        // the samples (the CPU engine's store; on the GPU in the device's chunk, read back as
        // the 4 result words a signal, or, on a CPU driver, whole and in f64 for the host's
        // analysis), and frequencies.npy's f64 rows with their encoding
        let signals = f.signals.len() as u64;
        let samples = f.sample_words() as u64;
        // (a hardware GPU analyses them on the device: only the result words come back)
        let host_analysis = !gpu
            || crate::gpu::context().map_or(true, |c| c.info.device_type == wgpu::DeviceType::Cpu);
        let kept = match (gpu, host_analysis) {
            (false, _) => samples * bytes,
            (true, true) => samples * (bytes + 8),
            (true, false) => 0,
        };
        per_point += kept + 2 * 4 * signals * 8;
    }
    if let Some(c) = &cfg.chaos {
        // the deviation vectors (2d values each), the accumulators, the plain initial state
        // beside the one with the vectors, and chaos/step_<k>.npy's f64 rows with their encoding
        let (l, columns) = (c.layout(), c.columns().len() as u64);
        per_point += (2 * d * l.vectors as u64 + l.width() as u64) * bytes
            + 2 * d * bytes
            + 32
            + 16 * columns.saturating_sub(2);
    }
    if cfg.ensemble.kind() == EnsembleKind::File {
        // reading the file, before the rest exists: a .npy's bytes and its f64 values, then
        // those values and the f64 state, then that state and the run's copy of it
        per_point = per_point.max((32 * d + 4).max(16 * d + 8 + 2 * d * bytes));
    }
    // portraits (studies): the points in f64 at each portrait step, kept to the end
    per_point += cfg.portrait_steps.len() as u64 * (16 * d + 4);
    if let Some(s) = &cfg.section {
        per_point += section_bytes_per_point(s, bytes, gpu);
    }
    per_point
}

/// Host bytes per point of a section's crossings, `value_bytes` the run's precision: the
/// engine's crossings, their f64 copy and the rows of section.npy (2 f64 values more per
/// crossing); on the GPU also its words' read-back.
fn section_bytes_per_point(s: &Section, value_bytes: u64, gpu: bool) -> u64 {
    let kept = s.bytes_per_point(value_bytes as usize) as u64;
    let d = s.d as u64;
    let mut bytes = kept + s.bytes_per_point(8) as u64 + s.max as u64 * (2 * d + 2) * 8;
    if gpu {
        bytes += crate::observe::section::words(s) as u64 * value_bytes;
    }
    bytes
}

/// `--section-max`: a run whose kept crossings would not fit in memory, while the run without
/// them would, is refused naming `--section-max` and the cap that fits (`check_host_memory`
/// would ask for fewer points, down to none).
pub fn check_section_memory(cfg: &RunConfig, gpu: bool, points: usize) -> Result<()> {
    let Some(s) = cfg.section else {
        return Ok(());
    };
    let value_bytes = if cfg.precision == Precision::F64 {
        8
    } else {
        4
    };
    let share = |max: u32| section_bytes_per_point(&Section { max, ..s }, value_bytes, gpu);
    let per_point = run_bytes_per_point(cfg, gpu);
    let avail = crate::memory::available_memory().unwrap_or(u64::MAX) as u128 * 9 / 10;
    let points = points.max(1) as u128;
    if points * per_point as u128 <= avail {
        return Ok(());
    }
    let without = (per_point - share(s.max) + share(0)) as u128;
    let per_crossing = (share(1) - share(0)) as u128;
    let fits = (avail / points).saturating_sub(without) / per_crossing.max(1);
    if fits == 0 {
        return Ok(());
    }
    let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
    Err(invalid!(Field::SectionMax;
        Field::SectionMax.is(s.max),
        format!(
            ": keeping that many crossings of each of the {points} points needs about {:.1} GiB of memory ({per_crossing} bytes per crossing) but only {:.1} GiB is available; use a lower ",
            gib(points * per_point as u128),
            gib(avail * 10 / 9)
        ),
        Field::SectionMax,
        format!(" (at most about {})", fits.min(u32::MAX as u128))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ensemble::InitialSet;
    use crate::error::Field;

    fn config(extra: &[(&str, &str)], tangent: bool, save_states: bool) -> RunConfig {
        let mut args = vec!["phaseflow", "run", "--method", "verlet", "--dt", "0.1"];
        args.extend(["--steps", "10", "--out", "unused"]);
        for (k, v) in extra {
            args.extend([*k, *v]);
        }
        if tangent {
            args.push("--tangent");
        }
        if save_states {
            args.push("--save-states");
        }
        parsed(&args.join(" "))
    }

    /// The run of a `phaseflow run …` line (its words split at blanks).
    fn parsed(line: &str) -> RunConfig {
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(line.split(' ')).unwrap();
        let crate::cli::Command::Run(a) = cli.command else {
            panic!("not a run")
        };
        crate::config::RunJob::try_from(&a).unwrap().config
    }

    /// `--backend auto` on a hardware GPU without f64 in shaders: f64 runs and compensated f32
    /// runs of a drifting discrete map go to the CPU engine with a note; a plain f32 run of the
    /// map and a compensated f32 run of a Hamiltonian stay on the GPU.
    #[test]
    fn auto_sends_what_computes_in_f64_to_the_cpu_without_gpu_f64() {
        let run = |args: &str| {
            let args =
                format!("phaseflow run --dt 0.01 --steps 10 --ensemble point --out unused {args}");
            let cfg = parsed(&args);
            auto_engine(true, computes_in_f64(&cfg), || false)
        };
        let disk = "--system vertical-disk --method variational --precision f32";
        let (choice, note) = run(&format!("{disk} --compensated"));
        assert_eq!(choice, EngineChoice::Cpu);
        let note = note.unwrap();
        assert!(note.to_string().starts_with("backend = auto: "), "{note}");
        let cli = note.render(&crate::cli::flags::flag);
        assert!(
            cli.starts_with("--backend auto: ")
                && cli.contains("compensated f32 run of a discrete map"),
            "{cli}"
        );
        assert_eq!(run(disk), (EngineChoice::Gpu, None));
        let pendulum = "--system pendulum --method verlet --precision f32 --compensated";
        assert_eq!(run(pendulum), (EngineChoice::Gpu, None));
        let (choice, note) = run("--system pendulum --method verlet --precision f64");
        assert_eq!(choice, EngineChoice::Cpu);
        assert!(note
            .unwrap()
            .to_string()
            .contains("so f64 runs on the CPU engine"));
    }

    /// A run's size as the calibration sees it, end to end from its flags: few points go to
    /// the CPU engine and many to the GPU, with the note on both; --reverse counts the steps
    /// back too, --tangent and a heavier method scale the work, f64 without GPU figures stays
    /// with the GPU (refused earlier by `auto_engine`).
    #[test]
    fn the_engine_by_the_runs_size() {
        let cal = calibration::test_machine(0.3);
        let choice = |flags: &str| {
            let args = format!(
                "phaseflow run --system pendulum --ensemble disk --dt 0.01 --out unused {flags}"
            );
            let cfg = parsed(&args);
            let (engine, note) = size_choice(&cfg, &cal, "test GPU");
            (engine, note.map(|n| n.render(&crate::cli::flags::flag)))
        };
        // An ensemble stepped on demand (its one step a placeholder) is chosen for a long run.
        let stepped = |flags: &str| {
            let args = format!("phaseflow run --system pendulum --ensemble disk --dt 0.01 --out unused --method verlet --steps 1 {flags}");
            let cfg = parsed(&args);
            let open = super::super::open_run::open_ended(&cfg);
            (
                size_choice(&cfg, &cal, "g").0,
                size_choice(&open, &cal, "g").0,
            )
        };
        assert_eq!(
            stepped("--points 100000"),
            (EngineChoice::Cpu, EngineChoice::Gpu)
        );
        // 0.3 s = n · steps · work · (1e-9 − 1e-12) s: 1000 steps of Verlet, n ≈ 3.0e5
        let (engine, note) = choice("--method verlet --points 4096 --steps 1000");
        assert_eq!(engine, EngineChoice::Cpu);
        let note = note.unwrap();
        assert!(
            note.starts_with("--backend auto: 4096 points × 1000 steps are estimated at")
                && note.ends_with("so the CPU engine runs them"),
            "{note}"
        );
        let (engine, note) = choice("--method verlet --points 1000000 --steps 1000");
        assert_eq!(engine, EngineChoice::Gpu);
        assert!(note.unwrap().ends_with("so the GPU runs them"));
        // 2·10⁵ points: the CPU engine; back again (twice the steps), the GPU
        let (engine, _) = choice("--method verlet --points 200000 --steps 1000");
        assert_eq!(engine, EngineChoice::Cpu);
        let (engine, note) = choice("--method verlet --points 200000 --steps 1000 --reverse");
        assert_eq!(engine, EngineChoice::Gpu);
        assert!(note.unwrap().contains("200000 points × 2000 steps"));
        // three values per point with the tangent map, three times the evaluations with yoshida4
        for heavier in ["--method verlet --tangent", "--method yoshida4"] {
            let flags = format!("{heavier} --points 200000 --steps 1000");
            assert_eq!(choice(&flags).0, EngineChoice::Gpu, "{heavier}");
        }
        let f64 = "--method verlet --points 4096 --steps 1000 --precision f64";
        assert_eq!(choice(f64), (EngineChoice::Gpu, None));
    }

    /// The per-point estimate: the measured figure for an f32 d = 1 run (20 B, the ≤ 28 B
    /// target), and what precision, d, angular momentum, --tangent, loops, --save-states and the
    /// GPU engine add.
    #[test]
    fn memory_estimate_per_point() {
        let pend = [("--system", "pendulum"), ("--ensemble", "disk")];
        let f32_run = run_bytes_per_point(&config(&pend, false, false), false);
        assert_eq!(f32_run, 8 + 4 + 8);
        let f64_pend = [pend[0], pend[1], ("--precision", "f64")];
        assert_eq!(
            run_bytes_per_point(&config(&f64_pend, false, false), false),
            16 + 4 + 8
        );
        // --save-states adds the encoded .npy; the GPU engine its upload and staging copies
        assert_eq!(
            run_bytes_per_point(&config(&pend, false, true), false),
            20 + 8
        );
        assert_eq!(
            run_bytes_per_point(&config(&pend, false, false), true),
            20 + 24
        );
        // Kepler: d = 2 and L0
        let kepler = [("--system", "kepler"), ("--ensemble", "disk")];
        assert_eq!(
            run_bytes_per_point(&config(&kepler, false, false), false),
            16 + 4 + 8 + 24
        );
        // --tangent (d = 1: 3 components): state, log2_scale, the plain start, renormalise's copy
        assert_eq!(
            run_bytes_per_point(&config(&pend, true, false), false),
            28 + 8 + 8 + 28 + 8
        );
        // a loop: s, the f64 initial set, a refinement pass's merged state and vectors
        let circle = [("--system", "pendulum"), ("--ensemble", "circle")];
        assert_eq!(
            run_bytes_per_point(&config(&circle, false, false), false),
            20 + 8 + 16 + 12 + 24
        );
        // a file ensemble: reading it peaks at its f64 values twice over
        let mut cfg = config(&pend, false, false);
        cfg.ensemble.set = InitialSet::File {
            input: "unused.csv".into(),
            closed_loop: false,
        };
        assert_eq!(run_bytes_per_point(&cfg, false), 36);
        // refusal names the figure and the fix; a small ensemble passes
        let err =
            crate::memory::check_host_memory(Field::Points, usize::MAX / 64, f32_run).unwrap_err();
        let cli = crate::cli::flags::message(&err);
        assert!(
            cli.contains("20 bytes per point") && cli.contains("use fewer --points (at most about"),
            "{cli}"
        );
        // The library's own reading names the option without a flag.
        let lib = err.to_string();
        assert!(
            lib.starts_with("points = ") && lib.contains("use fewer points") && !lib.contains("--"),
            "{lib}"
        );
        assert!(crate::memory::check_host_memory(Field::Points, 1000, f32_run).is_ok());
    }
}
