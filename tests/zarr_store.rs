//! `run --store zarr`: the run's saved states and chaos indicators in one Zarr v3 store,
//! `states.zarr`, read back here with the zarrs crate: equal bit for bit to the .npy files of
//! the same run with `--store npy`; a sharded run's merged store equal to the unsharded one; an
//! interrupted and resumed run's store equal to the uninterrupted one's, file for file; a bad
//! `--store` refused with exit 2.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use predicates::prelude::*;
use tempfile::TempDir;
use zarrs::array::Array;
use zarrs::filesystem::FilesystemStore;

use common::{argv, pendulum_disk, phaseflow};

fn run(args: &[String], out: &Path, extra: &[&str]) {
    phaseflow()
        .args(["run", "--quiet"])
        .args(args)
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

fn store(dir: &Path) -> Arc<FilesystemStore> {
    Arc::new(FilesystemStore::new(dir.join("states.zarr")).unwrap())
}

/// The array `name` of the store in `dir`: its shape, dimension names and values (f32 or
/// f64, as f64).
fn array(dir: &Path, name: &str) -> (Vec<u64>, Vec<String>, Vec<f64>) {
    let a = Array::open(store(dir), &format!("/{name}")).unwrap();
    let bytes = a
        .retrieve_array_subset(&a.subset_all())
        .unwrap()
        .into_fixed()
        .unwrap()
        .into_owned();
    let dims = a
        .dimension_names()
        .clone()
        .unwrap()
        .into_iter()
        .map(|d| d.unwrap_or_default())
        .collect();
    let values = match a.data_type() {
        zarrs::array::DataType::Float32 => bytemuck::pod_collect_to_vec::<u8, f32>(&bytes)
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => bytemuck::pod_collect_to_vec(&bytes),
    };
    (a.shape().to_vec(), dims, values)
}

/// The group's `complete` attribute.
fn complete(dir: &Path) -> bool {
    let g = zarrs::group::Group::open(store(dir), "/").unwrap();
    g.attributes()["complete"].as_bool().unwrap()
}

/// The values of `dir`/`rel` (an f64 .npy file phaseflow wrote).
fn npy(dir: &Path, rel: &str) -> Vec<f64> {
    let bytes = std::fs::read(dir.join(rel)).unwrap();
    let a = phaseflow::npy::decode_f64(&bytes).unwrap();
    a.data
}

/// An f64 pendulum disk of 10 000 points with MEGNO and λ, states saved at 5 snapshots.
fn chaos_run() -> Vec<String> {
    [
        pendulum_disk(10_000, 0.05, 200),
        argv("--snapshot-every 50 --save-states --precision f64 --backend cpu --chaos megno,lyapunov"),
    ]
    .concat()
}

#[test]
fn the_store_holds_the_npy_files_values_bit_for_bit() {
    let tmp = TempDir::new().unwrap();
    let (files, zarr) = (tmp.path().join("npy"), tmp.path().join("zarr"));
    run(&chaos_run(), &files, &[]);
    run(&chaos_run(), &zarr, &["--store", "zarr"]);
    assert!(!zarr.join("states").exists() && !zarr.join("chaos").exists());
    assert_eq!(
        std::fs::read(files.join("stats.csv")).unwrap(),
        std::fs::read(zarr.join("stats.csv")).unwrap()
    );
    assert!(complete(&zarr));
    let (shape, dims, states) = array(&zarr, "state");
    assert_eq!(shape, vec![5, 10_000, 2]);
    assert_eq!(dims, ["state_time", "point", "coordinate"]);
    let (_, _, times) = array(&zarr, "state_time");
    assert_eq!(times, [0.0, 2.5, 5.0, 7.5, 10.0]);
    let per_snapshot = 10_000 * 2;
    for (i, step) in [0, 50, 100, 150, 200].into_iter().enumerate() {
        let want = npy(&files, &format!("states/step_{step}.npy"));
        let got = &states[i * per_snapshot..(i + 1) * per_snapshot];
        assert!(
            want.iter()
                .zip(got)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "states at step {step}"
        );
        let chaos = npy(&files, &format!("chaos/step_{step}.npy"));
        for (j, name) in ["megno", "lyapunov"].into_iter().enumerate() {
            let (shape, dims, values) = array(&zarr, &format!("chaos_{name}"));
            assert_eq!(shape, vec![5, 10_000]);
            assert_eq!(dims, ["chaos_time", "point"]);
            let got = &values[i * 10_000..(i + 1) * 10_000];
            let want: Vec<f64> = chaos.iter().skip(j).step_by(2).copied().collect();
            assert!(
                want.iter()
                    .zip(got)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{name} at step {step}"
            );
        }
    }
    let (_, _, points) = {
        let a = Array::open(store(&zarr), "/point").unwrap();
        let v = a
            .retrieve_array_subset_elements::<i64>(&a.subset_all())
            .unwrap();
        ((), (), v)
    };
    assert_eq!(points, (0..10_000).collect::<Vec<i64>>());
    // The manifest records the store's files.
    let manifest = std::fs::read_to_string(zarr.join("manifest.toml")).unwrap();
    assert!(manifest.contains("states.zarr/state/c/4/0/0"), "{manifest}");
    // --force replaces a run with a store; another file in the store is not phaseflow's.
    std::fs::write(zarr.join("states.zarr/notes.txt"), "mine").unwrap();
    phaseflow()
        .args(["run", "--quiet"])
        .args(chaos_run())
        .args(["--store", "zarr", "--force", "--out"])
        .arg(&zarr)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notes.txt"));
}

#[test]
fn shards_write_one_store_that_merges_to_the_whole_runs() {
    let args = [
        pendulum_disk(20_000, 0.05, 100),
        argv("--snapshot-every 50 --save-states --backend cpu --store zarr"),
    ]
    .concat();
    let tmp = TempDir::new().unwrap();
    let whole = tmp.path().join("whole");
    run(&args, &whole, &[]);
    let shards: Vec<PathBuf> = (0..3)
        .map(|k| {
            let dir = tmp.path().join(format!("shard-{k}"));
            run(&args, &dir, &["--shard", &format!("{k}/3")]);
            dir
        })
        .collect();
    // A shard's store has the whole ensemble's shape and only its own points (shard 1 of 3
    // holds points 4096..12288, in chunks of 4096).
    let (shape, _, second) = array(&shards[1], "state");
    assert_eq!(shape, vec![3, 20_000, 2]);
    let finite = |i: usize| second[2 * i].is_finite() && second[2 * i + 1].is_finite();
    assert!((0..20_000).all(|i| finite(i) == (4096..12_288).contains(&i)));
    let merge = |out: &Path| {
        phaseflow()
            .arg("merge")
            .args(&shards)
            .arg("--out")
            .arg(out)
            .assert()
    };
    let merged = tmp.path().join("merged");
    merge(&merged).success();
    assert!(complete(&merged));
    for name in ["state", "state_time"] {
        let (want, got) = (array(&whole, name), array(&merged, name));
        assert_eq!(want.0, got.0, "{name}");
        let same = want
            .2
            .iter()
            .zip(&got.2)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same && want.2.len() == got.2.len(), "{name} differs");
    }
    assert_eq!(
        std::fs::read(whole.join("stats.csv")).unwrap(),
        std::fs::read(merged.join("stats.csv")).unwrap()
    );
    // A changed chunk file is refused, naming it.
    let chunk = shards[1].join("states.zarr/state/c/2/1/0");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&chunk, bytes).unwrap();
    merge(&tmp.path().join("again"))
        .code(2)
        .stderr(predicate::str::contains("state/c/2/1/0"));
}

