//! The command-line application: parse → validate → run → report. Exit codes: 0 success, 1
//! runtime failure (or `validate` over tolerance), 2 bad input, 141 standard output closed by
//! its reader. The binary (`src/main.rs`) and the Python package's `python -m phaseflow` both
//! call `main`, so the two are one program.

use std::ffi::OsString;
use std::io::Write;

use crate::cli::{Command, MergeArgs, PlotArgs, StudyArgs};
use crate::cluster::Peers;
use crate::config::{BenchConfig, OutputDir, RunJob, ValidateJob};
use crate::ensemble::KINDS;
use crate::measure::energy::columns;
use crate::method::all;
use crate::output::write_csv;
use crate::system::CATALOGUE;
use crate::{gpu, note, run, study, Error};

mod parse;

use parse::{command_line, parse_cli};

/// `println!` that hands a failed write (a closed pipe, a full device) back as an error
/// instead of panicking; `?` carries it to `main`.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout(), $($arg)*).map_err(stdout_error)?
    };
}

fn stdout_error(source: std::io::Error) -> Error {
    Error::Output {
        path: "standard output".into(),
        source,
    }
}

/// Exit code of a command that did what it was asked.
const SUCCESS: u8 = 0;

/// Exit code for a closed standard output: what a shell reports for a tool killed by SIGPIPE
/// (128 + 13), without the signal (Rust ignores SIGPIPE).
const EXIT_BROKEN_PIPE: u8 = 141;

/// Exit code of a run stopped by SIGINT/SIGTERM after writing its checkpoint (128 + 2).
const EXIT_INTERRUPTED: u8 = 130;

/// Run the command line `args` (the program's name first, as `std::env::args_os` gives it) and
/// return its exit status. A parse error or a request for help ends the process (as a command
/// line does), so call this only where the process is the command line's.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    // Notes name options as the flags that set them.
    crate::console::set_naming(crate::cli::flags::flag);
    let cli = parse_cli(args.into_iter().collect());
    // Under mpirun (`--features mpi`): MPI lives until the end of main.
    #[cfg(feature = "mpi")]
    let _mpi = crate::cluster::init();
    let peers = Peers::current();
    let result = crate::cluster::check_launch().and_then(|()| {
        if peers.many() && !matches!(cli.command, Command::Run(_)) {
            return Err(Error::Input(
                "under mpirun only `phaseflow run` is split over the ranks; run the other commands without mpirun".into(),
            ));
        }
        Ok(())
    });
    let result = result.and_then(|()| command(cli.command, &peers));
    // stdout is line-buffered: a final flush reports what the last line left behind.
    let result = result.and_then(|code| {
        std::io::stdout().flush().map_err(stdout_error)?;
        Ok(code)
    });
    let code = exit_code(result);
    if peers.many() && code != SUCCESS {
        // The other ranks may be waiting for this one in a collective operation.
        peers.abort(1);
    }
    code
}

/// Run the subcommand (informational output only on MPI rank 0).
fn command(command: Command, peers: &Peers) -> Result<u8, Error> {
    let quiet = |q: bool| crate::console::set_quiet(q || !peers.is_root());
    match command {
        Command::Run(a) => {
            quiet(a.output.quiet);
            match crate::sweep::SweepJob::from_args(&a)? {
                Some(job) => cmd_sweep(&job),
                None => RunJob::try_from(&a).and_then(|job| cmd_run(&job)),
            }
        }
        Command::Validate(v) => {
            quiet(v.run.output.quiet);
            ValidateJob::try_from(&v).and_then(|job| cmd_validate(&job))
        }
        Command::Study(s) => {
            quiet(s.output.quiet);
            cmd_study(&s)
        }
        Command::Bench(b) => BenchConfig::try_from(&b).and_then(|c| cmd_bench(&c)),
        Command::Plot(p) => {
            quiet(p.quiet);
            cmd_plot(&p)
        }
        Command::ShowKernel(k) => cmd_show_kernel(&k).map(|()| SUCCESS),
        Command::ShowModifiedHamiltonian(a) => cmd_show_modified(&a).map(|()| SUCCESS),
        Command::List => cmd_list().map(|()| SUCCESS),
        Command::Method(crate::cli::MethodCommand::Check(c)) => {
            cmd_method_check(&c).map(|()| SUCCESS)
        }
        Command::Devices(a) => cmd_devices(&a).map(|()| SUCCESS),
        Command::Order(a) => {
            quiet(a.quiet);
            crate::config::accuracy::OrderJob::try_from(&a).and_then(|job| cmd_order(&job))
        }
        Command::Merge(m) => {
            quiet(m.quiet);
            cmd_merge(&m)
        }
        Command::Resume(r) => {
            quiet(r.quiet);
            cmd_resume(&r)
        }
        Command::Completions(c) => cmd_completions(c.shell).map(|()| SUCCESS),
        Command::Man(m) => cmd_man(m.command.as_deref()).map(|()| SUCCESS),
    }
}

