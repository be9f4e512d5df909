//! Issue 17: `mpirun -n R phaseflow run ...` (`--features mpi`). The ranks' stats.csv and
//! saved states are the single-process run's, byte for byte, for a filled disk on the CPU
//! engine (2 and 3 ranks), a refined pendulum circle with the tangent map (2 and 3 ranks, the
//! loop kept whole on every rank), and the GPU engine (lavapipe, f64 device reduction).
//! Needs Open MPI's `mpirun` (CI installs openmpi-bin); runs as root where CI does.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

#[path = "common/mod.rs"]
mod common;
use common::same_stats_and_states;

fn phaseflow() -> &'static str {
    env!("CARGO_BIN_EXE_phaseflow")
}

/// `mpirun -n ranks phaseflow ARGS --out out` (ranks = 0: the binary alone, no mpirun).
fn launch(ranks: usize, args: &[&str], out: &Path) -> std::process::Output {
    let mut cmd = if ranks == 0 {
        Command::new(phaseflow())
    } else {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "-n", &ranks.to_string(), phaseflow()]);
        c
    };
    cmd.args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        // mpirun refuses root without these; CI runs as root
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun (Open MPI: apt-get install openmpi-bin) must be installed")
}

/// The run alone and with each rank count in `ranks`: stats.csv and states/ identical.
fn ranks_equal_one_process(args: &[&str], ranks: &[usize]) {
    let tmp = TempDir::new().unwrap();
    let one = tmp.path().join("one");
    let o = launch(0, args, &one);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for &r in ranks {
        let dir = tmp.path().join(format!("ranks-{r}"));
        let o = launch(r, args, &dir);
        assert!(
            o.status.success(),
            "{r} ranks: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        same_stats_and_states(&one, &dir, &format!("{r} ranks, {args:?}"));
        let config = std::fs::read_to_string(dir.join("config.toml")).unwrap();
        assert!(dir.join("manifest.toml").is_file());
        if !args.contains(&"circle") {
            assert!(
                config.contains(&format!("# engine used: {r} MPI ranks")),
                "{config}"
            );
        }
    }
}

#[test]
fn disk_on_cpu_ranks_is_the_single_process_run() {
    ranks_equal_one_process(
        &[
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--points",
            "10000",
            "--dt",
            "0.05",
            "--steps",
            "200",
            "--snapshot-every",
            "50",
            "--save-states",
            "--backend",
            "cpu",
        ],
        &[2, 3],
    );
}

#[test]
fn refined_circle_on_ranks_is_the_single_process_run() {
    ranks_equal_one_process(
        &[
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.3",
            "--points",
            "500",
            "--dt",
            "0.05",
            "--steps",
            "400",
            "--snapshot-every",
            "100",
            "--tangent",
            "--save-states",
            "--backend",
            "cpu",
        ],
        &[2, 3],
    );
}

/// Over a grid with stop conditions and a chaos indicator, the ranks' run writes what one
/// process does: the exits (exits.csv), their basins and escape times, and the indicator's
/// map, drawn by rank 0 from the gathered stops and indicators (8100 points: ranks' slices
/// start at multiples of 4096).
#[test]
fn grid_exits_and_maps_on_ranks_are_the_single_process_runs() {
    let args = [
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "grid",
        "--points",
        "8100",
        "--lo=-0.1,-3",
        "--hi",
        "0.1,3",
        "--dt",
        "0.05",
        "--steps",
        "400",
        "--precision",
        "f64",
        "--stop-when",
        "q^2 > 10",
        "--chaos",
        "megno",
        "--backend",
        "cpu",
    ];
    let tmp = TempDir::new().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (ranks, dir) in [(0, &one), (2, &two)] {
        let o = launch(ranks, &args, dir);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    same_stats_and_states(&one, &two, "grid with --stop-when and --chaos on 2 ranks");
    let exits = std::fs::read_to_string(one.join("exits.csv")).unwrap();
    assert!(exits.contains("q^2 > 10"), "{exits}");
    for name in [
        "exits.csv",
        "stops.npy",
        "basins.svg",
        "escape_time.svg",
        "map.svg",
    ] {
        assert_eq!(
            std::fs::read(one.join(name)).unwrap(),
            std::fs::read(two.join(name)).unwrap_or_default(),
            "2 ranks: {name} differs from one process's"
        );
    }
    for name in ["basins.png", "escape_time.png", "map.png"] {
        assert!(two.join(name).is_file(), "2 ranks wrote no {name}");
    }
}

#[test]
fn gpu_ranks_are_the_single_process_run() {
    ranks_equal_one_process(
        &[
            "run",
            "--system",
            "kepler",
            "--method",
            "yoshida4",
            "--ensemble",
            "disk",
            "--radius",
            "0.05",
            "--points",
            "9000",
            "--dt",
            "0.01",
            "--steps",
            "100",
            "--precision",
            "f64",
            "--backend",
            "gpu",
        ],
        &[2],
    );
}

/// What cannot be split is refused on every rank, and the job ends (no rank left waiting).
#[test]
fn refusals_under_mpirun() {
    let tmp = TempDir::new().unwrap();
    let disk = [
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--dt",
        "0.05",
        "--steps",
        "10",
        "--backend",
        "cpu",
    ];
    for (extra, needle) in [
        (&["--points", "9000", "--shard", "0/2"][..], "drop --shard"),
        (&["--points", "5000"][..], "at most 2"),
    ] {
        let out = tmp.path().join("refused");
        let o = launch(3, &[&disk[..], extra].concat(), &out);
        assert!(!o.status.success(), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(needle),
            "{extra:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!out.join("stats.csv").exists());
    }
    let o = launch(2, &["plot", "nowhere"], &tmp.path().join("x"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("only `phaseflow run`"));
}

/// The array `name` of the store `dir`/states.zarr: its shape, its chunks' shape and its
/// values as bytes.
fn stored(dir: &Path, name: &str) -> (Vec<u64>, Vec<u64>, Vec<u8>) {
    use std::sync::Arc;
    let store = Arc::new(zarrs::filesystem::FilesystemStore::new(dir.join("states.zarr")).unwrap());
    let a = zarrs::array::Array::open(store, &format!("/{name}")).unwrap();
    let chunks = a.chunk_shape(&vec![0; a.dimensionality()]).unwrap();
    let bytes = a.retrieve_array_subset(&a.subset_all()).unwrap();
    (
        a.shape().to_vec(),
        chunks.iter().map(|c| c.get()).collect(),
        bytes.into_fixed().unwrap().into_owned(),
    )
}

/// With `--store zarr` each rank writes the chunks of its own points (chunks on the ranks'
/// boundaries) into one store, equal value for value to the single process's.
#[test]
fn ranks_write_their_own_chunks_of_the_single_process_store() {
    let args = [
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--points",
        "13000",
        "--dt",
        "0.05",
        "--steps",
        "100",
        "--snapshot-every",
        "50",
        "--save-states",
        "--chaos",
        "megno",
        "--precision",
        "f64",
        "--backend",
        "cpu",
        "--store",
        "zarr",
    ];
    let tmp = TempDir::new().unwrap();
    let one = tmp.path().join("one");
    let o = launch(0, &args, &one);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The ranks' slices start at 0, 8192 (2 ranks) and at 0, 4096, 8192 (3 ranks): the chunks
    // are the largest power of two they are all multiples of (one process: all 13 000 points).
    for (r, chunk) in [(2, 8192), (3, 4096)] {
        let dir = tmp.path().join(format!("ranks-{r}"));
        let o = launch(r, &args, &dir);
        assert!(
            o.status.success(),
            "{r} ranks: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            std::fs::read(one.join("stats.csv")).unwrap(),
            std::fs::read(dir.join("stats.csv")).unwrap()
        );
        let group = std::fs::read_to_string(dir.join("states.zarr/zarr.json")).unwrap();
        let group: serde_json::Value = serde_json::from_str(&group).unwrap();
        assert_eq!(group["attributes"]["complete"], true, "{group}");
        for name in ["state", "state_time", "point", "chaos_megno", "chaos_time"] {
            let (want, got) = (stored(&one, name), stored(&dir, name));
            assert_eq!(want.0, got.0, "{name}: shape");
            assert!(want.2 == got.2, "{r} ranks: {name} differs");
            if name != "state_time" && name != "chaos_time" {
                assert_eq!(got.1[got.1.len().min(2) - 1], chunk, "{name}: {:?}", got.1);
            }
        }
    }
}
