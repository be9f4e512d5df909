//! Holonomic constraints of `--lagrangian` (`--constraint`, `system::lagrangian::constraint`):
//! the spherical pendulum in Cartesian coordinates and the double pendulum written with two
//! length constraints follow the motions of the same systems in angles (Hamiltonians run by
//! another method) at the discretization's order, stay on their constraints to rounding,
//! conserve the discrete angular momentum about the vertical and the area of a loop on the
//! constraint manifold; the GPU kernels generated for them match the CPU engine; initial
//! states off the constraints are put on them with a note; and what cannot run is refused.

mod common;

use std::collections::BTreeMap;

use common::{advance_f64, phaseflow, stats};
use phaseflow::method::Method;
use phaseflow::state::State;
use phaseflow::system::lagrangian::Discretization;
use phaseflow::system::{ExprSpec, System};

/// A spherical pendulum of unit mass and length, z up: its Lagrangian and constraint.
const SPHERICAL: &str = "(v1^2 + v2^2 + v3^2)/2 - q3";
const SPHERE: &str = "q1^2 + q2^2 + q3^2 - 1";

fn hamiltonian(formula: &str) -> System {
    System::from_expression(ExprSpec {
        name: "reference".into(),
        formula: formula.into(),
        dof: None,
        params: BTreeMap::new(),
        default_state: None,
        coordinates: None,
    })
    .unwrap()
}

/// The one point of a state as (q, p).
fn point(s: &State<f64>) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut p) = (vec![0.0; s.d], vec![0.0; s.d]);
    s.point_f64(0, &mut q, &mut p);
    (q, p)
}

/// The largest |difference| of two position vectors.
fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0, |e: f64, (x, y)| e.max((x - y).abs()))
}

/// The spherical pendulum from q = (1, 0, 0), v = (0, 0.5, 0.3) to t = 2: the positions of
/// `trapezoid` and `midpoint` at h and h/2 against the motion in spherical angles (θ from the
/// downward vertical, H = p_θ²/2 + p_φ²/(2 sin²θ) − cos θ, rk4 at h = 10⁻³): errors of order
/// 2 (ratio about 4), `left` of order 1 (about 2); on the sphere and tangent to it throughout.
#[test]
fn the_spherical_pendulum_follows_its_motion_in_angles() {
    let reference = hamiltonian("p1^2/2 + p2^2/(2*sin(q1)^2) - cos(q1)");
    let start = State::from_rows(&[vec![std::f64::consts::FRAC_PI_2, 0.0, 0.3, 0.5]], 2);
    let (angles, _) = point(&advance_f64(&reference, Method::Rk4, 1e-3, 2000, &start));
    let (theta, phi) = (angles[0], angles[1]);
    let exact = [
        theta.sin() * phi.cos(),
        theta.sin() * phi.sin(),
        -theta.cos(),
    ];
    let init = State::from_rows(&[vec![1.0, 0.0, 0.0, 0.0, 0.5, 0.3]], 3);
    for (rule, order) in [
        (Discretization::Trapezoid, 2.0),
        (Discretization::Midpoint, 2.0),
        (Discretization::Left, 1.0),
    ] {
        let sys = common::lagrangian_system(SPHERICAL, rule, &[SPHERE]);
        let error = |h: f64| {
            let end = advance_f64(
                &sys,
                Method::Variational,
                h,
                (2.0 / h).round() as u64,
                &init,
            );
            let (q, p) = point(&end);
            let on = (q.iter().map(|x| x * x).sum::<f64>() - 1.0).abs();
            let tangent: f64 = q.iter().zip(&p).map(|(x, y)| x * y).sum();
            assert!(
                on < 1e-14 && tangent.abs() < 1e-14,
                "{rule:?} h {h}: |g| {on}, q·p {tangent}"
            );
            distance(&q, &exact)
        };
        let (coarse, fine) = (error(0.02), error(0.01));
        let measured = (coarse / fine).log2();
        assert!(
            (measured - order).abs() < 0.15 && fine < 1e-2,
            "{rule:?}: errors {coarse:e}, {fine:e}, order {measured}"
        );
    }
}