/// The process's exit code for the command's result (errors reported on stderr).
fn exit_code(result: Result<u8, Error>) -> u8 {
    match result {
        Ok(code) => code,
        Err(Error::Output { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            // The reader has gone (`phaseflow list | head -1`): end quietly, as Unix tools do.
            EXIT_BROKEN_PIPE
        }
        Err(e @ Error::Interrupted { .. }) => {
            // SIGINT/SIGTERM: the checkpoint is written; 128 + SIGINT, as a shell reports it.
            note!("phaseflow: {e}");
            EXIT_INTERRUPTED
        }
        Err(e) => {
            note!("Error: {}", crate::cli::flags::message(&e));
            if e.is_input() {
                2
            } else {
                1
            }
        }
    }
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.6e}")).unwrap_or_else(|| "-".into())
}

fn cmd_merge(m: &MergeArgs) -> Result<u8, Error> {
    let dest = OutputDir {
        path: m.out.clone(),
        force: m.force,
    };
    let s = run::merge(&m.shards, &dest)?;
    if !crate::console::quiet() {
        let last = s.rows.last().expect("at least the step-0 row");
        out!(
            "merged {} shards: {} points, {} snapshots{}",
            s.shards,
            last.points,
            s.rows.len(),
            if s.states > 0 {
                format!(", {} state files", s.states)
            } else {
                String::new()
            }
        );
        print_final(&s.rows, &m.out)?;
    }
    Ok(SUCCESS)
}

fn cmd_run(job: &RunJob) -> Result<u8, Error> {
    let summary = run::run(&job.config, &job.out)?;
    if !crate::console::quiet() {
        print_run_summary(&summary)?;
    }
    Ok(SUCCESS)
}

/// `run --sweep`: the parts in turn, then one line per part and the files written.
fn cmd_sweep(job: &crate::sweep::SweepJob) -> Result<u8, Error> {
    let outcome = crate::sweep::run_sweep(job)?;
    print_sweep_outcome(&outcome)?;
    Ok(SUCCESS)
}

/// What `run --sweep` (and `resume` of a sweep) prints when the sweep is done.
fn print_sweep_outcome(outcome: &crate::sweep::SweepOutcome) -> Result<(), Error> {
    if crate::console::quiet() {
        return Ok(());
    }
    for p in &outcome.parts {
        // With --chaos, the chaos columns at the end too (a fraction in four decimals).
        let chaos: String = (p.chaos.iter())
            .map(|&(name, v)| match name {
                _ if name.ends_with("chaotic_fraction") => format!("  {name} {v:.4}"),
                _ => format!("  {name} {v:.6e}"),
            })
            .collect();
        out!(
            "part {} ({}): at the end abs_energy_err_max {:.6e}  rel_energy_err_max {:.6e}{chaos}",
            p.sweep_index,
            p.label,
            p.final_abs_energy_err_max,
            p.final_rel_energy_err_max
        );
    }
    let files: Vec<String> = outcome
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    out!("wrote {}", files.join(", "));
    Ok(())
}

/// The lines `run` (and `resume`) print when a run is done.
fn print_run_summary(summary: &run::RunSummary) -> Result<(), Error> {
    let last = summary.rows.last().expect("at least the step-0 row");
    out!(
        "done: {} steps of {} on {} points ({}), finite {} of {}",
        last.step,
        summary.method,
        last.points,
        summary.engine,
        last.count(&columns::FINITE).unwrap_or(0),
        last.points
    );
    if let Some(stopped) = last.count(&crate::measure::stopped::STOPPED) {
        out!(
            "stopped: {stopped} of {} points by a --stop-when condition ({}/stops.npy); the statistics below are the other points'",
            last.points,
            summary.out.display()
        );
    }
    for line in summary.exits.iter().flat_map(|e| e.lines()) {
        out!("{line}");
    }
    for line in &summary.accuracy {
        out!("{line}");
    }
    print_final(&summary.rows, &summary.out)
}

