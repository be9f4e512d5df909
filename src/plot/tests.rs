use super::*;
use std::collections::HashSet;
use std::f64::consts::PI;

/// A decoded PNG: size and RGB pixels.
struct Image {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

fn read_png(path: &Path) -> Image {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    Image {
        width: info.width,
        height: info.height,
        pixels,
    }
}

const BACKGROUND: [u8; 3] = [255, 255, 255];

/// Write `fig`, check both files, and return the decoded PNG and the SVG text.
fn write_and_check(fig: &Figure, name: &str) -> (Image, String) {
    let dir = tempfile::tempdir().unwrap();
    let [png_path, svg_path] = write_figure(fig, &dir.path().join(name)).unwrap();
    assert_eq!(png_path, dir.path().join(format!("{name}.png")));
    assert_eq!(svg_path, dir.path().join(format!("{name}.svg")));

    let image = read_png(&png_path);
    assert_eq!((image.width, image.height), (draw::WIDTH, draw::HEIGHT));
    let drawn = image.pixels.iter().filter(|&&p| p != BACKGROUND).count();
    assert!(
        drawn > image.pixels.len() / 100,
        "{name}: only {drawn} non-background pixels"
    );
    // The title band holds nothing but text: drawn pixels there mean the embedded font
    // rendered (plotters has no other font source here).
    let title_band = &image.pixels[..30 * image.width as usize];
    let text_pixels = title_band.iter().filter(|&&p| p != BACKGROUND).count();
    assert!(
        fig.title.is_empty() || text_pixels > 100,
        "{name}: no title text"
    );
    let colors: HashSet<[u8; 3]> = image.pixels.iter().copied().collect();
    assert!(colors.len() >= 4, "{name}: {} colours", colors.len());

    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.trim_start().starts_with("<svg"), "{name}: not an SVG");
    assert!(svg.trim_end().ends_with("</svg>"), "{name}: SVG not closed");
    assert!(svg.contains(&fig.title), "{name}: SVG lacks the title");
    // No temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    // Data inside the frame only, or nothing to check.
    if fig.has_data() {
        check_figure(fig).unwrap();
    } else {
        assert!(check_figure(fig).is_err());
    }
    (image, svg)
}

fn has_pixel(image: &Image, color: RGBColor) -> bool {
    image.pixels.contains(&[color.0, color.1, color.2])
}

fn circle(radius: f64, n: usize) -> Vec<(f64, f64)> {
    (0..=n)
        .map(|i| 2.0 * PI * i as f64 / n as f64)
        .map(|t| (radius * t.cos(), radius * t.sin()))
        .collect()
}

/// A phase portrait: reference level curves, a marker cloud and a trajectory.
fn phase_portrait() -> Figure {
    let mut fig = Figure::new("Oscillator phase portrait", "q", "p");
    fig.equal_aspect = true;
    fig.series
        .push(Series::new("", circle(1.0, 200), Style::ThinLine));
    fig.series
        .push(Series::new("exact", circle(2.0, 200), Style::ThinLine));
    let cloud = (0..100_000)
        .map(|i| {
            let t = i as f64 * 0.001;
            let r = 1.0 + 0.5 * (i % 7) as f64 / 7.0;
            (r * t.cos(), 0.8 * r * t.sin())
        })
        .collect();
    fig.series
        .push(Series::new("ensemble", cloud, Style::Markers));
    fig.series
        .push(Series::new("trajectory", circle(1.8, 50), Style::Line));
    fig
}

#[test]
fn phase_portrait_with_equal_aspect_is_drawn_in_both_formats() {
    let fig = phase_portrait();
    let (image, svg) = write_and_check(&fig, "phase");
    // The first two palette colours: markers, then the line.
    assert!(has_pixel(&image, RGBColor(0, 114, 178)));
    assert!(has_pixel(&image, RGBColor(213, 94, 0)));
    assert!(svg.contains("<circle") && svg.contains("<polyline"));
    assert!(svg.contains("ensemble") && svg.contains("trajectory") && svg.contains("exact"));
    // Markers are one per pixel: far fewer circles than points.
    let circles = svg.matches("<circle").count();
    assert!(circles > 100 && circles < 100_000, "{circles} circles");
}

