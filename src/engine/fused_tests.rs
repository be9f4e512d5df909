//! The CPU engine's fused path (`method::fused`) against its block path, bit for bit. Here,
//! beside the engine they drive, rather than in `method`, which does not import the engine.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::chaos::Layout;
use crate::observe::chaos::ChaosObserver;
use crate::observe::frequencies::FrequencySpec;
use crate::observe::stop::StopConditions;
use crate::observe::Observer;
use crate::section::{Direction, Section};

use crate::engine::cpu::tests::every_case;
use crate::engine::{CpuEngine, Engine, Integrator};
use crate::float::Real;
use crate::method::fused::{
    advance, advance_between, fusable, width, Between, Program, Run, Scratch,
};
use crate::method::{Method, Points, Solver};
use crate::simd::Level;
use crate::state::State;
use crate::system::System;

/// The state after 9 steps of `k` from `init`, on the CPU engine's block path (`Block`) and
/// on the fused path: a run over 37 points (a short last group) through `advance`, on a
/// scratch that is all NaN (`Scratch::poisoned`), so that a value a group reads before the
/// step writes it would show in the points.
fn both<T: Real>(system: &System, k: &Integrator, init: &State<T>) -> (Vec<u8>, Vec<u8>) {
    let mut e = CpuEngine::new(k, init.clone());
    e.advance_on_blocks(9).unwrap();
    let blocks = e.state().unwrap().to_bytes();
    let mut st = init.clone().with_compensation(k.compensated);
    let (n, comps) = (st.n, st.comps());
    let program = Program::record(k.method, system, T::from_f64(k.h), k.compensated).unwrap();
    let run = Run {
        system,
        program: &program,
        level: Level::detected(),
        d: st.d,
        comps,
        compensated: k.compensated,
        steps: 9,
    };
    let mut parts: Vec<&mut [T]> = Vec::new();
    for v in [&mut st.q, &mut st.p, &mut st.eq, &mut st.ep] {
        parts.extend(v.chunks_mut(n));
    }
    advance(&run, &mut parts, &mut Scratch::poisoned());
    (blocks, st.to_bytes())
}

/// The fused path gives the block path's states bit for bit: every built-in system with every
/// method the fused path takes, f64 and f32, plain and compensated, with tangent columns where
/// a group width fits them.
#[test]
fn the_fused_path_advances_as_the_block_path_bit_for_bit() {
    let mut compared = 0;
    every_case(|system, method, init, compensated, what| {
        if !fusable(method, system, compensated) || width(init.comps()).is_none() {
            return;
        }
        let k = |solver| {
            Integrator::new(system.clone(), method, 0.01, solver)
                .unwrap()
                .with_compensation(compensated)
        };
        let (a, b) = both(system, &k(Solver::default_for::<f64>()), init);
        assert!(a == b, "f64 {what}");
        let (a, b) = both(
            system,
            &k(Solver::default_for::<f32>()),
            &init.convert::<f32>(),
        );
        assert!(a == b, "f32 {what}");
        compared += 1;
    });
    assert!(compared > 50, "{compared}");
}

/// What takes the fused path: explicit steps within the group's stage slots and the
/// components per point it is compiled for; iterated implicit solves, discrete maps and
/// other widths take the block path.
#[test]
fn iterated_solves_and_discrete_maps_take_the_block_path() {
    let system = |name: &str| System::new(name, &BTreeMap::new()).unwrap();
    let pendulum = system("pendulum");
    for m in [
        Method::SymplecticEulerA,
        Method::Verlet,
        Method::Yoshida4,
        Method::Rk4,
    ] {
        assert!(
            fusable(m, &pendulum, false) && fusable(m, &pendulum, true),
            "{m:?}"
        );
    }
    assert!(!fusable(Method::ImplicitMidpoint, &pendulum, false));
    assert!(!fusable(Method::Verlet, &system("double-pendulum"), false));
    assert!(!fusable(
        Method::Variational,
        &system("pendulum-variational"),
        false
    ));
    assert_eq!(width(1), Some(64));
    assert_eq!(width(2), Some(128));
    assert_eq!(width(3), Some(192));
    assert_eq!(width(10), Some(640));
    assert_eq!(width(5), None);
    assert_eq!(width(12), None);
}

/// 150 points of a disk of radius 0.3 around the system's default state (a seed's draw), the
/// initial state of the tests below.
fn disk_of_150(system: &System, seed: u64, dt: f64) -> State<f64> {
    crate::ensemble::EnsembleRequest::disk(150, 0.3, seed)
        .resolve(system)
        .unwrap()
        .generate(system, dt)
        .unwrap()
}