/// The last snapshot's energy statistics and where they were written (`run`, `resume`, `merge`),
/// from the statistics rows (the step-0 row first).
fn print_final(rows: &[crate::measure::row::Row], out: &std::path::Path) -> Result<(), Error> {
    let last = rows.last().expect("at least the step-0 row");
    out!(
        "final t = {}: energy_mean {}  abs_energy_err_max {}  rel_energy_err_max {}",
        crate::error::num(last.t),
        fmt_opt(last.real(&columns::ENERGY_MEAN)),
        fmt_opt(last.real(&columns::ABS_ERR_MAX)),
        fmt_opt(last.real(&columns::REL_ERR_MAX))
    );
    // The statistics above include points that left the bounded region; say how many, and
    // what the others did. Points counted at step 0 never had a state (a grid point on an
    // energy surface with no real momentum there): they are said apart, not as escaped.
    let escaped = last.count(&columns::ESCAPED).unwrap_or(0);
    let undefined = rows
        .first()
        .and_then(|r| r.count(&columns::ESCAPED))
        .unwrap_or(0)
        .min(escaped);
    if undefined > 0 {
        out!(
            "undefined from the start: {undefined} of {} points (a non-finite initial state, e.g. a grid point with no real momentum on the energy surface); not counted as escaped",
            last.points
        );
    }
    if escaped > undefined {
        out!(
            "escaped: {} of {} points (non-finite, or energy error above {} × (1 + |H(z0)|)); the {} that stayed: abs_energy_err_max {}  rel_energy_err_max {}",
            escaped - undefined,
            last.points - undefined,
            crate::error::num(crate::measure::energy::ESCAPE_FACTOR),
            last.points - escaped,
            fmt_opt(last.real(&columns::STAYED_ABS_ERR_MAX)),
            fmt_opt(last.real(&columns::STAYED_REL_ERR_MAX))
        );
    }
    out!("wrote {}/stats.csv and config.toml", out.display());
    Ok(())
}

fn cmd_study(a: &StudyArgs) -> Result<u8, Error> {
    // The study first: a custom study names every flag it lacks, --out among them.
    let st = study::Study::try_from(a)?;
    let out = study::out_dir(a.output.out.clone())?;
    let command_line = std::env::args()
        .map(|x| if x.contains(' ') { format!("'{x}'") } else { x })
        .collect::<Vec<_>>()
        .join(" ");
    let outcome = study::run_study(&st, &out, a.output.force, &command_line)?;
    print_study_outcome(&outcome, &out)?;
    Ok(SUCCESS)
}

/// The summary table `study` (and `resume` of a study) prints.
fn print_study_outcome(outcome: &study::StudyOutcome, out: &std::path::Path) -> Result<(), Error> {
    if !crate::console::quiet() {
        // A study that mixes systems names each row's system too.
        let mixed = outcome
            .summary
            .iter()
            .any(|r| r.system != outcome.summary[0].system);
        let labels: Vec<String> = outcome
            .summary
            .iter()
            .map(|r| {
                if mixed {
                    format!("{}/{}", r.system, r.method)
                } else {
                    r.method.clone()
                }
            })
            .collect();
        let w = labels.iter().map(|l| l.len()).max().unwrap_or(0).max(20);
        out!(
            "{:<w$} {:>10} {:>10} {:>16} {:>16} {:>16}",
            "method",
            "h",
            "steps",
            "area_ratio",
            "max|det-1|",
            "max_rel_dE"
        );
        for (r, label) in outcome.summary.iter().zip(&labels) {
            out!(
                "{:<w$} {:>10.4e} {:>10} {:>16} {:>16} {:>16}",
                label,
                r.dt,
                r.steps,
                fmt_opt(r.final_area_ratio),
                fmt_opt(r.max_abs_det_minus_1),
                fmt_opt(r.max_rel_energy_err)
            );
        }
        out!("report: {}", out.join("report.md").display());
    }
    Ok(())
}

