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