/// Through the engine, with blocks of several groups and a short last group (150 points: on
/// one thread a block of 150, two groups of 64 and one of 22), f32 and f64.
#[test]
fn the_engine_runs_blocks_of_several_groups_as_the_block_path() {
    let system = System::new("pendulum", &BTreeMap::new()).unwrap();
    let init = disk_of_150(&system, 3, 0.01);
    for method in [Method::Verlet, Method::Yoshida4, Method::Rk4] {
        let k64 = Integrator::with_default_solver::<f64>(system.clone(), method, 0.01).unwrap();
        let k32 = Integrator::with_default_solver::<f32>(system.clone(), method, 0.01).unwrap();
        let run = |k: &Integrator, fuse: bool| {
            let mut e = CpuEngine::new(k, init.clone());
            let mut e32 = CpuEngine::new(k, init.convert::<f32>());
            if fuse {
                e.advance(25).unwrap();
                e32.advance(25).unwrap();
            } else {
                e.advance_on_blocks(25).unwrap();
                e32.advance_on_blocks(25).unwrap();
            }
            (
                e.state().unwrap().to_bytes(),
                e32.state().unwrap().to_bytes(),
            )
        };
        assert!(run(&k64, true).0 == run(&k64, false).0, "f64 {method:?}");
        assert!(run(&k32, true).1 == run(&k32, false).1, "f32 {method:?}");
    }
}

/// Per observer kind, the observer, the start state (with its carried words) and its kind's
/// name: the chaos indicators with one and two deviation vectors (and three where d > 1), a
/// section, a stop condition that stops some points at different steps.
fn observer_cases(
    system: &System,
    init: &State<f64>,
) -> Vec<(Arc<dyn Observer>, State<f64>, &'static str)> {
    let d = system.dof();
    let chaos = |vectors: usize, sali: bool| {
        let layout = Layout {
            vectors,
            fli: sali,
            sali,
        };
        let o = Arc::new(ChaosObserver {
            weights: None,
            layout,
        });
        let state = init.with_deviations(vectors, layout.width(), |i, row| {
            for (j, x) in row.iter_mut().enumerate() {
                let unit = if j % (2 * d + 1) == 0 { 1.0 } else { 0.0 };
                *x = unit + 0.01 * ((i * 7 + j * 3) % 11) as f64;
            }
        });
        (o as Arc<dyn Observer>, state, "chaos")
    };
    let section = Section {
        momentum: false,
        index: 0,
        value: 0.0,
        direction: Direction::Both,
        max: 5,
        d,
    };
    let stop = StopConditions::parse(&["q1 > 0.1 + t".into()], system, None).unwrap();
    let mut stopped_state = init.clone();
    stopped_state.chaos = vec![0.0; crate::observe::stop::WIDTH * init.n];
    let mut cases = vec![
        chaos(1, false),
        chaos(2, true),
        (Arc::new(section) as _, init.clone(), "section"),
        (Arc::new(stop) as _, stopped_state, "stop"),
    ];
    if d > 1 {
        cases.push(chaos(3, false));
    }
    cases
}

/// Per precision (f64, f32): the state's bytes and a section's crossings (counts and rows)
/// after advancing `state` by 60 and 90 steps of `k64` / `k32`, on the fused path (`fuse`;
/// stop conditions too) or the block path alone.
type Advanced = (
    Vec<u8>,
    Vec<u8>,
    Option<(Vec<u64>, (usize, Vec<f64>))>,
    Option<(Vec<u64>, (usize, Vec<f64>))>,
);

fn advanced_with(k64: &Integrator, k32: &Integrator, state: &State<f64>, fuse: bool) -> Advanced {
    let mut e = CpuEngine::new(k64, state.clone()).with_stops_fused();
    let mut e32 = CpuEngine::new(k32, state.convert::<f32>()).with_stops_fused();
    assert!(e.observed_program().is_some());
    for steps in [60, 90] {
        if fuse {
            e.advance(steps).unwrap();
            e32.advance(steps).unwrap();
        } else {
            e.advance_on_blocks(steps).unwrap();
            e32.advance_on_blocks(steps).unwrap();
        }
    }
    let rows = |c: Option<crate::section::Crossings>| c.map(|c| (c.seen.clone(), c.rows(0.05, 0)));
    let (c64, c32) = (e.crossings().unwrap(), e32.crossings().unwrap());
    (
        e.state().unwrap().to_bytes(),
        e32.state().unwrap().to_bytes(),
        rows(c64),
        rows(c32),
    )
}

