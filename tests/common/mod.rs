//! Helpers shared by the integration tests: the binary under test and the argument lists of
//! the runs several tests make, its output files read back, small CPU-engine runs in f64, and a
//! NaN-aware comparison for tolerances.
// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::ensemble::{EnsembleRequest, State};
use phaseflow::method::Method;
use phaseflow::system::System;

/// The `phaseflow` binary built for this test run.
pub fn phaseflow() -> Command {
    Command::cargo_bin("phaseflow").unwrap()
}

/// Arguments written as on a command line, split at white space: a test's flags in one line
/// (none of the values given this way holds a space).
pub fn argv(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// The flags of a small pendulum run with Verlet on a seeded disk: `points` points, `steps`
/// steps of `dt`. Callers put the command (`run`, `validate`) before them and append the rest
/// (snapshots, checkpoints, backend, --quiet, --out).
pub fn pendulum_disk(points: usize, dt: f64, steps: u64) -> Vec<String> {
    argv(&format!(
        "--system pendulum --method verlet --ensemble disk \
         --points {points} --dt {dt} --steps {steps}"
    ))
}

/// A tiny `study` of the oscillator on the CPU engine, --quiet: `methods` (comma-separated) on
/// a disk of 50 points, 10 steps of 0.1. Callers append --out and anything else.
pub fn oscillator_study(methods: &str) -> Vec<String> {
    argv(&format!(
        "study --system oscillator --methods {methods} --dt 0.1 --steps 10 \
         --ensemble disk --points 50 --backend cpu --quiet"
    ))
}

/// A `run` of one state of `system` with Verlet on the GPU engine, a single step of `dt`,
/// --quiet: the large kernels a CPU driver refuses. Callers append the system's --param,
/// --tangent and --out.
pub fn gpu_point_run(system: &str, dt: f64) -> Vec<String> {
    argv(&format!(
        "run --system {system} --method verlet --ensemble point --dt {dt} --steps 1 \
         --backend gpu --quiet"
    ))
}

/// Files written by `c`'s process limited to `limit` bytes, SIGXFSZ ignored: a write past the
/// limit fails (EFBIG) as on a full disk.
pub fn limit_file_size(c: &mut std::process::Command, limit: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

/// `phaseflow ARGS --quiet --out OUT`, which must succeed.
pub fn run_quiet(args: &str, out: &Path) {
    phaseflow()
        .args(argv(args))
        .args(["--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

/// The vertical disk at h = 0.01 for 3·10⁴ steps on `backend` (f64, f32 plain and f32
/// compensated), each run's worst `rel_energy_err_max` over its rows (every 1000 steps), and
/// the compensated run's within 10× of the f64 run's: what `--compensated` promises for
/// discrete maps on either engine (each takes the f32 step in f64 from the state's pairs and
/// starts from the f64 point's pairs).
pub fn compensated_vertical_disk_within_ten_times_f64(backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    let worst_error = |name: &str, precision: &str| {
        let out = dir.path().join(name);
        run_quiet(
            &format!(
                "run --system vertical-disk --method variational --dt 0.01 --steps 30000 \
                 --snapshot-every 1000 --ensemble point --backend {backend} --precision {precision}"
            ),
            &out,
        );
        let rows = stats(&out);
        assert_eq!(
            rows.len(),
            31,
            "{name}: a row every 1000 steps, from step 0"
        );
        rows.iter()
            .map(|row| row["rel_energy_err_max"])
            .fold(0.0, f64::max)
    };
    let f64e = worst_error("f64", "f64");
    let plain = worst_error("f32", "f32");
    let carried = worst_error("compensated", "f32 --compensated");
    eprintln!(
        "vertical disk on {backend}, 3e4 steps, worst over the run: f64 {f64e:.2e}, f32 {plain:.2e}, f32 compensated {carried:.2e}"
    );
    assert!(f64e > 0.0 && plain > 1e-5, "f64 {f64e:e}, f32 {plain:e}");
    assert!(
        carried <= 10.0 * f64e,
        "f32 compensated {carried:e} against f64 {f64e:e}"
    );
}

/// A text file's contents; the panic names the file.
pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file under `dir` (a link as the path it points to), to tell that a refusal changed
/// nothing.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let (path, rel) = (e.path(), rel.join(e.file_name()));
            let kind = e.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, target.display().to_string().into_bytes());
            } else if kind.is_dir() {
                walk(&path, &rel, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, Path::new(""), &mut out);
    out
}

/// A child process killed (SIGKILL) and reaped when dropped before it was waited for, so that
/// a test that fails while the process runs, or is paused, leaves none behind.
pub struct Reaped(Option<std::process::Child>);

impl Reaped {
    pub fn new(child: std::process::Child) -> Self {
        Reaped(Some(child))
    }

    pub fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, std::process::Child::id)
    }

    /// Send `sig`; for SIGSTOP, wait until the process has stopped.
    pub fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill(2) on the child's pid, which has not been waited for (`wait` takes it).
        assert_eq!(unsafe { libc::kill(self.id() as libc::pid_t, sig) }, 0);
        let stat = format!("/proc/{}/stat", self.id());
        let t0 = std::time::Instant::now();
        // The state follows the name in parentheses: T once stopped.
        let stopped = || {
            let text = std::fs::read_to_string(&stat).unwrap();
            text.rsplit(')').next().unwrap().starts_with(" T")
        };
        while sig == libc::SIGSTOP && !stopped() {
            assert!(t0.elapsed().as_secs() < 10, "the process never stopped");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Wait for the process to end: its status and output.
    pub fn wait(mut self) -> std::process::Output {
        let child = self.0.take().expect("not waited for yet");
        child.wait_with_output().unwrap()
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The run folder `dir`'s manifest but the lines of config.toml, which records the folder's
/// own --out (its size and CRC-32 differ between two folders of one run).
pub fn manifest_but_config(dir: &Path) -> String {
    read(&dir.join("manifest.toml"))
        .lines()
        .filter(|l| !l.starts_with("\"config.toml\" = "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `stats.csv` and every `states/*.npy` of the run folder `want` are byte for byte those of
/// `got` (shards merged, several devices or MPI ranks against one process); `what` names the
/// run in a failure.
pub fn same_stats_and_states(want: &Path, got: &Path, what: &str) {
    let mut names = vec!["stats.csv".to_string()];
    if let Ok(d) = std::fs::read_dir(want.join("states")) {
        names.extend(d.map(|e| format!("states/{}", e.unwrap().file_name().to_string_lossy())));
    }
    for name in &names {
        assert_eq!(
            std::fs::read(want.join(name)).unwrap(),
            std::fs::read(got.join(name)).unwrap_or_default(),
            "{what}: {name} differs"
        );
    }
}

/// A CSV cell as a number; empty cells (columns that do not apply) read as NaN.
pub fn num(cell: &str) -> f64 {
    if cell.is_empty() {
        f64::NAN
    } else {
        cell.parse().unwrap()
    }
}

/// The verdict line of `method` in a study's report.md ("- **method** (h = …): …").
pub fn verdict<'a>(report: &'a str, method: &str) -> &'a str {
    let start = format!("- **{method}** ");
    report
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no verdict for {method}:\n{report}"))
}

/// A CSV file's rows as column → cell text (empty cells too).
pub fn csv_cells(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .zip(rec.iter())
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect()
        })
        .collect()
}

/// `dir/stats.csv` as rows of column → value (empty cells are absent).
pub fn stats(dir: &Path) -> Vec<BTreeMap<String, f64>> {
    csv_cells(&dir.join("stats.csv"))
        .into_iter()
        .map(|row| {
            row.into_iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k, v.parse::<f64>().unwrap()))
                .collect()
        })
        .collect()
}

/// `x < bound`, and false when either is NaN: a NaN deviation never passes a tolerance.
pub fn below(x: f64, bound: f64) -> bool {
    x < bound
}

pub fn system(name: &str) -> System {
    System::new(name, &BTreeMap::new()).unwrap()
}

/// The chaos indicators' default deviation vector for `sys`: a seeded random direction per
/// point, measured in the system's natural metric.
pub fn deviation(sys: &System) -> phaseflow::chaos::Deviation {
    phaseflow::chaos::Deviation::resolve(None, None, sys.dof(), sys.masses()).unwrap()
}

/// `state` with the default deviation vectors (`deviation`) drawn from seed 7 (its points the
/// ensemble's first), as `run --chaos` starts them.
pub fn with_deviation(sys: &System, state: &State<f64>) -> State<f64> {
    let deviation = deviation(sys);
    state.with_deviation(|i, row| deviation.write(7, i, row))
}

/// An integrator of `sys` at precision `T` that measures the deviation vector in the
/// default metric (`deviation`), as `run --chaos` builds it.
pub fn chaos_integrator<T: phaseflow::float::Real>(sys: &System, m: Method, h: f64) -> Integrator {
    Integrator::with_default_solver::<T>(sys.clone(), m, h)
        .unwrap()
        .with_chaos_weights(deviation(sys).weights())
}

/// A state from (q, p) pairs (d = 1).
pub fn state_1d(points: &[(f64, f64)]) -> State<f64> {
    let rows: Vec<Vec<f64>> = points.iter().map(|&(q, p)| vec![q, p]).collect();
    State::from_rows(&rows, 1)
}

/// Advance with the CPU engine in f64 and return the final state.
pub fn advance_f64(
    sys: &System,
    method: Method,
    h: f64,
    steps: u64,
    init: &State<f64>,
) -> State<f64> {
    let mut e = CpuEngine::<f64>::new(
        &Integrator::with_default_solver::<f64>(sys.clone(), method, h).unwrap(),
        init.clone(),
    );
    e.advance(steps).unwrap();
    e.state().unwrap().clone()
}

/// The largest |difference| of two states' q and p, component by component.
pub fn max_abs_diff(a: &State<f64>, b: &State<f64>) -> f64 {
    a.q.iter()
        .zip(&b.q)
        .chain(a.p.iter().zip(&b.p))
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// A seeded disk of points around a Hamiltonian system's default centre (a discrete map's
/// start depends on the run's step: `disk_at`).
pub fn disk(sys: &System, points: usize, radius: f64) -> State<f64> {
    assert!(!sys.variational(), "{}: use disk_at", sys.name());
    disk_at(sys, 1.0, points, radius)
}

/// A seeded disk of points around the system's default centre, for a run at step `h` (a
/// nonholonomic map's points start on its discrete constraint at that step).
pub fn disk_at(sys: &System, h: f64, points: usize, radius: f64) -> State<f64> {
    EnsembleRequest::disk(points, radius, 7)
        .resolve(sys)
        .unwrap()
        .generate(sys, h)
        .unwrap()
}

/// 16 oscillator states on the circle of radius 0.9, 0.39 rad apart (the compensated-summation
/// tests' ensemble).
pub fn oscillator_ring() -> State<f64> {
    let points: Vec<(f64, f64)> = (0..16)
        .map(|i| {
            let a = i as f64 * 0.39;
            (0.9 * a.cos(), 0.9 * a.sin())
        })
        .collect();
    state_1d(&points)
}

/// Largest drift, relative to its start, of velocity Verlet's exact quadratic invariant of the
/// oscillator (m = k = 1) at step h, p² + (1 − h²/4) q² (PHYSICS.md §5), from `start` to `end`
/// (read with their carried errors).
pub fn verlet_invariant_drift<T: phaseflow::float::Real>(
    start: &State<T>,
    end: &State<T>,
    h: f64,
) -> f64 {
    let form = |s: &State<f64>, i: usize| s.p[i] * s.p[i] + (1.0 - h * h / 4.0) * s.q[i] * s.q[i];
    let (start, end) = (start.primal_f64(), end.primal_f64());
    (0..start.n)
        .map(|i| (form(&end, i) / form(&start, i) - 1.0).abs())
        .fold(0.0, f64::max)
}

/// A Lagrangian system (`--lagrangian`) of `formula` under `rule`, with holonomic
/// `constraints`, as the command line builds it.
pub fn lagrangian_system(
    formula: &str,
    rule: phaseflow::system::lagrangian::Discretization,
    constraints: &[&str],
) -> System {
    System::from_lagrangian(phaseflow::system::lagrangian::LagrangianSpec {
        expr: phaseflow::system::ExprSpec {
            name: "lagrangian".into(),
            formula: formula.into(),
            dof: None,
            params: BTreeMap::new(),
            default_state: None,
            coordinates: None,
        },
        discretization: rule,
        momentum: None,
        velocities: false,
        constraints: constraints.iter().map(|g| g.to_string()).collect(),
    })
    .unwrap()
}
