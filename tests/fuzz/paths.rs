//! Bounded fuzzing of output paths: from a fixed seed, hostile setups at the path a command
//! writes to (a file, links to a file, to a folder, to nothing and in a loop, a named pipe, a
//! device, a path under a file, a read-only folder, a folder holding the user's files or a
//! finished run, a file-size limit standing for a full disk), given to `run`, `study`,
//! `bench --csv`, `plot --out` and `merge --out`. Every outcome must be exit 0, or exit 2 with a
//! message (exit 1 only where a write really failed: the size limit), never a crash; what the
//! user had at the path is left as it was; and a failed command leaves nothing that looks
//! complete (no manifest, no cut row, no empty folder of its own making).

use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use tempfile::TempDir;

use crate::common::{argv, limit_file_size, oscillator_study, pendulum_disk};
use crate::Rng;

/// The setups below, the last being the file-size limit.
const SETUPS: usize = 13;
/// File-size limits tried beyond one a command.
const EXTRA_LIMITS: usize = 25;

/// The commands, each writing to one path: a folder (`--out`) or a file (`bench --csv`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmd {
    Run,
    Study,
    Bench,
    Plot,
    Merge,
}

/// What is at the path (or above it) before the command.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setup {
    Nothing,
    File,
    LinkToFile,
    LinkToEmptyFolder,
    Dangling,
    Loop,
    Fifo,
    Device,
    UnderFile,
    ReadOnlyFolder,
    ForeignFiles,
    FinishedRun,
    SizeLimit(u64),
}

/// Something of the user's that must be as it was after the command.
enum Kept {
    File(PathBuf, Vec<u8>),
    Link(PathBuf, PathBuf),
    Fifo(PathBuf),
    Device(PathBuf),
}

impl Kept {
    fn file(p: &Path) -> Kept {
        Kept::File(p.to_path_buf(), std::fs::read(p).unwrap())
    }

