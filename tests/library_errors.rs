//! A library caller's errors: an invalid option is reported as data (`Error::Invalid`, its
//! `Field`), and its message names the option as the library does (`points`, `parameter k`),
//! never as a command-line flag; the command line's rendering of the same error keeps the flag.

use std::collections::BTreeMap;

use phaseflow::cli::flags;
use phaseflow::ensemble::{EnsembleKind, EnsembleRequest};
use phaseflow::error::Field;
use phaseflow::method::Method;
use phaseflow::system::System;
use phaseflow::Error;

/// The option the error is about, its library message and its command-line message; the
/// library message names no flag.
fn invalid(e: Error) -> (Field, String, String) {
    let cli = flags::message(&e);
    let text = e.to_string();
    assert!(!text.contains("--"), "a flag in a library message: {text}");
    match e {
        Error::Invalid { field, .. } => (field, text, cli),
        other => panic!("not an option error: {other:?}"),
    }
}

#[test]
fn an_unknown_parameter_is_named_as_a_parameter() {
    let given = BTreeMap::from([("zz".to_string(), 2.0)]);
    let (field, text, cli) = invalid(System::new("pendulum", &given).unwrap_err());
    assert_eq!(field, Field::Param("zz".into()));
    assert!(
        text.starts_with("parameter zz = 2: system 'pendulum' has no parameter 'zz'"),
        "{text}"
    );
    assert!(
        cli.starts_with("--param zz=2: system 'pendulum' has no parameter 'zz'"),
        "{cli}"
    );
}

#[test]
fn a_non_positive_parameter_is_named_as_a_parameter() {
    let given = BTreeMap::from([("m".to_string(), -1.0)]);
    let (field, text, _) = invalid(System::new("pendulum", &given).unwrap_err());
    assert_eq!(field, Field::Param("m".into()));
    assert!(
        text.starts_with("parameter m = -1: system 'pendulum' needs m > 0"),
        "{text}"
    );
}

#[test]
fn unknown_names_are_named_as_their_option() {
    let (field, text, cli) = invalid(System::new("nope", &BTreeMap::new()).unwrap_err());
    assert_eq!(field, Field::System);
    assert!(
        text.starts_with("system = nope: unknown system (known: oscillator"),
        "{text}"
    );
    assert!(cli.starts_with("--system nope: unknown system"), "{cli}");

    let (field, text, cli) = invalid(Method::from_name("nope").unwrap_err());
    assert_eq!(field, Field::Method);
    assert!(
        text.ends_with("or your own with method_file = FILE.toml)"),
        "{text}"
    );
    assert!(
        cli.ends_with("or your own with --method-file FILE.toml)"),
        "{cli}"
    );

    let (field, text, _) = invalid(EnsembleKind::from_name("blob").unwrap_err());
    assert_eq!(field, Field::Ensemble);
    assert!(
        text.starts_with("ensemble = blob: unknown ensemble kind"),
        "{text}"
    );
}

#[test]
fn ensemble_values_are_named_as_their_option() {
    let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
    let (field, text, cli) = invalid(
        EnsembleRequest::disk(1000, -0.5, 0)
            .resolve(&pendulum)
            .unwrap_err(),
    );
    assert_eq!(field, Field::Radius);
    assert_eq!(text, "radius must be a positive finite number, got -0.5");
    assert_eq!(cli, "--radius must be a positive finite number, got -0.5");

    let (field, text, _) = invalid(
        EnsembleRequest::disk(0, 0.3, 0)
            .resolve(&pendulum)
            .unwrap_err(),
    );
    assert_eq!(field, Field::Points);
    assert_eq!(text, "points must be at least 1, got 0");
}

#[test]
fn a_method_the_system_cannot_take_is_named_as_the_method() {
    let kepler = System::new("kepler", &BTreeMap::new()).unwrap();
    let (field, text, cli) = invalid(Method::Variational.check_system(&kepler).unwrap_err());
    assert_eq!(field, Field::Method);
    assert!(
        text.starts_with("method = variational: system 'kepler' is a Hamiltonian system"),
        "{text}"
    );
    assert!(
        cli.starts_with("--method variational: system 'kepler'"),
        "{cli}"
    );
}

#[test]
fn host_memory_names_the_count_that_sets_it() {
    let (field, text, cli) = invalid(
        phaseflow::memory::check_host_memory(Field::MaxNodes, usize::MAX / 64, 64).unwrap_err(),
    );
    assert_eq!(field, Field::MaxNodes);
    assert!(
        text.starts_with("max_nodes = ") && text.contains("use a lower max_nodes"),
        "{text}"
    );
    assert!(
        cli.starts_with("--max-nodes ") && cli.contains("use a lower --max-nodes"),
        "{cli}"
    );
}

