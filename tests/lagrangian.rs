//! Your own Lagrangian (`--lagrangian`), checked against what is already known: the
//! trapezoidal discrete Lagrangian of L = ½v² − (1 − cos q) is Störmer–Verlet on the pendulum
//! and the midpoint one the implicit midpoint rule (the state (q, p) through the discrete
//! Legendre transforms, to rounding); each discretization's step is symplectic (the tangent
//! map's determinant is 1 over 10⁴ steps); polar Kepler's discrete angular momentum is
//! conserved to rounding (discrete Noether) while its energy oscillates; the GPU kernels
//! generated from L agree with the CPU engine (lavapipe on CI: a wgpu adapter is needed);
//! and bad input is refused with exit status 2.

mod common;

use std::collections::BTreeMap;

use common::{advance_f64, disk, max_abs_diff, phaseflow};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::{EnsembleRequest, State};
use phaseflow::float::Real;
use phaseflow::method::Method;
use phaseflow::run::compare_states;
use phaseflow::system::lagrangian::Discretization;
use phaseflow::system::System;

const PENDULUM: &str = "v^2/2 - (1 - cos(q))";
const POLAR_KEPLER: &str = "(v1^2 + q1^2*v2^2)/2 + 1/q1";
/// A full constant mass matrix and an offset (the explicit step with a 2×2 solve).
const COUPLED: &str = "(2*v1^2 + v1*v2 + v2^2)/2 + 0.3*v1 - q1^2/2 - q2^4/4 - cos(q1 - q2)";

fn lagrangian(formula: &str, rule: Discretization) -> System {
    common::lagrangian_system(formula, rule, &[])
}

/// A seeded disk of `points` around `center` in (q1, p1).
fn disk_around(sys: &System, center: &[f64], points: usize, radius: f64) -> State<f64> {
    let mut request = EnsembleRequest::disk(points, radius, 7);
    request.center = Some(center.to_vec());
    request.resolve(sys).unwrap().generate(sys, 0.05).unwrap()
}

/// Trapezoid on the pendulum's L is Verlet on its H, bit for bit (its explicit step), midpoint
/// is the implicit midpoint rule: the same (q, p) after 400 steps of 0.05 to 1e-12 (f64, 256
/// points), and both moved.
#[test]
fn trapezoid_is_verlet_and_midpoint_is_implicit_midpoint_on_the_pendulum() {
    let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
    let init = disk(&pendulum, 256, 0.5);
    for (rule, method) in [
        (Discretization::Trapezoid, Method::Verlet),
        (Discretization::Midpoint, Method::ImplicitMidpoint),
    ] {
        let a = advance_f64(
            &lagrangian(PENDULUM, rule),
            Method::Variational,
            0.05,
            400,
            &init,
        );
        let b = advance_f64(&pendulum, method, 0.05, 400, &init);
        let dev = max_abs_diff(&a, &b);
        // The trapezoid's step is explicit here (a constant mass matrix): Verlet's bits.
        let tol = if rule == Discretization::Trapezoid {
            0.0
        } else {
            1e-12
        };
        assert!(
            dev <= tol,
            "{}: differs from {} by {dev:e}",
            rule.name(),
            method.name()
        );
        assert!(
            max_abs_diff(&a, &init) > 0.1,
            "{}: nothing moved",
            rule.name()
        );
        assert!(a.unconverged.iter().all(|&u| u == 0), "{}", rule.name());
    }
}

