//! Compensated f32 runs of the discrete maps on the GPU engine: the kernel stores the state's
//! f32 pairs and takes each step in f64 from their sums (`KernelSpec::pairs`), as the CPU
//! engine does (`method::variational`), so the two engines give the same run, and the
//! vertical disk keeps its energy within 10× of f64's as on the CPU.

mod common;

use common::disk_at;
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::gpu::shader::{self, KernelSpec};
use phaseflow::method::{Method, Solver};
use phaseflow::system::{System, CATALOGUE};

/// Every discrete map that drifts (those that take `--compensated`).
fn drifting_maps() -> Vec<System> {
    let maps: Vec<System> = CATALOGUE
        .iter()
        .map(|info| common::system(info.name))
        .filter(|s| s.variational() && s.drifts())
        .collect();
    assert!(maps.len() >= 5, "{} maps", maps.len());
    maps
}

/// The f32 kernel of a compensated map computes in f64 on f32 words; a plain one and a
/// compensated Hamiltonian kernel stay f32 throughout.
#[test]
fn compensated_f32_map_kernels_compute_in_f64_on_f32_pairs() {
    let spec = |compensated| KernelSpec {
        compensated,
        ..KernelSpec::f32(0)
    };
    for sys in drifting_maps() {
        let source = shader::compose_kernel(&sys, Method::Variational, &spec(true));
        assert!(spec(true).pairs(&sys), "{}", sys.name());
        assert!(
            source.contains("alias real = f64;\nalias stored = f32;"),
            "{}",
            sys.name()
        );
        assert!(
            source.contains("real(state[0u * n + i]) + real(state[(2u * DT + 1u + 0u) * n + i])")
        );
        assert!(source.contains("let hi = stored(q_0);"));
        shader::validate(&source).unwrap();
        let plain = shader::compose_kernel(&sys, Method::Variational, &spec(false));
        assert!(plain.contains("alias real = f32;\nalias stored = f32;"));
        assert!(!spec(false).pairs(&sys));
    }
    let pendulum = common::system("pendulum");
    assert!(!spec(true).pairs(&pendulum));
    let source = shader::compose_kernel(&pendulum, Method::Verlet, &spec(true));
    assert!(source.contains("alias real = f32;\nalias stored = f32;"));
}

/// Every drifting map, compensated f32 from the f64 points' pairs (`State::convert_pairs`),
/// on both engines: the stored f32 values within two ulp of each other, the pairs' sums and
/// the points' energies to 1e-12 (measured on lavapipe: the f32 values equal, the sums within
/// 1.3e-13, the energies within 1e-13).
#[test]
fn gpu_compensated_f32_maps_match_the_cpu() {
    for sys in drifting_maps() {
        // Short and close where the motion is chaotic (as tests/gpu.rs's comparisons).
        let (h, radius, steps) = match sys.name() {
            "elastic-pendulum-zphi" => (0.002, 0.01, 100),
            "euler-disk" => (0.001, 0.01, 400),
            "double-pendulum-variational" => (0.01, 0.05, 200),
            _ => (0.05, 0.3, 400),
        };
        let init = disk_at(&sys, h, 64, radius).convert_pairs::<f32>();
        assert!(init.eq.iter().any(|&e| e != 0.0), "{}", sys.name());
        let k = Integrator::new(
            sys.clone(),
            Method::Variational,
            h,
            Solver::default_for::<f32>(),
        )
        .unwrap()
        .with_compensation(true);
        let mut g = GpuEngine::<f32>::new(&k, init.clone()).unwrap();
        let mut c = CpuEngine::<f32>::new(&k, init.clone());
        g.advance(steps).unwrap();
        c.advance(steps).unwrap();
        let (gs, cs) = (g.state().unwrap().clone(), c.state().unwrap().clone());
        let (ulps, sums, energies) = deviations(&sys, h, &gs, &cs);
        eprintln!(
            "{}: {steps} steps, largest f32 word difference {ulps} ulp, pair sums {sums:.1e}, energies {energies:.1e}",
            sys.name()
        );
        assert!(ulps <= 2, "{}: {ulps} ulp", sys.name());
        assert!(sums <= 1e-12, "{}: pair sums {sums:e}", sys.name());
        assert!(energies <= 1e-12, "{}: energies {energies:e}", sys.name());
        assert_eq!(gs.unconverged, cs.unconverged, "{}", sys.name());
        let moved = (0..gs.q.len()).any(|i| (gs.q_f64(i) - init.q_f64(i)).abs() > 1e-3);
        assert!(moved, "{}: the GPU state did not move", sys.name());
    }
}

/// Between two compensated f32 states: the largest difference of their stored values in
/// f32 ulps, of their pairs' sums relative to max(1, |x|), and of the points' energies
/// relative to the CPU's.
fn deviations(sys: &System, h: f64, g: &State<f32>, c: &State<f32>) -> (u32, f64, f64) {
    let words = g.q.iter().zip(&c.q).chain(g.p.iter().zip(&c.p));
    let ulps = words
        .map(|(a, b)| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32)
        .max()
        .unwrap();
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
    let sums = (0..g.q.len())
        .map(|i| rel(g.q_f64(i), c.q_f64(i)).max(rel(g.p_f64(i), c.p_f64(i))))
        .fold(0.0, f64::max);
    let d = g.d;
    let (mut q, mut v) = (vec![0.0; d], vec![0.0; d]);
    let mut energy = |s: &State<f32>, i| {
        s.point_f64(i, &mut q, &mut v);
        sys.energy(h, &q, &v)
    };
    let energies = (0..g.n)
        .map(|i| {
            let (eg, ec) = (energy(g, i), energy(c, i));
            (eg - ec).abs() / ec.abs()
        })
        .fold(0.0, f64::max);
    (ulps, sums, energies)
}

/// The vertical disk from the command line on the GPU engine (lavapipe here), 3·10⁴ steps of
/// h = 0.01: the compensated f32 run's worst energy error within 10× of the f64 run's on the
/// same engine (measured on lavapipe: f64 5.6e-12, f32 2.9e-3, f32 compensated 9.2e-13; the
/// kernel computed its map in f32 before, 3.1e-3).
#[test]
fn gpu_compensated_f32_vertical_disk_keeps_its_energy_within_ten_times_f64() {
    common::compensated_vertical_disk_within_ten_times_f64("gpu");
}