/// The integrator's per-step observers run on the fused path and give the block path's bits:
/// the state, the carried words (chaos accumulators, stop records) and a section's crossings,
/// per observer kind (`observer_cases`), on the pendulum and Hénon–Heiles, f64 and f32, plain
/// and compensated, advanced in two pieces over 150 points (several groups, a short last one).
#[test]
fn observers_on_the_fused_path_give_the_block_paths_bits() {
    let mut compared = 0;
    for name in ["pendulum", "henon-heiles"] {
        let system = System::new(name, &BTreeMap::new()).unwrap();
        let init = disk_of_150(&system, 5, 0.05);
        for (observer, state, what) in observer_cases(&system, &init) {
            for method in [Method::Verlet, Method::Yoshida4, Method::Rk4] {
                for compensated in [false, true] {
                    let what = format!(
                        "{name} {method:?} {what} {} compensated {compensated}",
                        state.nt
                    );
                    let k = |solver| {
                        Integrator::new(system.clone(), method, 0.05, solver)
                            .unwrap()
                            .with_compensation(compensated)
                            .with_observer(observer.clone())
                    };
                    let (k64, k32) = (
                        k(Solver::default_for::<f64>()),
                        k(Solver::default_for::<f32>()),
                    );
                    let fused = advanced_with(&k64, &k32, &state, true);
                    let blocks = advanced_with(&k64, &k32, &state, false);
                    assert!(fused.0 == blocks.0, "f64 {what}");
                    assert!(fused.1 == blocks.1, "f32 {what}");
                    assert!(
                        fused.2 == blocks.2 && fused.3 == blocks.3,
                        "crossings {what}"
                    );
                    if what.contains("section") {
                        let (seen, _) = fused.2.clone().unwrap();
                        assert!(seen.iter().sum::<u64>() > 100, "{what}: {seen:?}");
                    }
                    if what.contains("stop") {
                        let st = State::<f64>::from_bytes(&fused.0).unwrap();
                        let stopped = st.chaos[..st.n].iter().filter(|&&c| c != 0.0).count();
                        assert!((1..st.n).contains(&stopped), "{what}: {stopped} stopped");
                    }
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 54);
}

/// A `Between` whose hooks act after every fifth step: it counts the calls it gets.
#[derive(Default)]
struct EveryFifth {
    calls: usize,
}

impl<T> Between<T> for EveryFifth {
    fn start(&mut self, _g: usize, _at: &mut Points<T>) -> bool {
        true
    }
    fn before_step(&mut self, _g: usize, _at: &Points<T>) {
        self.calls += 1;
    }
    fn after_step(&mut self, _g: usize, _at: &mut Points<T>, _k: u64) -> bool {
        self.calls += 1;
        true
    }
    fn quiet(&self, k: u64) -> u64 {
        (5 - (k + 1) % 5) % 5
    }
}

/// The steps a `Between` says are quiet run without its hooks (one call before and one after
/// every fifth step, per group), and the points advance as without it, bit for bit.
#[test]
fn quiet_steps_run_without_the_hooks() {
    let system = System::new("henon-heiles", &BTreeMap::new()).unwrap();
    let init = disk_of_150(&system, 5, 0.05);
    let program = Program::record(Method::Yoshida4, &system, 0.05, false).unwrap();
    let advanced = |between: Option<&mut dyn Between<f64>>| {
        let mut st = init.clone();
        let run = Run {
            system: &system,
            program: &program,
            level: Level::detected(),
            d: st.d,
            comps: st.comps(),
            compensated: false,
            steps: 103,
        };
        let n = st.n;
        let mut parts: Vec<&mut [f64]> = st.q.chunks_mut(n).chain(st.p.chunks_mut(n)).collect();
        advance_between(&run, &mut parts, between, &mut Scratch::default());
        st.to_bytes()
    };
    let mut hooks = EveryFifth::default();
    let hooked = advanced(Some(&mut hooks));
    assert!(hooked == advanced(None));
    assert_eq!(hooks.calls, 2 * 20 * 150usize.div_ceil(64));
}

/// The frequency analysis's samples on the fused path (a sample every 7 steps, the hooks
/// quiet in between; alone and beside a section, whose hooks act at every step) are the block
/// path's: the same frequencies, advanced in two pieces that do not end on a sample.
#[test]
fn frequency_samples_on_the_fused_path_are_the_block_paths() {
    let system = System::new("henon-heiles", &BTreeMap::new()).unwrap();
    let init = disk_of_150(&system, 5, 0.05);
    let spec = FrequencySpec::parse("q1-ip1,q2", Some(7), 150, 2).unwrap();
    let section = Section {
        momentum: false,
        index: 0,
        value: 0.0,
        direction: Direction::Both,
        max: 5,
        d: 2,
    };
    for with_section in [false, true] {
        let mut k = Integrator::new(
            system.clone(),
            Method::Yoshida4,
            0.05,
            Solver::default_for::<f64>(),
        )
        .unwrap()
        .with_observer(Arc::new(spec.clone()));
        if with_section {
            k = k.with_observer(Arc::new(section));
        }
        let run = |fuse: bool| {
            let mut e = CpuEngine::new(&k, init.clone());
            assert!(e.observed_program().is_some());
            for steps in [60, 90] {
                match fuse {
                    true => e.advance(steps).unwrap(),
                    false => e.advance_on_blocks(steps).unwrap(),
                }
            }
            let table = e.frequencies().unwrap().unwrap();
            (e.state().unwrap().to_bytes(), table)
        };
        let (fused, blocks) = (run(true), run(false));
        assert!(fused.0 == blocks.0, "section {with_section}");
        assert_eq!(fused.1, blocks.1, "section {with_section}");
        let found = fused.1.values.iter().flatten().flatten().count();
        assert_eq!(found, 150 * 2 * 3, "section {with_section}");
    }
}