/// Every discretization's step is symplectic: the tangent map's determinant on the pendulum
/// is 1 to 1e-10 after 10⁴ steps of 0.05 (its columns grow linearly to 100, so a·d − b·c
/// rounds: symplectic Euler's and Verlet's kernels on the built-in pendulum lose 1–3·10⁻¹¹
/// here, these 2·10⁻¹¹), and on polar Kepler (d = 2, a velocity Hessian that depends on q)
/// the tangent columns of one step match central differences of the map to 1e-6.
#[test]
fn every_discretization_is_symplectic_over_ten_thousand_steps() {
    for rule in Discretization::ALL {
        let sys = lagrangian(PENDULUM, rule);
        let init = disk_around(&sys, &[1.0, 0.5], 16, 0.3);
        let end = advance_f64(
            &sys,
            Method::Variational,
            0.05,
            10_000,
            &init.with_tangent(),
        );
        let n = end.n;
        for i in 0..n {
            let (a, b) = (end.q[n + i], end.q[2 * n + i]);
            let (c, d) = (end.p[n + i], end.p[2 * n + i]);
            let det = a * d - b * c;
            // A path of degree s > 1 takes several times the arithmetic per step: 2·10⁻¹⁰
            // (the run's own det_floor here is 5·10⁻⁹).
            let tol = if rule.degree() == 1 { 1e-10 } else { 5e-10 };
            assert!(
                (det - 1.0).abs() < tol,
                "{}: point {i}: det {det}",
                rule.name()
            );
        }
        let sys = lagrangian(POLAR_KEPLER, rule);
        let init = disk_around(&sys, &[1.0, 0.0, 0.1, 1.0], 8, 0.05);
        let n = init.n;
        let one = advance_f64(&sys, Method::Variational, 0.01, 1, &init.with_tangent());
        let eps = 1e-6;
        for j in 0..4 {
            let shifted = |s: f64| {
                let mut z = init.clone();
                let (half, k) = if j < 2 {
                    (&mut z.q, j)
                } else {
                    (&mut z.p, j - 2)
                };
                for i in 0..n {
                    half[k * n + i] += s;
                }
                advance_f64(&sys, Method::Variational, 0.01, 1, &z)
            };
            let (plus, minus) = (shifted(eps), shifted(-eps));
            for c in 0..4 {
                let (half_p, half_m, half_t) = if c < 2 {
                    (&plus.q, &minus.q, &one.q)
                } else {
                    (&plus.p, &minus.p, &one.p)
                };
                let k = c % 2;
                for i in 0..n {
                    let fd = (half_p[k * n + i] - half_m[k * n + i]) / (2.0 * eps);
                    let t = half_t[(2 * (1 + j) + k) * n + i];
                    assert!(
                        (fd - t).abs() < 1e-6,
                        "{}: dz{c}/dz{j} {t} against {fd}",
                        rule.name()
                    );
                }
            }
        }
    }
}

/// Polar Kepler, L = ½(ṙ² + r²θ̇²) + 1/r, is symmetric under θ ↦ θ + s (ξ = (0, 1)): the
/// discrete momentum D₂L_d·ξ, the state's p2, stays at its start to 1e-12 relative over
/// t = 1 000 (10⁵ steps of 0.01; 2·10⁴ of 0.05 and 5 000 of 0.2 for the orders 4 and 6, whose
/// energy error at 0.01 is at rounding) with every discretization (f64; 4 points), while the
/// energy error is far above rounding, and 4 times smaller at half the step for the
/// second-order ones (O(h²); the orders of all are measured by `phaseflow order` in
/// tests/lagrangian_galerkin.rs, over many step sizes rather than one end state).
#[test]
fn polar_kepler_conserves_its_discrete_angular_momentum() {
    for rule in Discretization::ALL {
        let sys = lagrangian(POLAR_KEPLER, rule);
        let init = disk_around(&sys, &[1.0, 0.0, 0.1, 1.1], 4, 0.05);
        let h: f64 = match rule.order() {
            1 | 2 => 0.01,
            4 => 0.05,
            _ => 0.2,
        };
        let steps = (1000.0 / h).round() as u64;
        let end = advance_f64(&sys, Method::Variational, h, steps, &init);
        let n = init.n;
        let energy_error = |end: &State<f64>| {
            (0..n)
                .map(|i| {
                    let e = |s: &State<f64>| {
                        sys.energy(h, &[s.q[i], s.q[n + i]], &[s.p[i], s.p[n + i]])
                    };
                    (e(end) - e(&init)).abs()
                })
                .fold(0.0, f64::max)
        };
        for i in 0..n {
            let (j0, j) = (init.p[n + i], end.p[n + i]);
            assert!(
                ((j - j0) / j0).abs() <= 1e-12,
                "{}: J {j0} -> {j}",
                rule.name()
            );
        }
        assert!(end.unconverged.iter().all(|&u| u == 0), "{}", rule.name());
        let e1 = energy_error(&end);
        assert!(e1 > 1e-10, "{}: energy error {e1:e}", rule.name());
        if rule.order() == 2 {
            let half = advance_f64(&sys, Method::Variational, h / 2.0, 2 * steps, &init);
            let ratio = e1 / energy_error(&half);
            assert!(
                (3.0..5.0).contains(&ratio),
                "{}: energy error ratio {ratio}",
                rule.name()
            );
        }
    }
}

