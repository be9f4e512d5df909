//! Figures: line, marker and reference-curve plots written as both PNG and SVG.
//!
//! A [`Figure`] is plain data (series of `(x, y)` points plus titles and axis options);
//! [`write_figure`] draws it twice with plotters, on a bitmap and on an SVG document, and
//! writes `<stem>.png` and `<stem>.svg`, each whole.
//!
//! - Text uses DejaVu Sans, embedded from `assets/fonts/` (licence beside it), so figures
//!   need no system fonts and no fontconfig. SVG files name the `sans-serif` family, and the
//!   viewer draws the text with its own font.
//! - Points that cannot be drawn (NaN, ±inf, y ≤ 0 on a log axis) are skipped and break a
//!   line. A figure without any drawable point still gets axes and a "no finite data" note;
//!   callers that would rather not write it ask [`Figure::has_data`] first.
//! - Lines are clipped and markers dropped at the plot box, so nothing is drawn over the
//!   title, tick labels or legend; the legend sits outside the plot box.
//!   [`check_figure`] verifies both on the rendered bitmap (used by the tests).
//! - Submodules: `geom` (ranges, clipping, pixels, ticks), `draw` (plotters, both formats).

mod draw;
mod geom;
pub mod map;
pub mod section;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::output::write_atomic;
pub use draw::palette_color;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Style {
    /// A coloured line through the points, in order: 2 px wide, or 1 px for a dense line
    /// (more vertices than two per pixel column), so overlapping oscillations stay apart.
    Line,
    /// A small dot at each point: 2 px radius, 1 px for dense clouds (10⁵ points).
    Markers,
    /// A thin light-grey line, for reference curves such as exact level curves. Drawn below
    /// the other series; in the legend only when labelled (like every series).
    ThinLine,
    /// As `Line`, in 8 px dashes: a second quantity of the same run beside its solid line.
    Dashed,
    /// A light grey area from the bottom of the plot up to the line (e.g. a rounding floor:
    /// what lies inside it is not resolved). Drawn below the other series.
    Band,
    /// As `Markers`, drawn together with the figure's other `MixedMarkers` series in an order
    /// mixed pixel by pixel (fixed, not random), instead of one series after another: where
    /// sets coincide (a phase portrait's times on an invariant curve) each keeps a share of
    /// the pixels, where the last drawn would otherwise hide the earlier ones.
    MixedMarkers,
}

/// One data series. An empty label keeps it out of the legend.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// An RGB colour of the caller's (e.g. from [`time_color`]); None takes the next colour
    /// of the palette (12 colours, then they repeat). Ignored for `ThinLine`.
    pub color: Option<(u8, u8, u8)>,
}

impl Series {
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>, style: Style) -> Series {
        Series {
            label: label.into(),
            points,
            style,
            color: None,
        }
    }
}

/// A colour for a fraction `f` in [0, 1] of a sequence (e.g. portrait times), from a
/// viridis-like map running from dark purple through blue and green to yellow-green; the
/// light yellow end is left out, as it hardly shows on white.
pub fn time_color(f: f64) -> (u8, u8, u8) {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (170.0, 215.0, 40.0),
    ];
    let f = if f.is_finite() {
        f.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = f * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let w = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |a: f64, b: f64| (a + w * (b - a)).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A figure: 900×700 px, one plot box with axes, title, axis labels and a legend.
#[derive(Debug, Clone, Default)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// log10 y axis; values ≤ 0 are skipped (not drawn).
    pub log_y: bool,
    /// log10 x axis, as `log_y` (log–log plots of errors against step sizes).
    pub log_x: bool,
    /// Same scale on x and y (phase portraits): the plot box shrinks on one side, the ranges
    /// stay as given or computed. Ignored with a log axis.
    pub equal_aspect: bool,
    /// None: from the data with a 5% margin. A reversed range is sorted; an unusable one
    /// (non-finite, or entirely ≤ 0 on a log axis) is ignored.
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
}

impl Figure {
    /// A figure with titles and no series; set the other fields directly.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Figure {
        Figure {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            ..Figure::default()
        }
    }

    /// Whether any point of any series can be drawn (finite, and y > 0 on a log axis).
    pub fn has_data(&self) -> bool {
        self.series
            .iter()
            .any(|s| !geom::display_runs(&s.points, self.log_x, self.log_y).is_empty())
    }
}