/// The double pendulum (unit masses and rods, y up) in Cartesian coordinates with its two
/// length constraints, from the built-in `double-pendulum`'s default state (θ = (0.5, 1.0)
/// from the downward vertical, at rest), against that built-in's motion in angles (rk4 at
/// h = 10⁻³) to t = 2: both bobs' positions at second order in h.
#[test]
fn the_double_pendulum_with_two_length_constraints_follows_the_built_in() {
    let (t1, t2) = (0.5f64, 1.0f64);
    let bobs = |t1: f64, t2: f64| {
        let (x1, y1) = (t1.sin(), -t1.cos());
        [x1, y1, x1 + t2.sin(), y1 - t2.cos()]
    };
    let builtin = common::system("double-pendulum");
    let start = State::from_rows(&[vec![t1, t2, 0.0, 0.0]], 2);
    let (angles, _) = point(&advance_f64(&builtin, Method::Rk4, 1e-3, 2000, &start));
    let exact = bobs(angles[0], angles[1]);
    let rods = ["q1^2 + q2^2 - 1", "(q3 - q1)^2 + (q4 - q2)^2 - 1"];
    let l = "(v1^2 + v2^2 + v3^2 + v4^2)/2 - q2 - q4";
    let sys = common::lagrangian_system(l, Discretization::Trapezoid, &rods);
    let mut init = bobs(t1, t2).to_vec();
    init.extend([0.0; 4]);
    let init = State::from_rows(&[init], 4);
    let error = |h: f64| {
        let end = advance_f64(
            &sys,
            Method::Variational,
            h,
            (2.0 / h).round() as u64,
            &init,
        );
        let (q, _) = point(&end);
        let rod1 = (q[0] * q[0] + q[1] * q[1] - 1.0).abs();
        let rod2 = ((q[2] - q[0]).powi(2) + (q[3] - q[1]).powi(2) - 1.0).abs();
        assert!(
            rod1 < 1e-14 && rod2 < 1e-14,
            "h {h}: rods off by {rod1:e}, {rod2:e}"
        );
        distance(&q, &exact)
    };
    let (coarse, fine) = (error(0.01), error(0.005));
    let order = (coarse / fine).log2();
    assert!(
        (order - 2.0).abs() < 0.15 && fine < 1e-3,
        "errors {coarse:e}, {fine:e}, order {order}"
    );
}

/// The command line over 2 × 10⁴ steps in f64: constraint_err_max at rounding, the discrete
/// angular momentum about the vertical (`--momentum -q2,q1,0`) conserved to 10⁻¹², the energy
/// error bounded at O(h²) and not at rounding; config.toml records the constraint and reruns
/// to the same stats.csv.
#[test]
fn the_spherical_pendulum_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let o = phaseflow()
        .args(["run", "--lagrangian", SPHERICAL, "--constraint", SPHERE])
        .args(["--momentum", "-q2,q1,0", "--method", "variational"])
        .args(["--ensemble", "gaussian", "--points", "8", "--sigma", "0.05"])
        .args([
            "--center",
            "1,0,0,0,0.5,0.3",
            "--dt",
            "0.05",
            "--steps",
            "20000",
        ])
        .args([
            "--snapshot-every",
            "5000",
            "--backend",
            "cpu",
            "--precision",
            "f64",
        ])
        .arg("--out")
        .arg(&a)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // The Gaussian cloud is off the sphere: it was put on it, and said so.
    assert!(
        err.contains("the initial states of 8 points were put on the constraints"),
        "{err}"
    );
    let rows = stats(&a);
    for row in &rows {
        assert!(row["constraint_err_max"] <= 1e-15, "{row:?}");
        assert!(row["momentum_err_max"] <= 1e-12, "{row:?}");
        assert!(row["abs_energy_err_max"] <= 3e-3, "{row:?}");
        assert_eq!(row["unconverged"], 0.0, "{row:?}");
    }
    assert!(rows.last().unwrap()["abs_energy_err_max"] > 1e-6);
    let config = std::fs::read_to_string(a.join("config.toml")).unwrap();
    assert!(
        config.contains("constraints = [\"q1^2 + q2^2 + q3^2 - 1\"]"),
        "{config}"
    );
    let again = phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(a.join("config.toml"))
        .arg("--out")
        .arg(&b)
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(b.join("stats.csv")).unwrap(),
        std::fs::read_to_string(a.join("stats.csv")).unwrap()
    );
}