fn check_gpu<T: Real>(sys: &System, init: &State<f64>, tol: f64) {
    let k = Integrator::with_default_solver::<T>(sys.clone(), Method::Variational, 0.02).unwrap();
    let mut g = GpuEngine::<T>::new(&k, init.convert()).unwrap();
    let mut c = CpuEngine::<T>::new(&k, init.convert());
    g.advance(200).unwrap();
    c.advance(200).unwrap();
    let (gs, cs) = (g.state().unwrap(), c.state().unwrap());
    let d = compare_states(gs, cs);
    assert!(
        d.max_rel < tol && d.finite_mismatch == 0,
        "{} {}: GPU vs CPU max_rel_dev {:e}",
        sys.describe(),
        T::NAME,
        d.max_rel
    );
    assert_eq!(gs.unconverged, cs.unconverged);
}

/// The WGSL generated from L runs every discretization on the GPU engine and agrees with the
/// CPU engine, f32 and f64, on the pendulum and polar Kepler, and on a coupled L with a full
/// constant mass matrix (the explicit step's 2×2 solve and offset).
#[test]
fn gpu_kernels_generated_from_a_lagrangian_match_the_cpu() {
    for rule in Discretization::ALL {
        for (formula, center) in [
            (PENDULUM, vec![1.0, 0.5]),
            (POLAR_KEPLER, vec![1.0, 0.0, 0.1, 1.0]),
            (COUPLED, vec![0.5, -0.2, 0.3, 0.1]),
        ] {
            let sys = lagrangian(formula, rule);
            let init = disk_around(&sys, &center, 256, 0.05);
            check_gpu::<f32>(&sys, &init, 1e-4);
            check_gpu::<f64>(&sys, &init, 1e-12);
        }
    }
}

/// Bad input: each refused with exit status 2 and the reason.
#[test]
fn bad_lagrangians_are_refused_with_exit_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let run = "run --method variational --ensemble point --dt 0.1 --steps 10 --backend cpu";
    for (flags, says) in [
        (
            "--lagrangian q^2/2 --center 1,0",
            "does not depend on the velocities",
        ),
        ("--lagrangian q*v --center 1,0.5", "∂²L/∂v² is zero"),
        (
            "--lagrangian (v1+v2)^2/2 --center 1,0,0,0",
            "∂²L/∂v² has rank 1 of 2",
        ),
        (
            "--lagrangian v^3/3-q^2/2 --center 1,0",
            "at initial point 1",
        ),
        (
            "--lagrangian v^2/2-p --center 1,0",
            "unknown name 'p': neither a coordinate (q, v",
        ),
        (
            "--lagrangian v^2/2 --discretization simpson --center 1,0",
            "simpson",
        ),
        (
            "--system pendulum --discretization left",
            "--discretization, --momentum, --velocities and --constraint apply to --lagrangian",
        ),
        (
            "--hamiltonian p^2/2 --momentum 1 --center 1,0",
            "--discretization, --momentum, --velocities and --constraint apply to --lagrangian",
        ),
        (
            "--lagrangian (v1^2+v2^2)/2 --momentum 0 --center 1,0,0,0",
            "1 component for 2 degrees of freedom",
        ),
        (
            "--lagrangian (v1^2+v2^2)/2 --momentum -v2,q1 --center 1,0,0,0",
            "'-v2' depends on a velocity",
        ),
        (
            "--lagrangian v^2/2 --hamiltonian p^2/2",
            "each choose the system: give one of them",
        ),
    ] {
        let mut args = common::argv(run);
        args.extend(common::argv(flags));
        args.extend(["--out".to_string(), out.to_string()]);
        let o = phaseflow().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flags}: {err}");
        assert!(err.contains(says), "{flags}: {err}");
        assert!(!std::path::Path::new(out).exists(), "{flags}: wrote {out}");
    }
}