#[test]
fn a_resumed_run_continues_its_store() {
    let args = [
        pendulum_disk(5000, 0.05, 400),
        argv("--snapshot-every 50 --checkpoint-every 150 --save-states --backend cpu --store zarr --chaos megno"),
        argv("--precision f64"),
    ]
    .concat();
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    run(&args, &full, &[]);
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "1")
        .args(["run", "--quiet"])
        .args(&args)
        .arg("--out")
        .arg(&part)
        .assert()
        .code(130);
    assert!(
        !complete(&part),
        "an interrupted run's store is not complete"
    );
    let (_, _, partial) = array(&part, "state");
    assert!(
        partial.iter().any(|v| v.is_nan()),
        "snapshots still to come"
    );
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    assert!(complete(&part));
    let files = |dir: &Path| {
        let mut v = Vec::new();
        let root = dir.join("states.zarr");
        walk(&root, &root, &mut v);
        v.sort();
        v
    };
    let (a, b) = (files(&full), files(&part));
    assert_eq!(
        a.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        b.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs", name.display());
    }
}

/// Every file under `dir` with its bytes, its path relative to `root`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            walk(root, &e.path(), out);
        } else {
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            out.push((rel, std::fs::read(&path).unwrap()));
        }
    }
}

#[test]
fn a_store_phaseflow_does_not_write_is_refused() {
    let tmp = TempDir::new().unwrap();
    phaseflow()
        .args(["run", "--quiet"])
        .args(pendulum_disk(100, 0.05, 10))
        .args(["--store", "hdf5", "--out"])
        .arg(tmp.path().join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("npy").and(predicate::str::contains("zarr")));
    assert!(!tmp.path().join("out").exists());
}