/// A loop of initial states around the sphere's equator (q1 vertical here), put on the
/// constraints node by node (refinement's new nodes too; stderr says so): Σ ∮ p dq, the symplectic form on
/// the constraint manifold, kept to 10⁻¹² relative over 300 steps while the loop stretches.
#[test]
fn a_loop_on_the_constraint_manifold_keeps_its_area() {
    let dir = tempfile::tempdir().unwrap();
    let o = phaseflow()
        .args(["run", "--lagrangian", "(v1^2 + v2^2 + v3^2)/2 - q1"])
        .args(["--constraint", SPHERE, "--method", "variational"])
        .args([
            "--ensemble",
            "circle",
            "--center",
            "0,1,0,0,0,0.5",
            "--radius",
            "0.2",
        ])
        .args(["--points", "64", "--dt", "0.05", "--steps", "300"])
        .args([
            "--snapshot-every",
            "100",
            "--refine-tol",
            "1e-3",
            "--backend",
            "cpu",
        ])
        .args(["--precision", "f64"])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "every node of the loop, and every node refinement adds, is put on the constraints"
        ),
        "{err}"
    );
    let rows = stats(dir.path());
    let last = rows.last().unwrap();
    assert!(rows[0]["area"] > 0.1, "{rows:?}");
    assert!((last["area_ratio"] - 1.0).abs() < 1e-12, "{last:?}");
    assert!(last["loop_nodes"] > 2.0 * rows[0]["loop_nodes"], "{rows:?}");
    assert!(last["constraint_err_max"] <= 1e-15, "{last:?}");
}

/// A study of a constrained Lagrangian (a pendulum in the plane, in Cartesian coordinates)
/// runs without the tangent map it cannot carry (a study turns it on by default), keeps the
/// area of a loop put on the constraints, and its report says the loop was put on them.
#[test]
fn a_study_of_a_constrained_lagrangian() {
    let dir = tempfile::tempdir().unwrap();
    let o = phaseflow()
        .args(["study", "--lagrangian", "(v1^2 + v2^2)/2 - q2"])
        .args([
            "--constraint",
            "q1^2 + q2^2 - 1",
            "--methods",
            "variational",
        ])
        .args(["--dt", "0.1", "--t-end", "50", "--ensemble", "circle"])
        .args(["--center", "0,-1,0,0", "--radius", "0.3", "--points", "64"])
        .args(["--precision", "f64", "--backend", "cpu"])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(report.contains("Tangent map: off"), "{report}");
    assert!(
        report.contains("put on the constraints g(q) = 0"),
        "{report}"
    );
    assert!(report.contains("the area was kept to rounding"), "{report}");
}