#[test]
fn log_y_figure_is_drawn_in_both_formats() {
    let mut fig = Figure::new("Relative energy error", "t", "|ΔH/H₀|");
    fig.log_y = true;
    let error = |t: f64| 1e-6 * (1.0 + t) * (1.1 + (3.0 * t).sin());
    let line = (0..5000).map(|i| i as f64 * 0.01).map(|t| (t, error(t)));
    fig.series
        .push(Series::new("verlet", line.collect(), Style::Line));
    let dots = (0..200)
        .map(|i| i as f64 * 0.25)
        .map(|t| (t, 1e-3 * error(t)));
    fig.series
        .push(Series::new("yoshida4", dots.collect(), Style::Markers));
    let bound = (0..50).map(|i| (i as f64, 1e-5 * (1.0 + i as f64)));
    fig.series
        .push(Series::new("", bound.collect(), Style::ThinLine));
    let (image, svg) = write_and_check(&fig, "energy");
    assert!(has_pixel(&image, RGBColor(0, 114, 178)));
    assert!(has_pixel(&image, RGBColor(213, 94, 0)));
    assert!(svg.contains("<polyline") && svg.contains("<circle"));
    assert!(svg.contains("1e-6"), "decade tick labels expected");
    assert!(!svg.contains("no finite data"));
}

/// Errors against step sizes on log–log axes: C·h² is drawn (a straight line), with
/// decade labels on both axes.
#[test]
fn log_log_figure_is_drawn_in_both_formats() {
    let mut fig = Figure::new("Convergence", "h", "error");
    (fig.log_x, fig.log_y) = (true, true);
    let h = (0..8).map(|k| 0.4 / f64::from(1 << k));
    fig.series.push(Series::new(
        "order 2",
        h.map(|h| (h, 3.0 * h * h)).collect(),
        Style::Line,
    ));
    let (image, svg) = write_and_check(&fig, "order");
    assert!(has_pixel(&image, RGBColor(0, 114, 178)));
    // The x tick labels (centred below the box, in the tick font): decades only.
    let lines: Vec<&str> = svg.lines().collect();
    let x_ticks: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0].contains("text-anchor=\"middle\"") && w[0].contains("font-size=\"13."))
        .map(|w| w[1])
        .collect();
    // Two decades: 1, 2 and 5 times the powers of ten, so values can be read off.
    assert_eq!(
        x_ticks,
        ["0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5"]
    );
    assert!(svg.contains("1e-4"), "decade tick labels on y expected");
}

#[test]
fn non_finite_points_and_empty_series_are_skipped() {
    let mut fig = Figure::new("Bad data", "x", "y");
    let mut points = circle(1.0, 100);
    points[10] = (f64::NAN, 0.0);
    points[20] = (0.0, f64::INFINITY);
    points[30] = (f64::NEG_INFINITY, f64::NAN);
    fig.series
        .push(Series::new("line", points.clone(), Style::Line));
    fig.series.push(Series::new("dots", points, Style::Markers));
    fig.series.push(Series::new("empty", vec![], Style::Line));
    let nan_only = vec![(f64::NAN, f64::NAN); 10];
    fig.series
        .push(Series::new("nan", nan_only, Style::ThinLine));
    let (_, svg) = write_and_check(&fig, "bad");
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    assert!(!svg.contains("no finite data"));

    // Nothing drawable at all: axes and a note, explicit ranges or not.
    for x_range in [None, Some((-1.0, 1.0))] {
        let mut empty = Figure::new("Nothing to draw", "x", "y");
        empty.x_range = x_range;
        empty
            .series
            .push(Series::new("nan", vec![(f64::NAN, 1.0)], Style::Line));
        let (_, svg) = write_and_check(&empty, "empty");
        assert!(svg.contains("no finite data"));
    }
    let bare = Figure {
        title: "No series".into(),
        ..Figure::default()
    };
    let (_, svg) = write_and_check(&bare, "bare");
    assert!(svg.contains("no finite data"));
}

#[test]
fn log_y_skips_zero_and_negative_values() {
    let mut fig = Figure::new("Log axis with zeros", "step", "error");
    fig.log_y = true;
    fig.equal_aspect = true; // ignored on a log axis
    let points = (0..100)
        .map(|i| {
            (
                i as f64,
                if i % 3 == 0 {
                    0.0
                } else {
                    (i as f64 - 50.0) * 1e-3
                },
            )
        })
        .collect();
    fig.series.push(Series::new("mixed", points, Style::Line));
    fig.series.push(Series::new(
        "negative",
        vec![(1.0, -1.0), (2.0, -2.0)],
        Style::Markers,
    ));
    let (_, svg) = write_and_check(&fig, "log");
    assert!(!svg.contains("no finite data"));

    // An explicit range reaching below zero, and data that are all ≤ 0.
    fig.y_range = Some((-1.0, 1.0));
    write_and_check(&fig, "log_range");
    let mut none = Figure::new("All non-positive", "x", "y");
    none.log_y = true;
    none.series.push(Series::new(
        "zeros",
        vec![(0.0, 0.0), (1.0, -1.0)],
        Style::Line,
    ));
    let (_, svg) = write_and_check(&none, "log_none");
    assert!(svg.contains("no finite data"));
}

