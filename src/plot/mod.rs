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

    /// Whether any point of any data series can be drawn (finite, and y > 0 on a log axis).
    /// A band (a rounding floor) is a frame of reference, not data: a figure of a run whose
    /// errors are exactly zero stays empty with it.
    pub fn has_data(&self) -> bool {
        self.series.iter().any(|s| {
            s.style != Style::Band
                && !geom::display_runs(&s.points, self.log_x, self.log_y).is_empty()
        })
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
mod tests;
