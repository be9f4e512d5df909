//! The calibration's model, cache and dates (`run::calibration`).

use super::*;

#[test]
fn dates_are_utc_calendar_days() {
    assert_eq!(utc_date(0), "1970-01-01");
    assert_eq!(utc_date(951_782_400), "2000-02-29");
    assert_eq!(utc_date(1_796_687_012), "2026-12-07");
}

/// Between sizes a time is interpolated in log–log (a power law between two sizes is exact),
/// below the smallest it stays, beyond the largest it grows with the points.
#[test]
fn times_between_and_beyond_the_sizes() {
    let t = EngineTimes {
        points: vec![1_000, 100_000],
        start: vec![0.5, 0.5],
        advance: vec![0.0, 0.0],
        step: vec![1.0, 100.0],
    };
    let at = |n: f64| t.at(&t.step, n);
    assert!((at(10_000.0) - 10.0).abs() < 1e-9, "{}", at(10_000.0));
    assert_eq!(at(10.0), 1.0);
    assert!((at(400_000.0) - 400.0).abs() < 1e-9);
    // start + advances · 0 + steps · work · step
    assert!((t.seconds(100_000, 3, 7, 2.0) - (0.5 + 600.0)).abs() < 1e-9);
}

/// The step from two run lengths, and a noisy pair whose longer run was no slower.
#[test]
fn a_step_and_an_advance_from_two_lengths() {
    let (step, advance) = split(0.1 + SHORT as f64 * 1e-3, 0.1 + LONG as f64 * 1e-3);
    assert!((step - 1e-3).abs() < 1e-12 && (advance - 0.1).abs() < 1e-12);
    assert_eq!(split(0.2, 0.1), (0.1 / LONG as f64, 0.0));
}

/// A small ensemble goes to the CPU engine, a large one to the GPU, and the sentence says
/// both estimates and which engine runs the points.
#[test]
fn the_faster_engine_by_size() {
    let c = test_machine(0.3);
    let small = c.estimate(false, 4_096, 1_000, 100, 1.0).unwrap();
    assert!(small.cpu < small.gpu, "{small:?}");
    let (gpu, why) = small.choose(4_096, 1_000, "test GPU");
    assert!(!gpu);
    assert!(why.contains("4096 points × 1000 steps"), "{why}");
    assert!(
        why.contains("on the CPU engine and 0.30 s on the GPU (test GPU)"),
        "{why}"
    );
    assert!(why.ends_with("so the CPU engine runs them"), "{why}");
    let large = c.estimate(false, 1_000_000, 1_000, 100, 1.0).unwrap();
    assert!(large.gpu < large.cpu);
    assert!(large
        .choose(1_000_000, 1_000, "g")
        .1
        .ends_with("so the GPU runs them"));
    // break-even: 0.3 s = n · 1000 · (1e-9 − 1e-12) s, n ≈ 3.0e5, so 2^19 first
    assert_eq!(c.gpu_from(false, 1_000, 100), Some(1 << 19));
    // ten times the work per point-step moves the break-even ten times lower
    let heavy = c.estimate(false, 1 << 16, 1_000, 100, 10.0).unwrap();
    assert!(heavy.gpu < heavy.cpu, "{heavy:?}");
    // no f64 on the GPU: no estimate, and a GPU never faster: no size
    assert!(c.estimate(true, 10, 10, 1, 1.0).is_none());
    assert_eq!(test_machine(1e9).gpu_from(false, 1_000, 100), None);
}

/// The cache keeps one entry per adapter, driver and threads; another phaseflow version's
/// entry does not match but is replaced; a cut file reads as empty.
#[test]
fn the_cache_keeps_one_entry_per_machine_setting() {
    let dir = std::env::temp_dir().join(format!("phaseflow-calibration-{}", std::process::id()));
    let path = dir.join(FILE_NAME);
    let _ = std::fs::remove_dir_all(&dir);
    let setting = Setting {
        adapter: "test GPU".into(),
        backend: "Vulkan".into(),
        driver: "test driver 1".into(),
        threads: 2,
    };
    assert!(cached_in(Some(&path), &setting).is_none());
    let mut old = test_machine(0.3);
    old.phaseflow = "0.0.1".into();
    store_at(&path, &old).unwrap();
    assert!(
        cached_in(Some(&path), &setting).is_none(),
        "another version's figures"
    );
    let mut other = test_machine(0.5);
    other.threads = 8;
    store_at(&path, &other).unwrap();
    store_at(&path, &test_machine(0.3)).unwrap();
    assert_eq!(cached_in(Some(&path), &setting), Some(test_machine(0.3)));
    assert_eq!(
        read_cache(Some(&path)).calibration.len(),
        2,
        "the old version replaced"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    assert!(cached_in(Some(&path), &setting).is_none());
    store_at(&path, &test_machine(0.3)).unwrap();
    assert_eq!(cached_in(Some(&path), &setting), Some(test_machine(0.3)));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "no partial file left");
    std::fs::remove_dir_all(&dir).unwrap();
}
