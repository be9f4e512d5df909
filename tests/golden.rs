//! Golden final states: for every system × every method it accepts × precision × compensated
//! (where the command line accepts it), a small seeded ensemble is advanced a few dozen steps
//! on the CPU engine and on the GPU engine (lavapipe on CI), and its final state (q, p, the
//! carried errors, the unconverged counts) is hashed bit for bit and compared with the record
//! in `tests/golden/`. Pendulum and double pendulum also run with tangent columns. A change that
//! moves any bit of any method's arithmetic fails here, naming the pairs and how far their
//! states moved (largest relative difference of q and p from the recorded values).
//!
//! A deliberate change of the arithmetic is recorded again with
//!
//! ```text
//! PHASEFLOW_GOLDEN_RECORD=1 cargo test --release --test golden
//! ```
//!
//! which rewrites the files under `tests/golden/` (one per precision × compensated); commit
//! them with the change and say in its message how far the states moved.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use common::disk_at;
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::float::Real;
use phaseflow::method::ALL;
use phaseflow::system::{System, CATALOGUE};

/// Points per ensemble and steps per run.
const POINTS: usize = 3;
const STEPS: u64 = 24;

/// Each system with small parameters, and its (h, disk radius): stable steps on each
/// system's own scales (as tests/gpu.rs explains).
fn systems() -> Vec<(System, f64, f64)> {
    CATALOGUE
        .iter()
        .map(|info| {
            let small = match info.name {
                "spring-chain" => BTreeMap::from([("n".to_string(), 2.0)]),
                _ => BTreeMap::new(),
            };
            let sys = System::new(info.name, &small).unwrap();
            let (h, radius) = match info.name {
                "spring-chain" => (5e-4, 0.01),
                "outer-solar-system" => (1.0, 1e-3),
                "henon-heiles" | "kepler" => (0.05, 0.05),
                "elastic-pendulum-zphi" => (0.002, 0.01),
                "euler-disk" => (0.001, 0.01),
                "double-pendulum-variational" => (0.01, 0.05),
                _ => (0.05, 0.3),
            };
            (sys, h, radius)
        })
        .collect()
}

/// FNV-1a, 64 bits, of the state's bytes (sizes, q, p, eq, ep, unconverged counts). The fifth
/// header word of `to_bytes` (the chaos indicators' width, 0 here: these runs carry none) is
/// left out, so the records taken before the state carried indicators still apply.
fn hash<T: Real>(s: &State<T>) -> String {
    let mut bytes = s.to_bytes();
    assert_eq!(
        bytes[32..40],
        [0; 8],
        "a golden run carries no chaos indicators"
    );
    bytes.drain(32..40);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

/// One recorded case: its CPU and GPU hashes and the CPU's q and p (f64, shortest form).
struct Case {
    cpu: String,
    gpu: String,
    values: Vec<f64>,
}

fn run_cases<T: Real>(compensated: bool) -> BTreeMap<String, Case> {
    let mut cases = BTreeMap::new();
    for (sys, h, radius) in systems() {
        if compensated && !sys.drifts() {
            continue; // refused on the command line: the ball has no drift to carry
        }
        let tangent = matches!(sys.name(), "pendulum" | "double-pendulum");
        for &m in ALL {
            if m.check_system(&sys).is_err() {
                continue;
            }
            let plain = disk_at(&sys, h, POINTS, radius);
            let inits = if tangent {
                vec![("", plain.clone()), ("+tangent", plain.with_tangent())]
            } else {
                vec![("", plain)]
            };
            for (label, init) in inits {
                let k = Integrator::with_default_solver::<T>(sys.clone(), m, h)
                    .unwrap()
                    .with_compensation(compensated);
                // As the command line starts it: compensated, from the f64 points' pairs.
                let start = match compensated {
                    true => init.convert_pairs(),
                    false => init.convert(),
                };
                let mut c = CpuEngine::<T>::new(&k, start.clone());
                c.advance(STEPS).unwrap();
                let mut g = GpuEngine::<T>::new(&k, start).unwrap();
                g.advance(STEPS).unwrap();
                let cs = c.state().unwrap().clone();
                let gs = g.state().unwrap().clone();
                let values =
                    cs.q.iter()
                        .chain(&cs.p)
                        .map(|x| x.to_f64())
                        .collect::<Vec<f64>>();
                let key = format!("{}/{}{label}", sys.name(), m.name());
                let case = Case {
                    cpu: hash(&cs),
                    gpu: hash(&gs),
                    values,
                };
                cases.insert(key, case);
            }
        }
    }
    cases
}

fn record_path(precision: &str, compensated: bool) -> PathBuf {
    let name = format!(
        "{precision}{}.txt",
        if compensated { "-compensated" } else { "" }
    );
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Lines `key cpu-hash gpu-hash q and p values…`.
fn render(cases: &BTreeMap<String, Case>) -> String {
    let mut s = String::new();
    for (key, c) in cases {
        write!(s, "{key} {} {}", c.cpu, c.gpu).unwrap();
        for v in &c.values {
            write!(s, " {v:?}").unwrap();
        }
        s.push('\n');
    }
    s
}

fn parse(text: &str) -> BTreeMap<String, Case> {
    text.lines()
        .map(|line| {
            let mut w = line.split(' ');
            let key = w.next().unwrap().to_string();
            let cpu = w.next().unwrap().to_string();
            let gpu = w.next().unwrap().to_string();
            let values = w.map(|v| v.parse().unwrap()).collect();
            (key, Case { cpu, gpu, values })
        })
        .collect()
}

/// Largest |a − b| / max(|b|, 1e-300) over the values.
fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / y.abs().max(1e-300))
        .fold(0.0, f64::max)
}

fn check<T: Real>(compensated: bool) {
    let path = record_path(T::NAME, compensated);
    let cases = run_cases::<T>(compensated);
    assert!(cases.len() > 100, "only {} cases", cases.len());
    if std::env::var_os("PHASEFLOW_GOLDEN_RECORD").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, render(&cases)).unwrap();
        eprintln!("recorded {} cases in {}", cases.len(), path.display());
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (record it: see tests/golden.rs)", path.display()));
    let want = parse(&text);
    let mut failures = Vec::new();
    let keys: std::collections::BTreeSet<&String> = cases.keys().chain(want.keys()).collect();
    for key in keys {
        match (cases.get(key), want.get(key)) {
            (Some(got), Some(want)) => {
                if got.cpu != want.cpu || got.gpu != want.gpu {
                    failures.push(format!(
                        "{key}: cpu {} (recorded {}), gpu {} (recorded {}), q and p moved by up to {:.3e} (relative)",
                        got.cpu,
                        want.cpu,
                        got.gpu,
                        want.gpu,
                        max_rel(&got.values, &want.values)
                    ));
                }
            }
            (Some(_), None) => failures.push(format!("{key}: not recorded")),
            (None, Some(_)) => failures.push(format!("{key}: recorded but not run")),
            (None, None) => unreachable!(),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden states differ from {}:\n{}",
        failures.len(),
        cases.len(),
        path.display(),
        failures.join("\n")
    );
}

#[test]
fn golden_f32() {
    check::<f32>(false);
}

#[test]
fn golden_f64() {
    check::<f64>(false);
}

#[test]
fn golden_f32_compensated() {
    check::<f32>(true);
}

#[test]
fn golden_f64_compensated() {
    check::<f64>(true);
}