fn cmd_plot(a: &PlotArgs) -> Result<u8, Error> {
    let outcome = study::plot_run(&a.dir, a.out.as_deref())?;
    if !outcome.portraits {
        note!(
            "phaseflow: no phase portraits: {} holds no saved states (phase portraits need a run with --save-states)",
            a.dir.display()
        );
    }
    if !crate::console::quiet() {
        for file in &outcome.files {
            out!("wrote {}", file.display());
        }
    }
    Ok(SUCCESS)
}

fn cmd_validate(job: &ValidateJob) -> Result<u8, Error> {
    let (cfg, tolerance) = (&job.config, job.tolerance);
    let v = run::validate(cfg)?;
    out!(
        "max_abs_dev={:.3e} max_rel_dev={:.3e}{}{}",
        v.max_abs_dev,
        v.max_rel_dev,
        v.tangent_max_rel_dev
            .map(|t| format!(" tangent_max_rel_dev={t:.3e}"))
            .unwrap_or_default(),
        v.extras_line()
    );
    out!(
        "compared {} points × {} steps of {} on {} against the CPU engine ({}); finite_mismatch={} both_nonfinite={} tolerance={tolerance:e}",
        cfg.ensemble.points,
        cfg.total_steps(),
        cfg.method.name(),
        v.gpu,
        cfg.arithmetic(),
        v.finite_mismatch,
        v.both_nonfinite
    );
    if let Some(why) = v.failure(tolerance) {
        note!("Error: {why}");
        return Ok(1);
    }
    out!("PASS");
    Ok(SUCCESS)
}

fn cmd_bench(b: &BenchConfig) -> Result<u8, Error> {
    let report = run::bench(b)?;
    for line in report.table(b, &crate::cli::flags::message) {
        out!("{line}");
    }
    if let Some(path) = &b.csv {
        write_csv(path, &report.rows)?;
        out!("wrote {}", path.display());
    }
    if let Some(floor) = b.min_ratio {
        let slow = report.below_ratio(floor);
        if !slow.is_empty() {
            for r in slow {
                note!(
                    "speed guard: cpu {} runs at {:.2}× the reference loop, below --min-ratio {floor}",
                    r.precision,
                    r.ratio_to_reference.unwrap_or(f64::NAN)
                );
            }
            return Ok(1);
        }
        out!("speed guard: every cpu row is at least {floor}× the reference loop");
    }
    Ok(SUCCESS)
}

fn cmd_list() -> Result<(), Error> {
    out!("systems:");
    for s in CATALOGUE {
        out!("  {:<12} {}", s.name, s.summary);
        for p in s.params {
            out!("      --param {}={:<8} {}", p.name, p.default, p.meaning);
        }
    }
    out!(
        "  or your own: --hamiltonian EXPR (e.g. 'p^2/2 + 1 - cos(q)', names other than q, p, q1.., p1.. given with --param) or --system-file FILE.toml; see docs/your-own-hamiltonian.md"
    );
    out!(
        "  or a Lagrangian: --lagrangian EXPR (e.g. 'v^2/2 - (1 - cos(q))', velocities v, v1..vd) with --method variational, --discretization left|right|midpoint|trapezoid|lobatto3|lobatto4|gauss2|gauss3 and holonomic constraints --constraint EXPR; see docs/lagrangian.md"
    );
    out!("methods:");
    // Names padded to the longest, so the verdict columns line up.
    let width = all().iter().map(|m| m.name().len()).max().unwrap_or(0);
    for m in all() {
        out!(
            "  {:<width$} {} {}",
            m.name(),
            crate::config::verdict::list_columns(*m),
            m.info().summary
        );
    }
    out!("  or your own: --method-file FILE.toml (docs/methods.md); `phaseflow method check` analyses one");
    out!("ensembles:");
    for (_, name, what) in KINDS {
        out!("  {name:<10} {what}");
    }
    Ok(())
}