/// `validate`: the generated WGSL step with constraints against the CPU engine on lavapipe,
/// for the four one-segment rules, in f64 and f32, on a cloud put on the sphere.
#[test]
fn gpu_kernels_with_constraints_match_the_cpu() {
    for precision in ["f64", "f32"] {
        for rule in ["left", "right", "midpoint", "trapezoid"] {
            let o = phaseflow()
                .args([
                    "validate",
                    "--lagrangian",
                    SPHERICAL,
                    "--constraint",
                    SPHERE,
                ])
                .args(["--discretization", rule, "--method", "variational"])
                .args(["--ensemble", "gaussian", "--center", "1,0,0,0,0.5,0.3"])
                .args(["--sigma", "0.05", "--points", "128", "--dt", "0.05"])
                .args(["--steps", "100", "--precision", precision])
                .output()
                .unwrap();
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success() && out.contains("PASS"),
                "{rule} {precision}: {out}{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// What a constrained Lagrangian cannot do is refused with exit 2, the reason and the fix:
/// a Galerkin rule, a constraint that reads a velocity or no position, as many constraints
/// as degrees of freedom, a constraint on a Hamiltonian, an initial state from which the
/// constraint cannot be reached, and the tangent map (singular on the full space).
#[test]
fn what_constraints_cannot_do_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "--lagrangian",
                SPHERICAL,
                "--constraint",
                SPHERE,
                "--discretization",
                "gauss2",
            ],
            "takes a discrete Lagrangian of one segment",
        ),
        (
            &["--lagrangian", SPHERICAL, "--constraint", "q1*v1"],
            "it depends on a velocity",
        ),
        (
            &["--lagrangian", SPHERICAL, "--constraint", "2 - 1"],
            "it does not depend on q",
        ),
        (
            &["--lagrangian", "v^2/2", "--constraint", "q - 1"],
            "leave nothing to move",
        ),
        (
            &["--hamiltonian", "p^2/2 + q^2/2", "--constraint", "q - 1"],
            "apply to --lagrangian",
        ),
        (
            &[
                "--lagrangian",
                SPHERICAL,
                "--constraint",
                "q1^2 + q2^2 + q3^2 + 1",
            ],
            "could not be put on the constraints",
        ),
        (
            &[
                "--lagrangian",
                SPHERICAL,
                "--constraint",
                SPHERE,
                "--tangent",
            ],
            "tangent",
        ),
    ];
    for (flags, says) in cases {
        let o = phaseflow()
            .arg("run")
            .args(flags)
            .args(["--method", "variational", "--center", "1,0,0,0,0.5,0.3"])
            .args(["--ensemble", "point", "--dt", "0.05", "--steps", "10"])
            .args(["--backend", "cpu"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
        assert!(!err.contains("panicked"), "{flags:?}: {err}");
        assert!(!out.exists(), "{flags:?}: wrote {}", out.display());
    }
}

/// A system file may give `constraints = [...]` beside `lagrangian`: the run equals the same
/// Lagrangian and constraint given by flags, `--constraint` replaces the file's, and a file
/// with constraints beside a Hamiltonian is refused.
#[test]
fn a_system_file_gives_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spherical.toml");
    let write = |text: &str| std::fs::write(&file, text).unwrap();
    write(&format!(
        "name = \"spherical\"\nlagrangian = \"{SPHERICAL}\"\nconstraints = [\"{SPHERE}\"]\n"
    ));
    let run = |system: &[&str], out: &str| {
        let o = phaseflow()
            .arg("run")
            .args(system)
            .args(["--method", "variational", "--ensemble", "point"])
            .args([
                "--center",
                "1,0,0,0,0.5,0.3",
                "--dt",
                "0.05",
                "--steps",
                "100",
            ])
            .args(["--backend", "cpu", "--precision", "f64", "--quiet", "--out"])
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        match o.status.code() {
            Some(0) => Ok(std::fs::read_to_string(dir.path().join(out).join("stats.csv")).unwrap()),
            code => Err((code, err)),
        }
    };
    let path = file.to_str().unwrap();
    let from_file = run(&["--system-file", path], "file").unwrap();
    let by_flags = run(
        &["--lagrangian", SPHERICAL, "--constraint", SPHERE],
        "flags",
    )
    .unwrap();
    let strip = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&from_file), strip(&by_flags));
    // The flag's constraint replaces the file's: a sphere of radius 2 is another motion.
    let other = [
        "--system-file",
        path,
        "--constraint",
        "q1^2 + q2^2 + q3^2 - 4",
    ];
    assert_ne!(strip(&run(&other, "other").unwrap()), strip(&from_file));
    write(&format!(
        "name = \"h\"\nhamiltonian = \"p1^2/2 + p2^2/2 + p3^2/2\"\nconstraints = [\"{SPHERE}\"]\n"
    ));
    let (code, err) = run(&["--system-file", path], "refused").unwrap_err();
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("apply to a lagrangian, not to a hamiltonian"),
        "{err}"
    );
}