/// Render `fig`'s bitmap in memory and check it: some data are drawn inside the plot box,
/// and no pixel of a data series' colour lies outside the plot box (grown by 4 px, the
/// largest marker radius, for line width and markers) and the legend. The series colours are never grey (see the
/// palette), so text, axes and reference lines cannot be mistaken for them. Err says what
/// is wrong.
pub fn check_figure(fig: &Figure) -> std::result::Result<(), String> {
    let scene = draw::Scene::new(fig);
    if !scene.has_data() {
        return Err(format!("{}: no drawable data", fig.title));
    }
    let (rgb, layout) = render_rgb(&scene)?;
    let colors: Vec<[u8; 3]> = scene
        .series_colors()
        .iter()
        .map(|c| [c.0, c.1, c.2])
        .collect();
    // Markers are centred inside the box and reach out by their radius at most.
    let allowed = layout.plot.grown(draw::FEW_MARKER_RADIUS as i32);
    let (mut inside, mut outside) = (0usize, Vec::new());
    for (i, px) in rgb.chunks_exact(3).enumerate() {
        if !colors.iter().any(|c| c[..] == *px) {
            continue;
        }
        let at = (
            (i % draw::WIDTH as usize) as i32,
            (i / draw::WIDTH as usize) as i32,
        );
        if layout.plot.contains(at) {
            inside += 1;
        } else if !allowed.contains(at) && !layout.legend.is_some_and(|l| l.contains(at)) {
            outside.push(at);
        }
    }
    if inside == 0 {
        return Err(format!("{}: no data pixel in the plot box", fig.title));
    }
    if let Some(first) = outside.first() {
        return Err(format!(
            "{}: {} data pixels outside the plot box {:?} and legend {:?}, the first at {first:?}",
            fig.title,
            outside.len(),
            layout.plot,
            layout.legend
        ));
    }
    Ok(())
}

/// Write `<stem>.png` and `<stem>.svg`, each whole via crate::output::write_atomic (temp file
/// + rename). Returns the two paths written. Both images are drawn before either is written.
pub fn write_figure(fig: &Figure, stem: &Path) -> Result<[PathBuf; 2]> {
    let png_path = with_suffix(stem, "png");
    let svg_path = with_suffix(stem, "svg");
    let scene = draw::Scene::new(fig);
    let png = render_png(&scene).map_err(|e| output_error(&png_path, e))?;
    let svg = render_svg(&scene).map_err(|e| output_error(&svg_path, e))?;
    write_atomic(&png_path, &png)?;
    write_atomic(&svg_path, svg.as_bytes())?;
    Ok([png_path, svg_path])
}

/// `stem` with `.suffix` appended (not replacing an extension: "run.v2" → "run.v2.png").
fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

fn output_error(path: &Path, message: String) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(message),
    }
}

/// The embedded font, registered with plotters once per process.
fn register_font() -> std::result::Result<(), String> {
    static FONT_DATA: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(draw::FONT, FontStyle::Normal, FONT_DATA).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| "the embedded font could not be loaded".to_string())
}

/// Draw on an in-memory RGB bitmap and encode it as PNG.
fn render_png(scene: &draw::Scene) -> std::result::Result<Vec<u8>, String> {
    let (rgb, _) = render_rgb(scene)?;
    encode_png(&rgb, draw::WIDTH, draw::HEIGHT).map_err(|e| e.to_string())
}

/// Draw on an in-memory RGB bitmap: its pixels, and where the plot box and legend went.
fn render_rgb(scene: &draw::Scene) -> std::result::Result<(Vec<u8>, draw::Layout), String> {
    register_font()?;
    let (width, height) = (draw::WIDTH, draw::HEIGHT);
    let mut rgb = vec![0u8; 3 * width as usize * height as usize];
    let layout = {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        let layout = draw::draw(&root, scene).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
        layout
    };
    Ok((rgb, layout))
}

fn encode_png(
    rgb: &[u8],
    width: u32,
    height: u32,
) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// Draw into an SVG document held in a string.
fn render_svg(scene: &draw::Scene) -> std::result::Result<String, String> {
    register_font()?;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (draw::WIDTH, draw::HEIGHT)).into_drawing_area();
        draw::draw(&root, scene).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
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
}
