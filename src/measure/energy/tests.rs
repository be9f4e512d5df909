//! Tests of the energy statistics: chunked against sequential accumulation, thread
//! independence, escapes and the figures of the points that stayed.

use super::*;

/// The step the energies are evaluated at (the pendulum's H does not read it).
const DT: f64 = 0.01;

#[test]
fn merge_equals_sequential() {
    let data: Vec<(f64, f64)> = (0..1000)
        .map(|i| ((i as f64 * 0.37).sin() + 2.0, 2.0))
        .collect();
    let mut all = EnergyAccumulator::default();
    data.iter().for_each(|&(h, h0)| all.push(h, h0));
    let (mut a, mut b) = (EnergyAccumulator::default(), EnergyAccumulator::default());
    data[..300].iter().for_each(|&(h, h0)| a.push(h, h0));
    data[300..].iter().for_each(|&(h, h0)| b.push(h, h0));
    let m = a.merge(b);
    let (r1, r2) = (
        EnergyStats::from_acc(&all, 1000),
        EnergyStats::from_acc(&m, 1000),
    );
    assert!((r1.energy_mean.unwrap() - r2.energy_mean.unwrap()).abs() < 1e-14);
    assert!((r1.energy_std.unwrap() - r2.energy_std.unwrap()).abs() < 1e-12);
    assert_eq!(r1.abs_energy_err_max, r2.abs_energy_err_max);
}

fn pendulum_disk(n: usize) -> State<f32> {
    let mut s = State::<f32>::zeros(n, 1);
    for i in 0..n {
        let a = i as f64 * 0.618_033_988_7 * std::f64::consts::TAU;
        let r = 0.3 * ((i % 97) as f64 / 97.0).sqrt();
        s.q[i] = (r * a.cos()) as f32;
        s.p[i] = (0.8 + r * a.sin()) as f32;
    }
    s
}

/// The chunked statistics equal the one-pass Welford accumulation of the per-point libm
/// energies up to rounding, and count and exclude non-finite points.
#[test]
fn chunked_stats_match_sequential_welford() {
    let sys = System::new("pendulum", &std::collections::BTreeMap::new()).unwrap();
    let n = 3 * CHUNK + 123;
    let mut s = pendulum_disk(n);
    let h0: Vec<f64> = (0..n)
        .map(|i| sys.energy(DT, &[s.q[i] as f64], &[s.p[i] as f64]) * (1.0 + 1e-7 * (i % 5) as f64))
        .collect();
    s.q[7] = f32::NAN;
    s.p[CHUNK + 1] = f32::INFINITY;
    let row = snapshot_stats(&sys, DT, &s, &h0);
    let mut seq = EnergyAccumulator::default();
    for (i, &h0i) in h0.iter().enumerate() {
        let h = sys.energy(DT, &[s.q[i] as f64], &[s.p[i] as f64]);
        if h.is_finite() {
            seq.push(h, h0i);
        }
    }
    let want = EnergyStats::from_acc(&seq, n as u64);
    assert_eq!((row.points, row.finite), (n as u64, n as u64 - 2));
    let close = |a: Option<f64>, b: Option<f64>, tol: f64| {
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!((a - b).abs() <= tol * b.abs(), "{a} vs {b}");
    };
    close(row.energy_mean, want.energy_mean, 1e-15);
    close(row.energy_std, want.energy_std, 1e-13);
    close(row.abs_energy_err_mean, want.abs_energy_err_mean, 1e-8);
    close(row.abs_energy_err_max, want.abs_energy_err_max, 1e-8);
    close(row.rel_energy_err_mean, want.rel_energy_err_mean, 1e-8);
    close(row.rel_energy_err_max, want.rel_energy_err_max, 1e-8);
}

/// Fixed chunks merged in order: the same bits with one thread as with four.
#[test]
fn stats_do_not_depend_on_the_thread_count() {
    let sys = System::new("pendulum", &std::collections::BTreeMap::new()).unwrap();
    let s = pendulum_disk(5 * CHUNK + 17);
    let h0 = vec![0.3; s.n];
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            (
                snapshot_stats(&sys, DT, &s, &h0),
                energies(
                    &RunEnergy {
                        system: &sys,
                        dt: DT,
                    },
                    &s,
                ),
            )
        })
    };
    assert_eq!(on(1), on(4));
}

#[test]
fn chunk_with_no_finite_energy_is_empty() {
    let a = EnergyAccumulator::from_chunk(&[f64::NAN, f64::INFINITY], &[1.0, 1.0]);
    assert_eq!(a.finite, 0);
    let b = EnergyAccumulator::from_chunk(&[2.0], &[1.0]);
    let r = EnergyStats::from_acc(&a.merge(b), 3);
    assert_eq!(
        (r.finite, r.energy_mean, r.abs_energy_err_max),
        (1, Some(2.0), Some(1.0))
    );
}