/// Hénon–Heiles above the escape energy (H ≈ 0.245) on a disk of `points` points in f64, with
/// `extra` (the points that leave the disk of radius 2 within 12 time units stop with
/// --stop-when; a section at q1 = 0 is crossed by all).
fn escapes(points: usize, extra: &[&str]) -> Vec<String> {
    let mut args = argv(&format!(
        "--system henon-heiles --method verlet --dt 0.02 --steps 600 --snapshot-every 300 \
         --ensemble disk --points {points} --center 0,0,0.7,0 --radius 0.05 --precision f64 \
         --backend cpu"
    ));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

const STOPS: &[&str] = &["--stop-when", "q1^2 + q2^2 > 4"];

/// The values of the store's array `name` in `dir` bit for bit those of the .npy file `file`
/// in `files`, with its shape (rows, columns) and dimension names `dims`.
fn same_table(files: &Path, file: &str, dir: &Path, name: &str, dims: [&str; 2]) -> usize {
    let want = phaseflow::npy::decode_f64(&std::fs::read(files.join(file)).unwrap()).unwrap();
    let (shape, got_dims, got) = array(dir, name);
    assert_eq!(shape, vec![want.rows as u64, want.cols as u64], "{name}");
    assert_eq!(got_dims, dims);
    assert!(
        want.data.len() == got.len()
            && want
                .data
                .iter()
                .zip(&got)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name} differs from {file}"
    );
    want.rows
}

#[test]
fn the_store_holds_the_section_and_the_stops_as_the_npy_files_do() {
    let tmp = TempDir::new().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    for (name, extra) in [("stops", STOPS), ("section", &["--section", "q1=0"][..])] {
        run(&escapes(1000, extra), &dir(&format!("{name}-npy")), &[]);
        run(
            &escapes(1000, extra),
            &dir(&format!("{name}-zarr")),
            &["--store", "zarr"],
        );
    }
    let (files, zarr) = (dir("stops-npy"), dir("stops-zarr"));
    assert!(!zarr.join("stops.npy").exists());
    assert!(complete(&zarr));
    let stopped = same_table(
        &files,
        "stops.npy",
        &zarr,
        "stops",
        ["stopped", "stop_column"],
    );
    assert!(
        stopped > 50 && stopped < 950,
        "some escape, some not: {stopped}"
    );
    // The exits are counted from the store's stops as from stops.npy.
    assert_eq!(
        std::fs::read(files.join("exits.csv")).unwrap(),
        std::fs::read(zarr.join("exits.csv")).unwrap()
    );
    let (files, zarr) = (dir("section-npy"), dir("section-zarr"));
    assert!(!zarr.join("section.npy").exists());
    assert!(complete(&zarr));
    let crossings = same_table(
        &files,
        "section.npy",
        &zarr,
        "section",
        ["crossing", "column"],
    );
    assert!(crossings > 1000, "{crossings} crossings");
    let (_, _, index) = {
        let a = Array::open(store(&zarr), "/crossing").unwrap();
        let v = a
            .retrieve_array_subset_elements::<i64>(&a.subset_all())
            .unwrap();
        ((), (), v)
    };
    assert_eq!(index, (0..crossings as i64).collect::<Vec<_>>());
    // The figure is drawn from the store's crossings as from section.npy, by the run and by
    // `plot` again.
    let svg = |d: &Path| std::fs::read(d.join("section.svg")).unwrap();
    assert_eq!(svg(&files), svg(&zarr));
    let again = dir("redrawn");
    phaseflow()
        .arg("plot")
        .arg(&zarr)
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(svg(&again), svg(&files));
}

#[test]
fn shards_append_their_stops_in_the_merged_store() {
    let args = escapes(9000, STOPS);
    let tmp = TempDir::new().unwrap();
    let whole = tmp.path().join("whole");
    run(&args, &whole, &["--store", "zarr"]);
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let dir = tmp.path().join(format!("shard-{k}"));
            run(
                &args,
                &dir,
                &["--store", "zarr", "--shard", &format!("{k}/2")],
            );
            dir
        })
        .collect();
    let merged = tmp.path().join("merged");
    phaseflow()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .assert()
        .success();
    assert!(complete(&merged) && !merged.join("stops.npy").exists());
    let (want, got) = (array(&whole, "stops"), array(&merged, "stops"));
    assert!(want.0[0] > 100, "{:?}", want.0);
    // Each shard holds only its own stopped points.
    let first = array(&shards[0], "stops");
    assert!(first.0[0] > 0 && first.0[0] < want.0[0], "{:?}", first.0);
    assert_eq!(want, got);
    assert_eq!(
        std::fs::read(whole.join("exits.csv")).unwrap(),
        std::fs::read(merged.join("exits.csv")).unwrap()
    );
}
