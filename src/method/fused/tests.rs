use std::collections::BTreeMap;

use super::*;
use crate::engine::{CpuEngine, Engine, Integrator};
use crate::ensemble::EnsembleRequest;
use crate::method::Solver;
use crate::state::State;
use crate::system::CATALOGUE;

/// The state after 9 steps of `k` from `init`, on the CPU engine's block path (`Block`) and
/// on the fused path: a run over 37 points (a short last group) through `advance`.
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
    advance(&run, &mut parts);
    (blocks, st.to_bytes())
}

/// The fused path gives the block path's states bit for bit: every built-in system with every
/// method the fused path takes, f64 and f32, plain and compensated, with tangent columns where
/// a group width fits them.
#[test]
fn the_fused_path_advances_as_the_block_path_bit_for_bit() {
    let mut compared = 0;
    for info in CATALOGUE {
        let system = System::new(info.name, &BTreeMap::new()).unwrap();
        let disk = EnsembleRequest::disk(37, 0.1, 7)
            .resolve(&system)
            .unwrap()
            .generate(&system, 0.01)
            .unwrap();
        for &method in crate::method::all() {
            if method.check_system(&system).is_err() {
                continue;
            }
            for (tangent, compensated) in [(false, false), (true, false), (false, true)] {
                if !fusable(method, &system, compensated) {
                    continue;
                }
                let init = if tangent {
                    disk.with_tangent()
                } else {
                    disk.clone()
                };
                let k = |solver| {
                    Integrator::new(system.clone(), method, 0.01, solver)
                        .unwrap()
                        .with_compensation(compensated)
                };
                let what = format!(
                    "{} {} tangent {tangent} compensated {compensated}",
                    info.name,
                    method.name()
                );
                if width(init.comps()).is_some() {
                    let (a, b) = both(&system, &k(Solver::default_for::<f64>()), &init);
                    assert!(a == b, "f64 {what}");
                    compared += 1;
                }
                if width(init.comps()).is_some() {
                    let init = init.convert::<f32>();
                    let (a, b) = both(&system, &k(Solver::default_for::<f32>()), &init);
                    assert!(a == b, "f32 {what}");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

/// What takes the fused path: explicit steps within the group's stage slots; iterated
/// implicit solves, discrete maps and wider points take the block path.
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
    assert_eq!(width(3), None);
}