    fn check(&self, case: &str) {
        let kind = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.file_type());
        match self {
            Kept::File(p, bytes) => {
                assert!(kind(p).is_ok_and(|t| t.is_file()), "{case}: {p:?} replaced");
                assert_eq!(&std::fs::read(p).unwrap(), bytes, "{case}: {p:?} changed");
            }
            Kept::Link(p, to) => {
                assert!(kind(p).is_ok_and(|t| t.is_symlink()), "{case}: link {p:?}");
                assert_eq!(&std::fs::read_link(p).unwrap(), to, "{case}: {p:?}");
            }
            Kept::Fifo(p) => assert!(kind(p).is_ok_and(|t| t.is_fifo()), "{case}: {p:?}"),
            Kept::Device(p) => {
                assert!(kind(p).is_ok_and(|t| t.is_char_device()), "{case}: {p:?}")
            }
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn c_path(p: &Path) -> std::ffi::CString {
    std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap()
}

/// phaseflow with `args`, files limited to `limit` bytes if given (SIGXFSZ ignored, so a write
/// past it fails as on a full disk); its exit code (`None`: killed by a signal) and stderr.
/// A command still running after 60 s (a named pipe opened, waiting for a reader) fails.
fn phaseflow(args: &[String], limit: Option<u64>) -> (Option<i32>, String) {
    let mut c = Command::cargo_bin("phaseflow").unwrap();
    // stderr through a pipe: a file would fall under the size limit too.
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(limit) = limit {
        limit_file_size(&mut c, limit);
    }
    let mut child = c.spawn().unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
        text
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?}: still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code(), reader.join().unwrap())
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A small pendulum run on the CPU engine (`extra` after the common flags, `--out` last; with
/// `--shard`, two shards' worth of points, shards starting at multiples of 4096).
fn run_args(extra: &[&str], out: &Path) -> Vec<String> {
    let points = if extra.contains(&"--shard") {
        8192
    } else {
        100
    };
    let mut a = [argv("run"), pendulum_disk(points, 0.05, 10)].concat();
    a.extend(argv("--backend cpu --quiet"));
    a.extend(strings(extra));
    a.push("--out".into());
    a.push(out.display().to_string());
    a
}

fn must_succeed(args: &[String]) {
    let (code, stderr) = phaseflow(args, None);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
}

/// The command `cmd` writing to `path`, from the finished run `run` (plot) or the shards
/// (merge); `force` adds --force where the command takes it.
fn command(cmd: Cmd, path: &Path, force: bool, run: &Path, shards: &[PathBuf]) -> Vec<String> {
    let p = path.display().to_string();
    let mut a = match cmd {
        Cmd::Run => run_args(&["--save-states"], path),
        Cmd::Study => {
            let mut a = oscillator_study("verlet");
            a.extend(["--out".to_string(), p]);
            a
        }
        Cmd::Bench => {
            let mut a = strings(&["bench", "--points", "100", "--steps", "2", "--no-gpu"]);
            a.extend(["--csv".to_string(), p]);
            a
        }
        Cmd::Plot => {
            let mut a = strings(&["plot", "--quiet"]);
            a.extend([run.display().to_string(), "--out".into(), p]);
            a
        }
        Cmd::Merge => {
            let mut a = strings(&["merge", "--quiet"]);
            a.extend(shards.iter().map(|s| s.display().to_string()));
            a.extend(["--out".to_string(), p]);
            a
        }
    };
    if force && matches!(cmd, Cmd::Run | Cmd::Study | Cmd::Merge) {
        a.push("--force".into());
    }
    a
}

/// Lay `setup` out in the empty folder `dir` for `cmd` (with `--force` or not): the path the
/// command gets, and what of the user's must be kept.
fn lay_out(
    setup: Setup,
    (cmd, force): (Cmd, bool),
    dir: &Path,
    finished: &Path,
    rng: &mut Rng,
) -> (PathBuf, Vec<Kept>) {
    let out = dir.join("out");
    let mine = dir.join("mine.txt");
    std::fs::write(&mine, "the user's\n").unwrap();
    let mut kept = vec![Kept::file(&mine)];
    match setup {
        Setup::Nothing | Setup::SizeLimit(_) => {}
        Setup::File => {
            std::fs::write(&out, "the user's file\n").unwrap();
            // A regular file is what `--csv` replaces; as a folder it is refused.
            if cmd != Cmd::Bench {
                kept.push(Kept::file(&out));
            }
        }
        Setup::LinkToFile => {
            symlink(&mine, &out).unwrap();
            kept.push(Kept::Link(out.clone(), mine.clone()));
        }
        Setup::LinkToEmptyFolder => {
            let folder = dir.join("elsewhere");
            std::fs::create_dir(&folder).unwrap();
            symlink(&folder, &out).unwrap();
            kept.push(Kept::Link(out.clone(), folder));
        }
        Setup::Dangling => {
            let to = dir.join("nowhere");
            symlink(&to, &out).unwrap();
            kept.push(Kept::Link(out.clone(), to));
        }
        Setup::Loop => {
            let other = dir.join("loop");
            symlink(&other, &out).unwrap();
            symlink(&out, &other).unwrap();
            kept.push(Kept::Link(out.clone(), other.clone()));
            kept.push(Kept::Link(other, out.clone()));
        }
        Setup::Fifo => {
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c_path(&out).as_ptr(), 0o644) }, 0);
            kept.push(Kept::Fifo(out.clone()));
        }
        Setup::Device => {
            // As root a node of the full device (1, 7) made here, so that a fault replacing it
            // harms nothing else; a user cannot replace /dev/full itself.
            if !is_root() {
                kept.push(Kept::Device("/dev/full".into()));
                return ("/dev/full".into(), kept);
            }
            let mode = libc::S_IFCHR | 0o666;
            // SAFETY: a valid NUL-terminated path.
            let made = unsafe { libc::mknod(c_path(&out).as_ptr(), mode, libc::makedev(1, 7)) };
            assert_eq!(made, 0, "mknod");
            kept.push(Kept::Device(out.clone()));
        }
        Setup::UnderFile => return (mine.join(["out", "sub"][rng.below(2)]), kept),
        Setup::ReadOnlyFolder => {
            let ro = dir.join("read-only");
            std::fs::create_dir(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            return (ro.join("out"), kept);
        }
        Setup::ForeignFiles => {
            let name = [
                "notes.txt",
                "states/step_abc.npy",
                "states/step_-1.npy",
                "parts/step_x.bin",
                "checkpoint/mine.ckpt",
                "stats.csv.bak",
            ][rng.below(6)];
            let file = out.join(name);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, "the user's\n").unwrap();
            kept.push(Kept::file(&file));
        }
        Setup::FinishedRun => {
            copy_dir(finished, &out);
            // --force replaces a phaseflow run (a study's too); nothing else does.
            if !(force && matches!(cmd, Cmd::Run | Cmd::Study | Cmd::Merge)) {
                kept.push(Kept::file(&out.join("manifest.toml")));
                kept.push(Kept::file(&out.join("stats.csv")));
            }
        }
    }
    (out, kept)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes (a folder that must not change).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all.extend(snapshot(&p));
        } else {
            all.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    all.sort();
    all
}