fn cmd_method_check(c: &crate::cli::MethodCheckArgs) -> Result<(), Error> {
    let method = crate::config::method_by_name_or_file(&c.method)?;
    let text = crate::config::verdict::check_output(method, c.json)?;
    // the figure first, so that a refused --plot prints no verdicts before its error
    let mut written = Vec::new();
    if let Some(dir) = &c.plot {
        let mut methods = vec![method];
        for entry in &c.with {
            methods.push(crate::config::method_by_name_or_file(entry)?);
        }
        written.extend(crate::config::stability_plot::write(&methods, dir)?);
    }
    out!("{text}");
    if !c.json && !crate::console::quiet() {
        for file in written {
            out!("wrote {}", file.display());
        }
    }
    Ok(())
}

fn cmd_resume(a: &crate::cli::ResumeArgs) -> Result<u8, Error> {
    use crate::resume::Resumption;
    let complete = |what: &str| -> Result<(), Error> {
        out!(
            "{}: the {what} is complete (manifest.toml); nothing to resume",
            a.dir.display()
        );
        Ok(())
    };
    match crate::resume::resume(&a.dir)? {
        Resumption::StudyComplete => complete("study")?,
        Resumption::Study(outcome) => print_study_outcome(&outcome, &a.dir)?,
        Resumption::SweepComplete => complete("sweep")?,
        Resumption::Sweep(outcome) => print_sweep_outcome(&outcome)?,
        Resumption::Run(run::Resumed::Complete) => complete("run")?,
        Resumption::Run(run::Resumed::Finished(summary)) => {
            if !crate::console::quiet() {
                print_run_summary(&summary)?;
            }
        }
    }
    Ok(SUCCESS)
}

fn cmd_show_kernel(a: &crate::cli::ShowKernelArgs) -> Result<(), Error> {
    let k = crate::config::ShowKernelJob::try_from(a)?;
    out!("{}", k.listing());
    Ok(())
}

/// The generators write into memory (clap_complete would panic on a failed write), then the
/// text goes to standard output as every other command's does.
fn cmd_completions(shell: clap_complete::Shell) -> Result<(), Error> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command_line(), "phaseflow", &mut script);
    std::io::stdout().write_all(&script).map_err(stdout_error)
}

/// phaseflow's page, or one command's (`phaseflow-run`, as the main page's list names it).
fn cmd_man(command: Option<&str>) -> Result<(), Error> {
    let mut cli = command_line().disable_help_subcommand(true);
    // Built, the commands carry their pages' names (phaseflow-run) and inherited settings.
    cli.build();
    let page_of = match command {
        None => cli,
        Some(name) => cli.find_subcommand(name).cloned().ok_or_else(|| {
            let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
            crate::input_err!(
                "phaseflow man {name}: no such command (the commands: {})",
                names.join(", ")
            )
        })?,
    };
    let page = crate::cli::examples::man_page(page_of).map_err(stdout_error)?;
    std::io::stdout().write_all(&page).map_err(stdout_error)
}

/// `phaseflow order`: the convergence study, its table printed and its files written.
fn cmd_order(job: &crate::config::accuracy::OrderJob) -> Result<u8, Error> {
    let study = run::order(job)?;
    run::write_order(&study, &job.out.path, job.out.force)?;
    if !crate::console::quiet() {
        out!("{}", study.table());
        out!(
            "wrote {}/order.csv, order.png and order.svg",
            job.out.path.display()
        );
    }
    Ok(SUCCESS)
}

fn cmd_show_modified(a: &crate::cli::ShowModifiedArgs) -> Result<(), Error> {
    out!("{}", crate::config::show_modified(a)?);
    Ok(())
}

fn cmd_devices(a: &crate::cli::DevicesArgs) -> Result<(), Error> {
    use crate::run::calibration;
    let list = gpu::adapters();
    if list.is_empty() {
        out!("no wgpu adapter found (on Debian, apt-get install mesa-vulkan-drivers gives a CPU Vulkan adapter); --backend auto will use the CPU engine");
        return Ok(());
    }
    for a in &list {
        out!(
            "{}  backend={} type={} hardware={} driver={}",
            a.name,
            a.backend,
            a.device_type,
            if a.hardware { "yes" } else { "no" },
            a.driver
        );
    }
    if a.calibrate {
        let ctx = gpu::context()?;
        crate::info!(
            "phaseflow: timing the CPU engine and {} at {} ensemble sizes",
            ctx.info.name,
            calibration::SIZES.len()
        );
        calibration::store(&calibration::measure(ctx)?)?;
    }
    for line in calibration::describe(&list) {
        out!("{line}");
    }
    Ok(())
}