/// `--momentum 0,1` on polar Kepler from the command line: the momentum_err_max column (the
/// discrete angular momentum's drift, last in stats.csv) stays at rounding over 10⁴ steps
/// while the energy error does not, and config.toml records the Lagrangian, its
/// discretization and the generator so that `--config` reruns it to the same stats.csv.
#[test]
fn momentum_column_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let mut args = common::argv(
        "run --method variational --discretization midpoint --momentum 0,1 \
         --ensemble disk --points 16 --center 1,0,0.1,1.1 --radius 0.05 --dt 0.01 \
         --steps 10000 --snapshot-every 5000 --backend cpu --precision f64 --quiet --out",
    );
    args.insert(1, "--lagrangian".into());
    args.insert(2, POLAR_KEPLER.into());
    args.push(a.to_str().unwrap().into());
    let o = phaseflow().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats = std::fs::read_to_string(a.join("stats.csv")).unwrap();
    let header: Vec<&str> = stats.lines().next().unwrap().split(',').collect();
    assert!(header.contains(&"momentum_err_max"), "{stats}");
    let last: Vec<f64> = stats
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap_or(f64::NAN))
        .collect();
    let col = |name: &str| last[header.iter().position(|h| *h == name).unwrap()];
    assert!(col("momentum_err_max") <= 1e-13, "{stats}");
    assert!(col("abs_energy_err_max") > 1e-8, "{stats}");
    let config = std::fs::read_to_string(a.join("config.toml")).unwrap();
    for key in [
        "lagrangian = ",
        "discretization = \"midpoint\"",
        "momentum = \"0,1\"",
    ] {
        assert!(config.contains(key), "{key}: {config}");
    }
    let again = phaseflow()
        .args([
            "run",
            "--quiet",
            "--config",
            a.join("config.toml").to_str().unwrap(),
            "--out",
            b.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(std::fs::read_to_string(b.join("stats.csv")).unwrap(), stats);
}

/// A system file may give `lagrangian` (with its `discretization`) instead of `hamiltonian`:
/// the run equals the same Lagrangian given by flags, and `--discretization` overrides the
/// file's; a file with both formulas is refused.
#[test]
fn a_system_file_gives_a_lagrangian() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pendulum.toml");
    std::fs::write(
        &file,
        "name = \"my-pendulum\"\nlagrangian = \"v^2/2 - g*(1 - cos(q))\"\ndiscretization = \"midpoint\"\ndefault_state = [1.0, 0.5]\n\n[params.g]\ndefault = 2.0\n",
    )
    .unwrap();
    let run = |extra: &[&str], out: &str| {
        let mut args = common::argv(
            "run --method variational --ensemble point --dt 0.05 --steps 100 --backend cpu --precision f64 --quiet",
        );
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend([
            "--out".into(),
            dir.path().join(out).to_str().unwrap().into(),
        ]);
        let o = phaseflow().args(&args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let trajectory =
        |out: &str| std::fs::read_to_string(dir.path().join(out).join("trajectory.csv")).unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(run(&["--system-file", f], "file").0, Some(0));
    let flags = [
        "--lagrangian",
        "v^2/2 - g*(1 - cos(q))",
        "--param",
        "g=2",
        "--center",
        "1,0.5",
    ];
    assert_eq!(
        run(
            &[&flags[..], &["--discretization", "midpoint"]].concat(),
            "flags"
        )
        .0,
        Some(0)
    );
    assert_eq!(trajectory("file"), trajectory("flags"));
    assert_eq!(
        run(&["--system-file", f, "--discretization", "left"], "left").0,
        Some(0)
    );
    assert_eq!(
        run(
            &[&flags[..], &["--discretization", "left"]].concat(),
            "left-flags"
        )
        .0,
        Some(0)
    );
    assert_eq!(trajectory("left"), trajectory("left-flags"));
    assert_ne!(trajectory("left"), trajectory("file"));
    std::fs::write(
        &file,
        "name = \"x\"\nlagrangian = \"v^2/2\"\nhamiltonian = \"p^2/2\"\n",
    )
    .unwrap();
    let (code, err) = run(&["--system-file", f], "both");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("give one of hamiltonian and lagrangian, not both"),
        "{err}"
    );
}

/// `show-kernel` prints the WGSL generated from L: the rule named in its header, ∂L/∂q and
/// ∂L/∂v as `lag_q`, `lag_v`, and the Newton step `discrete_step` of the whole kernel.
#[test]
fn show_kernel_prints_the_generated_step() {
    let o = phaseflow()
        .args([
            "show-kernel",
            "--lagrangian",
            PENDULUM,
            "--discretization",
            "midpoint",
        ])
        .args(["--method", "variational"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for part in [
        "L_d = h L((q0 + q1)/2, (q1 - q0)/h) (midpoint)",
        "fn lag_q(",
        "fn lag_v_dir(",
        "fn lag_solve(",
        "fn discrete_step(",
        "lag_point(q0, q1, real(0.5), real(0.5))",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
}

/// `--velocities`: the initial states give (q, v), and each point starts at p = ∂L/∂v(q, v).
/// With L = m v²/2 − (1 − cos q), m = 2, the state (q, v) = (0.5, 0.3) runs as (q, p) =
/// (0.5, 0.6) does, bit for bit; config.toml records it, so `--config` runs it again; it is
/// refused without a Lagrangian and with a set made in (q, p).
#[test]
fn initial_velocities_start_at_their_legendre_momenta() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &str, center: &str, out: &str| {
        let mut args = common::argv(&format!(
            "run --method variational --param m=2 --ensemble point --center {center} --dt 0.05 \
             --steps 400 --snapshot-every 100 --backend cpu --precision f64 --quiet {extra} --out"
        ));
        args.insert(1, "--lagrangian".into());
        args.insert(2, "m*v^2/2 - (1 - cos(q))".into());
        args.push(dir.path().join(out).to_str().unwrap().into());
        phaseflow().args(&args).output().unwrap()
    };
    let (given, momenta) = (run("--velocities", "0.5,0.3", "v"), run("", "0.5,0.6", "p"));
    for o in [&given, &momenta] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let stats =
        |out: &str| std::fs::read_to_string(dir.path().join(out).join("stats.csv")).unwrap();
    assert_eq!(stats("v"), stats("p"));
    let config = dir.path().join("v").join("config.toml");
    assert!(std::fs::read_to_string(&config)
        .unwrap()
        .contains("velocities = true"));
    let again = phaseflow()
        .args([
            "run",
            "--quiet",
            "--config",
            config.to_str().unwrap(),
            "--out",
        ])
        .arg(dir.path().join("again"))
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(stats("again"), stats("p"));
    // Without a Lagrangian, and with a loop (made in (q, p)): exit 2, naming the flag.
    let hamiltonian = phaseflow()
        .args(common::argv(
            "run --hamiltonian p^2/2 --method verlet --ensemble point --center 0,1 --dt 0.1 \
             --steps 10 --velocities --out",
        ))
        .arg(dir.path().join("h"))
        .output()
        .unwrap();
    let circle = {
        let mut args = common::argv(
            "run --method variational --ensemble circle --points 64 --radius 0.1 --dt 0.05 \
             --steps 10 --velocities --backend cpu --out",
        );
        args.insert(1, "--lagrangian".into());
        args.insert(2, "v^2/2 - (1 - cos(q))".into());
        args.push(dir.path().join("c").to_str().unwrap().into());
        phaseflow().args(&args).output().unwrap()
    };
    for (o, needle) in [
        (&hamiltonian, "--velocities"),
        (&circle, "the circle set is made in (q, p)"),
    ] {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(needle), "{err}");
    }
}

/// The energy of a block's points, computed together, is each point's own energy bit for bit
/// (E = v·∂L/∂v − L at the velocity Newton's method finds for p = ∂L/∂v): on polar Kepler
/// (two coupled velocities), with points where ∂²L/∂v² is singular (r = 0: q1 = 0) and
/// non-finite points, both NaN, and on a block read from its middle (`first`).
#[test]
fn a_blocks_energies_are_its_points_energies_bit_for_bit() {
    let sys = lagrangian(POLAR_KEPLER, Discretization::Trapezoid);
    let n = 300;
    let mut q = vec![0.0; 2 * n];
    let mut p = vec![0.0; 2 * n];
    for i in 0..n {
        let x = i as f64 / n as f64;
        q[i] = 0.5 + 1.5 * x; // r
        q[n + i] = 7.0 * x; // θ
        p[i] = (13.0 * x).sin(); // p_r
        p[n + i] = 0.3 + x; // p_θ
    }
    q[17] = 0.0; // ∂²L/∂v² = diag(1, r²) is singular
    p[n + 40] = f64::NAN;
    q[123] = f64::INFINITY;
    let (first, len) = (5, n - 9);
    let mut block = vec![0.0; len];
    sys.energy_block(0.01, &q, &p, n, first, &mut block);
    let mut singular_or_nan = 0;
    for (j, &e) in block.iter().enumerate() {
        let i = first + j;
        let own = sys.energy(0.01, &[q[i], q[n + i]], &[p[i], p[n + i]]);
        let own = if [q[i], q[n + i], p[i], p[n + i]]
            .iter()
            .all(|x| x.is_finite())
        {
            own
        } else {
            f64::NAN
        };
        assert!(
            e.to_bits() == own.to_bits(),
            "point {i}: block {e:e}, alone {own:e}"
        );
        singular_or_nan += usize::from(e.is_nan());
    }
    assert_eq!(singular_or_nan, 3, "the singular and the non-finite points");
    // H = p_r²/2 + p_θ²/(2r²) − 1/r, checked on one point.
    let i = 200;
    let h = p[i] * p[i] / 2.0 + p[n + i] * p[n + i] / (2.0 * q[i] * q[i]) - 1.0 / q[i];
    assert!(
        (block[i - first] - h).abs() < 1e-12 * h.abs().max(1.0),
        "{} vs {h}",
        block[i - first]
    );
}