/// A finite point counts as escaped past `ESCAPE_FACTOR` · (1 + |H0|), a non-finite one
/// always; an accumulator from parts without a count leaves it unknown, and so does a merge
/// with one (the device's count: `tests/gpu.rs`).
#[test]
fn escapes_are_counted_or_left_unknown() {
    let h0 = [1.0, 1.0, 1.0, 0.0, 1.0];
    let h = [1.5, 2002.0, 1998.0, 1001.0, f64::NAN];
    let acc = EnergyAccumulator::from_chunk(&h, &h0);
    assert_eq!(EnergyStats::from_acc(&acc, 5).escaped, Some(3));
    let mut pushed = EnergyAccumulator::default();
    h.iter()
        .zip(h0)
        .filter(|(h, _)| h.is_finite())
        .for_each(|(&h, h0)| pushed.push(h, h0));
    assert_eq!(EnergyStats::from_acc(&pushed, 5).escaped, Some(3));
    let all_blown = EnergyAccumulator::from_chunk(&[f64::NAN], &[1.0]);
    assert_eq!(EnergyStats::from_acc(&all_blown, 1).escaped, Some(1));
    let device = EnergyAccumulator::from_parts(2, 1.0, 0.0, [0.0; 2], 2, [0.0; 2]);
    assert_eq!(EnergyStats::from_acc(&device, 2).escaped, None);
    assert_eq!(EnergyStats::from_acc(&device.merge(acc), 7).escaped, None);
    let counted = device.with_escaped(1, [0.0; 2]);
    // 1 + 2 finite escapes, and the one non-finite point of the 7
    assert_eq!(
        EnergyStats::from_acc(&counted.merge(acc), 7).escaped,
        Some(4)
    );
}

/// The points that stayed keep their own maxima, which the escaped ones' would hide; the
/// chunked, pushed and merged accumulators agree, and none is given where no point stayed.
#[test]
fn the_points_that_stayed_have_their_own_figures() {
    let (h0, h) = ([2.0, 2.0, 2.0, 0.5], [2.5, 1e9, 1.9, f64::NAN]);
    let chunk = EnergyAccumulator::from_chunk(&h, &h0);
    let mut pushed = EnergyAccumulator::default();
    let mut halves = [EnergyAccumulator::default(); 2];
    for (i, (&h, &h0)) in h
        .iter()
        .zip(&h0)
        .enumerate()
        .filter(|(_, (h, _))| h.is_finite())
    {
        pushed.push(h, h0);
        halves[i / 2].push(h, h0);
    }
    for acc in [chunk, pushed, halves[0].merge(halves[1])] {
        let row = EnergyStats::from_acc(&acc, 4);
        assert_eq!(row.escaped, Some(2));
        assert_eq!(row.rel_energy_err_max, Some((1e9 - 2.0) / 2.0));
        assert_eq!(row.stayed_abs_energy_err_max, Some(0.5));
        assert_eq!(row.stayed_rel_energy_err_max, Some(0.25));
    }
    let gone = EnergyStats::from_acc(&EnergyAccumulator::from_chunk(&[1e9], &[1.0]), 1);
    assert_eq!(gone.escaped, Some(1));
    assert_eq!(gone.stayed_rel_energy_err_max, None);
    let device = EnergyAccumulator::from_parts(2, 1.0, 0.0, [0.0; 2], 2, [0.0; 2]);
    assert_eq!(
        EnergyStats::from_acc(&device, 2).stayed_abs_energy_err_max,
        None
    );
}

#[test]
fn slope_of_a_line() {
    let t = [0.0, 1.0, 2.0, 3.0];
    let y = [1.0, 3.0, 5.0, 7.0];
    let fit = drift_fit(&t, &y).unwrap();
    assert!((fit.slope - 2.0).abs() < 1e-12);
    assert_eq!(fit.stderr, Some(0.0));
    // An error oscillating about a constant: a slope within its standard error.
    let t: Vec<f64> = (0..200).map(f64::from).collect();
    let y: Vec<f64> = t.iter().map(|x| 1.0 + (0.7 * x).sin()).collect();
    let fit = drift_fit(&t, &y).unwrap();
    assert!(fit.slope.abs() < 3.0 * fit.stderr.unwrap(), "{fit:?}");
}

/// The chunk's maxima (`keep_max`) are `f64::max`'s (`push`), bit for bit, where initial
/// energies are NaN, infinite, zero or tiny and energies non-finite or escaped: a NaN error
/// is left out, an infinite one kept, in every lane and in the chunk's tail.
#[test]
fn chunk_maxima_are_those_of_f64_max() {
    let h0s = [f64::NAN, f64::INFINITY, 0.0, 1e-300, -3.0, 0.25, 7.0];
    let hs = [
        0.5,
        f64::NAN,
        f64::INFINITY,
        1e6,
        -3.0,
        0.3,
        f64::MAX,
        1e-310,
    ];
    let (mut h, mut h0) = (Vec::new(), Vec::new());
    for (i, &a) in hs.iter().enumerate() {
        for (j, &b) in h0s.iter().enumerate() {
            // every value in every lane position, and a tail of 56 % 8 + 3 = 3 points
            h.push(a * (1.0 + (i + j) as f64 * 1e-3));
            h0.push(b);
        }
    }
    h.extend([2.0, 0.1, f64::NAN]);
    h0.extend([f64::NAN, 1.0, 1.0]);
    let chunk = EnergyAccumulator::from_chunk(&h, &h0);
    let mut pushed = EnergyAccumulator::default();
    h.iter()
        .zip(&h0)
        .filter(|(h, _)| h.is_finite())
        .for_each(|(&h, &h0)| pushed.push(h, h0));
    let maxima = |a: &EnergyAccumulator| {
        [
            a.abs_err_max,
            a.rel_err_max,
            a.stayed_abs_err_max,
            a.stayed_rel_err_max,
        ]
        .map(f64::to_bits)
    };
    assert_eq!(maxima(&chunk), maxima(&pushed));
    assert_eq!(chunk.abs_err_max, f64::INFINITY);
    println!("maxima: {:?}", maxima(&chunk).map(f64::from_bits));
}