#[test]
fn hostile_output_paths_are_refused_or_written_safely() {
    let tmp = TempDir::new().unwrap();
    // The inputs: a finished run to plot and two shards to merge, which must not change.
    let finished = tmp.path().join("finished");
    must_succeed(&run_args(&["--save-states"], &finished));
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let dir = tmp.path().join(format!("shard-{k}"));
            must_succeed(&run_args(&["--shard", &format!("{k}/2")], &dir));
            dir
        })
        .collect();
    let inputs: Vec<_> = [&finished, &shards[0], &shards[1]]
        .iter()
        .map(|d| snapshot(d))
        .collect();
    let commands = [Cmd::Run, Cmd::Study, Cmd::Bench, Cmd::Plot, Cmd::Merge];
    let mut rng = Rng(0x5eed_0f9a_7e11);
    let mut outcomes = [0usize; 3];
    // Every command with every setup, then more file-size limits; the names, limits and
    // --force drawn from the generator.
    let cases = (0..commands.len() * SETUPS).chain(0..EXTRA_LIMITS);
    for (case, n) in cases.enumerate() {
        let (cmd, kind) = match case < commands.len() * SETUPS {
            true => (commands[n / SETUPS], n % SETUPS),
            false => (commands[rng.below(commands.len())], SETUPS - 1),
        };
        let setup = match kind {
            0 => Setup::Nothing,
            1 => Setup::File,
            2 => Setup::LinkToFile,
            3 => Setup::LinkToEmptyFolder,
            4 => Setup::Dangling,
            5 => Setup::Loop,
            6 => Setup::Fifo,
            7 => Setup::Device,
            8 => Setup::UnderFile,
            // Root writes into a read-only folder regardless, so there the case says nothing
            // and is left out; every other setup runs as any user.
            9 if is_root() => continue,
            9 => Setup::ReadOnlyFolder,
            10 => Setup::ForeignFiles,
            11 => Setup::FinishedRun,
            _ => Setup::SizeLimit(rng.below(40_000) as u64),
        };
        let force = rng.below(2) == 0;
        let dir = tmp.path().join(format!("case-{case}"));
        std::fs::create_dir(&dir).unwrap();
        let (path, kept) = lay_out(setup, (cmd, force), &dir, &finished, &mut rng);
        let args = command(cmd, &path, force, &finished, &shards);
        let limit = match setup {
            Setup::SizeLimit(l) => Some(l),
            _ => None,
        };
        let (code, stderr) = phaseflow(&args, limit);
        let what = format!("case {case}: {cmd:?} into {setup:?} (force {force}), exit {code:?}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        match code {
            Some(0) => outcomes[0] += 1,
            Some(2) => {
                assert!(
                    stderr.starts_with("Error: "),
                    "{what}: no message: {stderr}"
                );
                outcomes[2] += 1;
            }
            // A write that failed (the disk is full), said so.
            Some(1) if limit.is_some() => {
                assert!(stderr.starts_with("Error: writing"), "{what}: {stderr}");
                outcomes[1] += 1;
            }
            _ => panic!("{what}: {stderr}"),
        }
        for k in &kept {
            k.check(&what);
        }
        // What each setup must come to: refused where the path is the user's, written where
        // it is free (or phaseflow's own, with --force).
        let refused = match setup {
            Setup::Nothing => false,
            Setup::LinkToEmptyFolder => cmd == Cmd::Bench,
            Setup::File => cmd != Cmd::Bench,
            Setup::FinishedRun => cmd == Cmd::Plot || !force || cmd == Cmd::Bench,
            // Figures may join the user's files in a folder of theirs (not a run's).
            Setup::ForeignFiles => cmd != Cmd::Plot,
            Setup::SizeLimit(_) => code != Some(0),
            _ => true,
        };
        assert_eq!(code != Some(0), refused, "{what}: {stderr}");
        let folder = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
        let manifest = path.join("manifest.toml");
        match (code, cmd) {
            (Some(0), Cmd::Bench) => {
                let csv = std::fs::read_to_string(&path).unwrap();
                assert!(csv.starts_with("backend,") && csv.ends_with('\n'), "{what}");
            }
            (Some(0), Cmd::Plot) => assert!(path.join("report.md").is_file(), "{what}"),
            (Some(0), _) => assert!(manifest.is_file(), "{what}: not complete"),
            // The finished run at the path is one of `kept`; anything else is incomplete.
            (_, _) if setup != Setup::FinishedRun && folder => {
                assert!(
                    !manifest.exists(),
                    "{what}: a failed command looks complete"
                );
                // A folder the command made (none was there) is not left empty.
                let made = matches!(setup, Setup::Nothing | Setup::SizeLimit(_));
                assert!(
                    !made || std::fs::read_dir(&path).unwrap().next().is_some(),
                    "{what}: an empty folder left"
                );
                if let Ok(stats) = std::fs::read_to_string(path.join("stats.csv")) {
                    assert!(
                        stats.is_empty() || stats.ends_with('\n'),
                        "{what}: a cut row"
                    );
                }
            }
            (_, Cmd::Bench) if setup == Setup::Nothing || limit.is_some() => {
                assert!(!path.exists(), "{what}: a partial --csv file")
            }
            _ => {}
        }
        let now: Vec<_> = [&finished, &shards[0], &shards[1]]
            .iter()
            .map(|d| snapshot(d))
            .collect();
        assert!(now == inputs, "{what}: an input folder changed");
        // Let the case folder go (a read-only folder inside it too).
        let _ = std::fs::set_permissions(
            dir.join("read-only"),
            std::fs::Permissions::from_mode(0o755),
        );
    }
    // The campaign reached every kind of outcome.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}