/// A discrete map paired with a Hamiltonian method (and a Hamiltonian system with the discrete
/// maps' method) is refused when the integrator is made, naming the method, rather than
/// reaching an engine that has no step for the pair.
#[test]
fn an_integrator_refuses_a_method_the_system_cannot_take() {
    use phaseflow::engine::{CpuEngine, Engine, Integrator};
    use phaseflow::method::Solver;
    let solver = Solver::default_for::<f64>();
    let map = System::new("pendulum-variational", &BTreeMap::new()).unwrap();
    let (field, text, cli) =
        invalid(Integrator::new(map.clone(), Method::Verlet, 0.01, solver).unwrap_err());
    assert_eq!(field, Field::Method);
    assert!(
        text.starts_with("method = verlet: system 'pendulum-variational' is a variational system"),
        "{text}"
    );
    assert!(
        cli.ends_with("runs only with --method variational"),
        "{cli}"
    );
    let kepler = System::new("kepler", &BTreeMap::new()).unwrap();
    let e = Integrator::new(kepler.clone(), Method::Variational, 0.01, solver).unwrap_err();
    assert_eq!(invalid(e).0, Field::Method);
    // The step size and the solver are checked too.
    let e = Integrator::new(kepler.clone(), Method::Verlet, f64::NAN, solver).unwrap_err();
    assert_eq!(invalid(e).0, Field::Dt);
    let stuck = Solver {
        max_iter: 0,
        ..solver
    };
    let e = Integrator::new(kepler, Method::ImplicitMidpoint, 0.01, stuck).unwrap_err();
    assert_eq!(invalid(e).0, Field::ImplicitMaxIter);
    // The pair the map takes steps.
    let k = Integrator::new(map.clone(), Method::Variational, 0.01, solver).unwrap();
    let state = phaseflow::state::State::<f64>::zeros(2, map.dof());
    let mut engine = CpuEngine::new(&k, state);
    engine.advance(3).unwrap();
    assert_eq!(engine.points(), 2);
}

/// The builder is the one check of a run's settings: what it builds is the run the command
/// line's flags make, and a bad setting is an error naming its option.
#[test]
fn the_builder_makes_the_run_the_flags_make() {
    use clap::Parser;
    use phaseflow::config::{Backend, Precision, RunConfig, RunJob};
    let built = RunConfig::builder("pendulum", "yoshida4")
        .param("g", 2.0)
        .ensemble("disk")
        .points(64)
        .radius(0.25)
        .seed(7)
        .dt(0.05)
        .steps(40)
        .snapshot_every(8)
        .backend(Backend::Cpu)
        .precision(Precision::F64)
        .tangent(true)
        .build()
        .unwrap();
    let argv = "phaseflow run --system pendulum --method yoshida4 --param g=2 --ensemble disk --points 64 --radius 0.25 --seed 7 --dt 0.05 --steps 40 --snapshot-every 8 --backend cpu --precision f64 --tangent --out unused";
    let phaseflow::cli::Command::Run(args) =
        phaseflow::cli::Cli::parse_from(argv.split(' ')).command
    else {
        panic!("not a run");
    };
    let flags = RunJob::try_from(&args).unwrap().config;
    let out = std::path::Path::new("unused");
    assert_eq!(built.to_toml("cpu", out), flags.to_toml("cpu", out));
    assert_eq!(built.snapshot_steps(), flags.snapshot_steps());

    // Each refusal names its option.
    let base = || {
        RunConfig::builder("pendulum", "verlet")
            .ensemble("disk")
            .dt(0.01)
            .steps(10)
    };
    let field = |e: phaseflow::Error| e.field().cloned();
    assert_eq!(field(base().dt(0.0).build().unwrap_err()), Some(Field::Dt));
    assert_eq!(
        field(base().points(0).build().unwrap_err()),
        Some(Field::Points)
    );
    let e = base().param("zz", 1.0).build().unwrap_err();
    assert_eq!(field(e), Some(Field::Param("zz".into())));
    let e = RunConfig::builder("pendulum-variational", "verlet")
        .ensemble("disk")
        .dt(0.01)
        .steps(10);
    assert_eq!(field(e.build().unwrap_err()), Some(Field::Method));
    // Another kind of ensemble drops the former kind's options.
    let grid = base().radius(0.5).ensemble("grid");
    let table = grid.settings().ensemble.clone().unwrap();
    assert_eq!((table.kind.as_deref(), table.radius), (Some("grid"), None));
}
