use super::*;

fn linear(lo: f64, hi: f64) -> Axis {
    Axis { lo, hi, log: false }
}

fn unit_map() -> PixelMap {
    // 0..10 on both axes onto pixels 0..100, y pointing down.
    PixelMap {
        x: linear(0.0, 10.0),
        y: linear(0.0, 10.0),
        left: 0.0,
        right: 100.0,
        top: 0.0,
        bottom: 100.0,
    }
}

#[test]
fn automatic_ranges_have_a_margin_and_survive_degenerate_data() {
    assert_eq!(
        Axis::new(false, None, Some((0.0, 10.0))),
        linear(-0.5, 10.5)
    );
    assert_eq!(Axis::new(false, None, None), linear(0.0, 1.0));
    let constant = Axis::new(false, None, Some((2.0, 2.0)));
    assert_eq!((constant.lo, constant.hi), (1.9, 2.1));
    let zero = Axis::new(false, None, Some((0.0, 0.0)));
    assert_eq!((zero.lo, zero.hi), (-0.5, 0.5));
    let huge = Axis::new(false, None, Some((-f64::MAX, f64::MAX)));
    assert!(huge.span().is_finite() && huge.span() > 0.0);
}

#[test]
fn explicit_ranges_are_kept_sorted_and_repaired_on_log_axes() {
    assert_eq!(Axis::new(false, Some((3.0, -1.0)), None), linear(-1.0, 3.0));
    let log = Axis::new(true, Some((1e-4, 1e2)), None);
    assert!((log.lo + 4.0).abs() < 1e-12 && (log.hi - 2.0).abs() < 1e-12);
    // A lower end ≤ 0 on a log axis: from the data, or three decades.
    assert_eq!(
        Axis::new(true, Some((0.0, 100.0)), Some((-1.0, 1.0))).lo,
        -1.0
    );
    assert_eq!(Axis::new(true, Some((-5.0, 100.0)), None).lo, -1.0);
    // Entirely ≤ 0, or NaN: ignored, the data decides.
    let from_data = Axis::new(true, Some((-2.0, 0.0)), Some((0.0, 1.0)));
    assert_eq!((from_data.lo, from_data.hi), (-0.05, 1.05));
    assert_eq!(
        Axis::new(false, Some((f64::NAN, 1.0)), None),
        linear(0.0, 1.0)
    );
}

#[test]
fn runs_break_at_points_that_cannot_be_drawn() {
    let pts = [
        (0.0, 1.0),
        (1.0, f64::NAN),
        (2.0, 10.0),
        (3.0, 100.0),
        (f64::INFINITY, 1.0),
        (5.0, -1.0),
        (6.0, 1.0),
    ];
    assert_eq!(display_runs(&pts, false, false).len(), 3);
    let log = display_runs(&pts, false, true);
    assert_eq!(
        log,
        vec![
            vec![(0.0, 0.0)],
            vec![(2.0, 1.0), (3.0, 2.0)],
            vec![(6.0, 0.0)]
        ]
    );
    assert!(display_runs(&[], true, true).is_empty());
}

#[test]
fn lines_are_clipped_to_the_box() {
    let map = unit_map();
    // Inside: unchanged. y grows upwards, pixels grow downwards.
    let inside = vec![vec![(0.0, 0.0), (10.0, 10.0)]];
    assert_eq!(map.polylines(&inside), vec![vec![(0, 100), (100, 0)]]);
    // Crossing the right edge, leaving and coming back: two polylines.
    let out_and_back = vec![vec![(5.0, 5.0), (15.0, 5.0), (15.0, 6.0), (5.0, 6.0)]];
    assert_eq!(
        map.polylines(&out_and_back),
        vec![vec![(50, 50), (100, 50)], vec![(100, 40), (50, 40)]]
    );
    // Entirely outside: nothing. Ends near ±f64::MAX: no overflow.
    assert!(map
        .polylines(&[vec![(-5.0, -5.0), (-1.0, 20.0)]])
        .is_empty());
    let huge = vec![vec![(-f64::MAX, 5.0), (f64::MAX, 5.0)]];
    assert_eq!(map.polylines(&huge), vec![vec![(0, 50), (100, 50)]]);
    // A diverging series jumping from -1e200 to 1e200 crosses the whole box.
    let jump = vec![vec![(4.0, -1e200), (6.0, 1e200)]];
    assert_eq!(map.polylines(&jump), vec![vec![(50, 100), (50, 0)]]);
}

#[test]
fn wide_lines_are_split_at_sharp_turns() {
    // A spike: up and straight back down (180°), then a right angle (kept).
    let spike = vec![vec![(0, 50), (10, 0), (20, 50), (30, 50), (30, 60)]];
    assert_eq!(
        split_sharp_turns(spike),
        vec![
            vec![(0, 50), (10, 0)],
            vec![(10, 0), (20, 50), (30, 50), (30, 60)]
        ]
    );
    let straight = vec![vec![(0, 0), (5, 5), (10, 10)]];
    assert_eq!(split_sharp_turns(straight.clone()), straight);
}