#[test]
fn explicit_ranges_clip_the_data() {
    let mut fig = phase_portrait();
    fig.x_range = Some((-0.5, 0.5));
    fig.y_range = Some((1.0, -1.0)); // reversed: sorted
    write_and_check(&fig, "zoom");
}

#[test]
fn data_leaving_the_range_stay_inside_the_frame() {
    // Lines and markers far beyond an explicit range, long legend labels (the legend goes
    // below the plot) and twelve series, each with its own colour.
    let mut fig = Figure::new("Diverging series", "t", "x");
    fig.y_range = Some((-1.0, 1.0));
    fig.x_range = Some((0.0, 8.0));
    for k in 0..12 {
        let points = (0..400)
            .map(|i| i as f64 * 0.025)
            .map(|t| (t, (t * (1.0 + k as f64 * 0.3)).sin() * (0.5 + 0.4 * t)))
            .collect();
        let style = if k % 3 == 2 {
            Style::Markers
        } else {
            Style::Line
        };
        let label = format!("a rather long label for series number {k}, h = 0.25");
        fig.series.push(Series::new(label, points, style));
    }
    let (image, _) = write_and_check(&fig, "diverging");
    for c in draw::PALETTE {
        assert!(has_pixel(&image, c), "{c:?} not drawn");
    }
    let colors: HashSet<_> = draw::PALETTE.iter().map(|c| (c.0, c.1, c.2)).collect();
    assert_eq!(colors.len(), 12);
    // Short labels: the legend goes right of the plot box, and a log axis.
    fig.log_y = true;
    fig.y_range = Some((1e-3, 0.5));
    for (k, s) in fig.series.iter_mut().enumerate() {
        s.label = format!("m{k}");
    }
    write_and_check(&fig, "diverging_log");

    // Spikes: a wide line reversing its direction (the miter joins of plotters' bitmap
    // backend would reach far beyond the box).
    let mut spiky = Figure::new("Spiky series", "t", "error");
    spiky.log_y = true;
    // Sparse enough (under two vertices per pixel column) to be drawn 2 px wide, a third
    // of a pixel apart, every seventh point a spike down and back up.
    spiky.x_range = Some((0.0, 1800.0));
    let points: Vec<(f64, f64)> = (0..600)
        .map(|i| {
            let y = if i % 7 == 3 {
                1e-9
            } else {
                1e-2 * (1.0 + (i % 5) as f64)
            };
            (i as f64, y)
        })
        .collect();
    spiky
        .series
        .push(Series::new("spikes", points, Style::Line));
    write_and_check(&spiky, "spiky");
}

/// Three phase-portrait times on the same invariant circle: drawn one after another the
/// last hides the others; drawn mixed each keeps a share of the pixels.
#[test]
fn mixed_markers_keep_every_coinciding_set_visible() {
    let colors = [time_color(0.0), time_color(0.5), time_color(1.0)];
    let count = |style: Style| -> Vec<usize> {
        let mut fig = Figure::new("Coinciding sets", "q", "p");
        fig.equal_aspect = true;
        for (k, &c) in colors.iter().enumerate() {
            // The same circle, its 1500 points shifted along it from time to time.
            let points = (0..1500)
                .map(|i| 2.0 * PI * (i as f64 + 0.3 * k as f64) / 1500.0)
                .map(|t| (t.cos(), t.sin()))
                .collect();
            fig.series.push(Series {
                color: Some(c),
                ..Series::new(format!("t = {k}"), points, style)
            });
        }
        let (image, _) = write_and_check(&fig, "mixed");
        (colors.iter())
            .map(|c| {
                image
                    .pixels
                    .iter()
                    .filter(|p| **p == [c.0, c.1, c.2])
                    .count()
            })
            .collect()
    };
    let stacked = count(Style::Markers);
    assert!(stacked[0] < stacked[2] / 20, "{stacked:?}");
    let mixed = count(Style::MixedMarkers);
    let total: usize = mixed.iter().sum();
    assert!(mixed.iter().all(|&n| n > total / 5), "{mixed:?}");
}

#[test]
fn time_colors_run_from_dark_to_light() {
    assert_eq!(time_color(0.0), (68, 1, 84));
    assert_eq!(time_color(1.0), (170, 215, 40));
    assert_eq!(time_color(f64::NAN), time_color(0.0));
    let lightness = |(r, g, b): (u8, u8, u8)| u32::from(r) + u32::from(g) + u32::from(b);
    let steps: Vec<u32> = (0..=10)
        .map(|i| lightness(time_color(i as f64 / 10.0)))
        .collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
}

#[test]
fn unwritable_path_is_an_output_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"not a folder").unwrap();
    let err = write_figure(&phase_portrait(), &blocker.join("fig")).unwrap_err();
    assert!(matches!(err, Error::Output { .. }), "{err}");
}