#[test]
fn dense_polylines_merge_into_segments_within_half_a_pixel() {
    // A staircase of 1 px steps along a line of slope 1/2: one segment.
    let stairs: Vec<(i32, i32)> = (0..40).map(|i| (i, i / 2)).collect();
    assert_eq!(simplified(&stairs, 0.5), vec![(0, 0), (39, 19)]);
    // A corner is kept, and so is a vertex 1 px off the chord; ends always stay.
    let corner = [(0, 0), (5, 0), (10, 0), (10, 5), (10, 10)];
    assert_eq!(simplified(&corner, 0.5), vec![(0, 0), (10, 0), (10, 10)]);
    assert_eq!(simplified(&[(0, 0), (3, 1), (6, 0)], 0.5).len(), 3);
    assert_eq!(simplified(&[(1, 1), (2, 2)], 0.5), vec![(1, 1), (2, 2)]);
}

#[test]
fn markers_outside_the_box_or_on_a_used_pixel_are_dropped() {
    let map = unit_map();
    let runs = vec![vec![(1.0, 1.0), (1.001, 1.001), (11.0, 1.0), (2.0, 2.0)]];
    assert_eq!(map.marker_pixels(&runs), vec![(10, 90), (20, 80)]);
}

#[test]
fn equal_aspect_shrinks_one_side() {
    let wide = linear(0.0, 4.0);
    let tall = linear(0.0, 1.0);
    assert_eq!(equal_aspect_box(&wide, &tall, 800, 600), (800, 200));
    assert_eq!(equal_aspect_box(&tall, &wide, 800, 600), (150, 600));
}

#[test]
fn tick_labels_are_short_and_free_of_float_noise() {
    assert_eq!(tick_label(0.30000000000000004, 1.0), "0.3");
    assert_eq!(tick_label(2.0, 10.0), "2");
    assert_eq!(tick_label(-1.5, 4.0), "-1.5");
    assert_eq!(tick_label(1e-17, 1.0), "0");
    assert_eq!(tick_label(1.00005, 1e-4), "1.00005");
    assert_eq!(tick_label(2.5e-7, 1e-6), "2.5e-7");
    assert_eq!(tick_label(300000.0, 1e6), "3e5");
    let log = Axis::new(true, Some((1e-7, 1e3)), None);
    assert_eq!(log.tick_label(1e-6), "1e-6");
    assert_eq!(log.tick_label(0.05), "0.05");
    assert_eq!(log.tick_label(300.0), "300");
    assert_eq!(tick_label(-1e-17, 2.0), "0");
    assert_eq!(tick_label(-0.0, 2.0), "0");
}

/// A log axis from `lo` to `hi` (data values), as an automatic range would be.
fn log_axis(lo: f64, hi: f64) -> Axis {
    Axis::new(true, Some((lo, hi)), None)
}

/// The labels of a log axis's ticks, checked on the way: increasing values inside the
/// axis, distinct labels, none a negative zero.
fn log_labels(axis: &Axis) -> Vec<String> {
    let ticks = axis.log_ticks();
    let (a, b) = axis.data_range();
    assert!(ticks.values.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
    assert!(
        (ticks.values.iter()).all(|&v| v >= a * (1.0 - 1e-9) && v <= b * (1.0 + 1e-9)),
        "{ticks:?} outside {a}..{b}"
    );
    let labels: Vec<String> = ticks.values.iter().map(|&v| axis.tick_label(v)).collect();
    let distinct: HashSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), labels.len(), "{labels:?}");
    assert!(!labels.iter().any(|l| l.starts_with("-0")), "{labels:?}");
    labels
}

#[test]
fn log_axes_inside_a_decade_or_two_label_values_between_the_decades() {
    // Less than two decades: 1, 2 and 5 times the powers of ten.
    assert_eq!(
        log_labels(&log_axis(3e-7, 4e-5)),
        ["5e-7", "1e-6", "2e-6", "5e-6", "1e-5", "2e-5"]
    );
    // The energy error of a run that grows twentyfold inside a decade and a half.
    assert_eq!(
        log_labels(&log_axis(1.5e-9, 3e-8)),
        ["2e-9", "5e-9", "1e-8", "2e-8"]
    );
    // Inside one decade with one decade tick or none: every mantissa.
    assert_eq!(
        log_labels(&log_axis(2.2e-6, 9.5e-6)),
        ["3e-6", "4e-6", "5e-6", "6e-6", "7e-6", "8e-6", "9e-6"]
    );
    assert_eq!(
        log_labels(&log_axis(0.35, 1.4)),
        ["0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"]
    );
    // A small fraction of a decade: round values, as on a linear axis.
    assert_eq!(
        log_labels(&log_axis(1.01, 1.09)),
        ["1.02", "1.04", "1.06", "1.08"]
    );
    assert!(log_axis(1.01, 1.09).log_ticks().linear);
}

#[test]
fn wide_log_axes_label_decades_at_most_eight() {
    assert_eq!(
        log_labels(&log_axis(1e-9, 2e-6)),
        ["1e-9", "1e-8", "1e-7", "1e-6"]
    );
    let wide = log_labels(&log_axis(1e-30, 1e10));
    assert!(wide.len() <= MAX_TICKS && wide.len() >= 4, "{wide:?}");
    assert!(wide.contains(&"1".to_string()), "{wide:?}");
}
