//! Drawing a figure on a plotters backend, the same way for the PNG and the SVG.
//!
//! plotters draws the frame: title, axes, ticks, grid and axis labels. The data and the legend
//! are drawn here, in pixels: `geom` clips the data to the plot box and drops points that land
//! on an already used pixel, because plotters itself neither clips nor thins. The legend sits
//! outside the plot box (to its right, or below it when the labels are long), so it never
//! covers data.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::geom::{self, Axis, PixelMap};
use super::{Figure, Series, Style};

/// Image size in pixels.
pub(super) const WIDTH: u32 = 900;
pub(super) const HEIGHT: u32 = 700;

/// The font family the embedded font is registered under (see `super::register_font`). SVG
/// files name it, so a viewer falls back to its own sans-serif font.
pub(super) const FONT: &str = "sans-serif";
pub(super) const TITLE_SIZE: f64 = 26.0;
pub(super) const AXIS_LABEL_SIZE: f64 = 20.0;
pub(super) const TICK_LABEL_SIZE: f64 = 17.0;
const LEGEND_SIZE: f64 = 17.0;
/// Legend geometry: row height, the sample (line or dot) width, gaps and the widest legend
/// that goes to the right of the plot box (a wider one goes below it).
const LEGEND_ROW: u32 = 24;
const LEGEND_SAMPLE: i32 = 24;
const LEGEND_PAD: i32 = 8;
const LEGEND_GAP: u32 = 12;
const LEGEND_MAX_RIGHT: u32 = 260;

/// Space around the chart, and for the tick labels plus axis label below and left of it.
const MARGIN: u32 = 20;
const X_LABEL_AREA: u32 = 60;
const Y_LABEL_AREA: u32 = 90;

/// Marker radius in pixels: 4 for a few marked values (at most `FEW_MARKERS`: the step sizes
/// of a convergence study, a sweep's parts), 2 for a sparse series (at most `SPARSE_MARKERS`
/// pixels in use), 1 for a dense cloud, where bigger dots would merge.
pub(super) const FEW_MARKER_RADIUS: u32 = 4;
const FEW_MARKERS: usize = 64;
const SPARSE_MARKER_RADIUS: u32 = 2;
const DENSE_MARKER_RADIUS: u32 = 1;
const SPARSE_MARKERS: usize = 2000;
const LINE_WIDTH: u32 = 2;
/// How far (pixels) a vertex of a 1 px line may lie off the segment it is merged into
/// (`geom::simplified`).
const SIMPLIFY_TOLERANCE: f64 = 0.5;

pub(super) const BACKGROUND: RGBColor = WHITE;
const THIN_LINE_COLOR: RGBColor = RGBColor(185, 185, 185);
/// `Style::Band`'s fill.
const BAND_COLOR: RGBColor = RGBColor(222, 222, 222);
const NOTE_COLOR: RGBColor = RGBColor(110, 110, 110);

/// Series colours, 12 before the cycle repeats: the Okabe–Ito palette (which stays
/// distinguishable with colour-blindness) without its black and yellow, then six of Paul Tol's
/// colours. None is a grey, so a series pixel is never confused with text, axes or the grey
/// reference lines (the frame check in `super::check_figure` relies on that).
pub(super) const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(136, 34, 85),   // wine
    RGBColor(51, 34, 136),   // indigo
    RGBColor(17, 119, 51),   // green
    RGBColor(153, 153, 51),  // olive
    RGBColor(170, 68, 153),  // purple
    RGBColor(68, 170, 153),  // teal
];

/// The palette's `i`-th colour (cycling), which a series given no colour would get in that
/// place: for series that share a colour (a run's solid and dashed lines).
pub fn palette_color(i: usize) -> (u8, u8, u8) {
    let c = PALETTE[i % PALETTE.len()];
    (c.0, c.1, c.2)
}

/// Dashes of `Style::Dashed`: drawn and skipped lengths in pixels.
const DASH_ON: f64 = 8.0;
const DASH_OFF: f64 = 5.0;

/// A series made ready to draw: its runs of drawable points in display coordinates.
struct Prepared<'a> {
    series: &'a Series,
    runs: Vec<Vec<(f64, f64)>>,
    color: RGBColor,
}

/// Everything needed to draw a figure, computed once for both images.
pub(super) struct Scene<'a> {
    fig: &'a Figure,
    /// In drawing order: thin reference lines first, so data are drawn over them.
    series: Vec<Prepared<'a>>,
    x: Axis,
    y: Axis,
    has_data: bool,
}

impl<'a> Scene<'a> {
    pub fn new(fig: &'a Figure) -> Scene<'a> {
        let mut next_color = PALETTE.iter().copied().cycle();
        let mut series: Vec<Prepared> = fig
            .series
            .iter()
            .map(|s| Prepared {
                series: s,
                runs: geom::display_runs(&s.points, fig.log_x, fig.log_y),
                color: match (s.style, s.color) {
                    (Style::ThinLine, _) => THIN_LINE_COLOR,
                    (Style::Band, _) => BAND_COLOR,
                    (_, Some((r, g, b))) => RGBColor(r, g, b),
                    (Style::Line | Style::Markers | Style::MixedMarkers | Style::Dashed, None) => {
                        next_color.next().unwrap_or(BLACK)
                    }
                },
            })
            .collect();
        // stable: order kept within bands, thin lines and the rest
        series.sort_by_key(|p| match p.series.style {
            Style::Band => 0,
            Style::ThinLine => 1,
            _ => 2,
        });

        let points = || series.iter().flat_map(|p| p.runs.iter().flatten());
        let x = Axis::new(fig.log_x, fig.x_range, geom::extent(points().map(|p| p.0)));
        let y = Axis::new(fig.log_y, fig.y_range, geom::extent(points().map(|p| p.1)));
        let has_data = points().next().is_some();
        Scene {
            fig,
            series,
            x,
            y,
            has_data,
        }
    }

    /// Whether any point can be drawn.
    pub fn has_data(&self) -> bool {
        self.has_data
    }

    /// The colours of the data series (not of the grey reference lines).
    pub fn series_colors(&self) -> Vec<RGBColor> {
        self.series
            .iter()
            .filter(|p| !matches!(p.series.style, Style::ThinLine | Style::Band))
            .map(|p| p.color)
            .collect()
    }

    fn legend_entries(&self) -> impl Iterator<Item = &Prepared<'a>> {
        self.series.iter().filter(|p| !p.series.label.is_empty())
    }
}

/// A pixel rectangle, `x0..x1` × `y0..y1` (ends excluded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl Rect {
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        self.x0 <= x && x < self.x1 && self.y0 <= y && y < self.y1
    }

    /// The rectangle grown by `by` pixels on every side.
    pub fn grown(&self, by: i32) -> Rect {
        Rect {
            x0: self.x0 - by,
            y0: self.y0 - by,
            x1: self.x1 + by,
            y1: self.y1 + by,
        }
    }
}

/// Where a drawn figure put its plot box and its legend (if any), in pixels.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub plot: Rect,
    pub legend: Option<Rect>,
}

/// Where the legend goes: to the right of the plot box or below it, and its size.
#[derive(Debug, Clone, Copy)]
struct LegendBox {
    right: bool,
    width: u32,
    height: u32,
}

/// Draw the whole figure on `root`; returns where the plot box and the legend went.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    scene: &Scene,
) -> Result<Layout, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&BACKGROUND)?;
    let area = if scene.fig.title.is_empty() {
        root.clone()
    } else {
        root.titled(&scene.fig.title, (FONT, TITLE_SIZE))?
    };

    // The legend takes a column right of the plot box, or rows below it when its labels are
    // too long for a column.
    let legend = legend_box(root, scene)?;
    let (legend_w, legend_h) = match legend {
        Some(l) if l.right => (l.width + LEGEND_GAP, 0),
        Some(l) => (0, l.height + LEGEND_GAP),
        None => (0, 0),
    };

    // The plot box fills what the margins, label areas and legend leave, unless equal_aspect
    // asks for the same scale on both axes: then one side of the box shrinks, centred.
    let (width, height) = area.dim_in_pixel();
    let free_w = width.saturating_sub(2 * MARGIN + Y_LABEL_AREA + legend_w);
    let free_h = height.saturating_sub(2 * MARGIN + X_LABEL_AREA + legend_h);
    let (box_w, box_h) = if scene.fig.equal_aspect && !scene.x.log && !scene.y.log {
        geom::equal_aspect_box(&scene.x, &scene.y, free_w, free_h)
    } else {
        (free_w, free_h)
    };
    let (spare_w, spare_h) = (free_w.saturating_sub(box_w), free_h.saturating_sub(box_h));

    let mut builder = ChartBuilder::on(&area);
    builder
        .margin_left(MARGIN + spare_w / 2)
        .margin_right(MARGIN + legend_w + spare_w - spare_w / 2)
        .margin_top(MARGIN + spare_h / 2)
        .margin_bottom(MARGIN + legend_h + spare_h - spare_h / 2)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA);
    let (x_lo, x_hi) = scene.x.data_range();
    let (y_lo, y_hi) = scene.y.data_range();
    // The axis kinds (linear, log) are different types, hence one call each.
    let (xs, ys) = (x_lo..x_hi, y_lo..y_hi);
    // A log axis takes the ticks `geom` chooses (plotters labels decades only, so an axis
    // inside one decade would get one label or none).
    let x_log = || {
        xs.clone()
            .log_scale()
            .with_key_points(scene.x.log_ticks().values)
    };
    let y_log = || {
        ys.clone()
            .log_scale()
            .with_key_points(scene.y.log_ticks().values)
    };
    let plot = match (scene.x.log, scene.y.log) {
        (false, false) => draw_chart(builder.build_cartesian_2d(xs.clone(), ys.clone())?, scene)?,
        (false, true) => draw_chart(builder.build_cartesian_2d(xs.clone(), y_log())?, scene)?,
        (true, false) => draw_chart(builder.build_cartesian_2d(x_log(), ys.clone())?, scene)?,
        (true, true) => draw_chart(builder.build_cartesian_2d(x_log(), y_log())?, scene)?,
    };
    let legend = match legend {
        Some(l) => {
            let (x0, y0) = if l.right {
                (plot.x1 + LEGEND_GAP as i32, plot.y0)
            } else {
                (plot.x0, plot.y1 + (X_LABEL_AREA + LEGEND_GAP) as i32)
            };
            let rect = Rect {
                x0,
                y0,
                x1: x0 + l.width as i32,
                y1: y0 + l.height as i32,
            };
            draw_legend(root, scene, rect)?;
            Some(rect)
        }
        None => None,
    };
    Ok(Layout { plot, legend })
}

/// The legend's size and side, or None when no series is labelled.
fn legend_box<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    scene: &Scene,
) -> Result<Option<LegendBox>, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = TextStyle::from((FONT, LEGEND_SIZE));
    let mut text_w = 0;
    let mut rows = 0;
    for p in scene.legend_entries() {
        let (w, _) = root.estimate_text_size(&p.series.label, &style)?;
        text_w = text_w.max(w);
        rows += 1;
    }
    if rows == 0 {
        return Ok(None);
    }
    let width = text_w + (LEGEND_SAMPLE + 3 * LEGEND_PAD) as u32;
    let height = rows * LEGEND_ROW + LEGEND_PAD as u32;
    Ok(Some(LegendBox {
        right: width <= LEGEND_MAX_RIGHT,
        width,
        height,
    }))
}

/// Draw the legend in `rect`: a frame, and per labelled series its sample and label.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    scene: &Scene,
    rect: Rect,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Rectangle::new(
        [(rect.x0, rect.y0), (rect.x1 - 1, rect.y1 - 1)],
        RGBColor(0, 0, 0).mix(0.4),
    ))?;
    let text = TextStyle::from((FONT, LEGEND_SIZE)).pos(Pos::new(HPos::Left, VPos::Center));
    for (row, p) in scene.legend_entries().enumerate() {
        let y = rect.y0 + LEGEND_PAD / 2 + (row as i32 * LEGEND_ROW as i32) + LEGEND_ROW as i32 / 2;
        let x = rect.x0 + LEGEND_PAD;
        match p.series.style {
            Style::Markers | Style::MixedMarkers => {
                root.draw(&Circle::new(
                    (x + LEGEND_SAMPLE / 2, y),
                    4,
                    p.color.filled(),
                ))?;
            }
            Style::Line => {
                let sample = [(x, y), (x + LEGEND_SAMPLE, y)];
                root.draw(&PathElement::new(sample, p.color.stroke_width(LINE_WIDTH)))?;
            }
            Style::ThinLine => {
                root.draw(&PathElement::new([(x, y), (x + LEGEND_SAMPLE, y)], p.color))?;
            }
            Style::Band => {
                let corners = [(x, y - 5), (x + LEGEND_SAMPLE, y + 5)];
                root.draw(&Rectangle::new(corners, p.color.filled()))?;
            }
            Style::Dashed => {
                for line in dashes(vec![vec![(x, y), (x + LEGEND_SAMPLE, y)]]) {
                    root.draw(&PathElement::new(line, p.color.stroke_width(LINE_WIDTH)))?;
                }
            }
        }
        let at = (x + LEGEND_SAMPLE + LEGEND_PAD, y);
        root.draw(&Text::new(p.series.label.as_str(), at, text.clone()))?;
    }
    Ok(())
}

/// Draw the axes, the data and, without data, a note, on a built chart; returns the plot box.
fn draw_chart<'a, DB, X, Y>(
    chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    scene: &Scene,
) -> Result<Rect, DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let x_tick = |v: &f64| scene.x.tick_label(*v);
    let y_tick = |v: &f64| scene.y.tick_label(*v);
    let mut chart = chart;
    chart
        .configure_mesh()
        .x_desc(scene.fig.x_label.as_str())
        .y_desc(scene.fig.y_label.as_str())
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .x_labels(8)
        .y_labels(8)
        .label_style((FONT, TICK_LABEL_SIZE))
        .axis_desc_style((FONT, AXIS_LABEL_SIZE))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;

    // Data are drawn in absolute pixels; PixelMap reproduces plotters' mapping onto the box.
    let screen = chart.plotting_area().use_screen_coord();
    let (xs, ys) = screen.get_pixel_range();
    let map = PixelMap {
        x: scene.x,
        y: scene.y,
        left: f64::from(xs.start),
        right: f64::from(xs.end - 1),
        top: f64::from(ys.start),
        bottom: f64::from(ys.end - 1),
    };
    let mut mixed_drawn = false;
    for p in &scene.series {
        if p.series.style != Style::MixedMarkers {
            draw_series(&screen, &map, p)?;
        } else if !mixed_drawn {
            // All of them at the place of the first.
            draw_mixed_markers(&screen, &map, &scene.series)?;
            mixed_drawn = true;
        }
    }

    if !scene.has_data {
        let centre = ((xs.start + xs.end) / 2, (ys.start + ys.end) / 2);
        let style = TextStyle::from((FONT, AXIS_LABEL_SIZE))
            .color(&NOTE_COLOR)
            .pos(Pos::new(HPos::Center, VPos::Center));
        screen.draw(&Text::new("no finite data", centre, style))?;
    }
    Ok(Rect {
        x0: xs.start,
        y0: ys.start,
        x1: xs.end,
        y1: ys.end,
    })
}

/// A series' marker radius for `pixels` pixels in use (see `FEW_MARKER_RADIUS`).
fn marker_radius(pixels: usize) -> u32 {
    if pixels <= FEW_MARKERS {
        FEW_MARKER_RADIUS
    } else if pixels <= SPARSE_MARKERS {
        SPARSE_MARKER_RADIUS
    } else {
        DENSE_MARKER_RADIUS
    }
}

/// Draw every `MixedMarkers` series' markers at once, in the order of `geom::mixing_rank` of
/// (pixel, series), so that no series is drawn entirely over another.
fn draw_mixed_markers<DB: DrawingBackend>(
    screen: &DrawingArea<DB, Shift>,
    map: &PixelMap,
    series: &[Prepared],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut markers: Vec<(u64, (i32, i32), u32, RGBColor)> = Vec::new();
    for (i, p) in series.iter().enumerate() {
        if p.series.style != Style::MixedMarkers {
            continue;
        }
        let pixels = map.marker_pixels(&p.runs);
        let radius = marker_radius(pixels.len());
        markers
            .extend((pixels.into_iter()).map(|px| (geom::mixing_rank(px, i), px, radius, p.color)));
    }
    markers.sort_unstable_by_key(|m| m.0);
    for (_, px, radius, color) in markers {
        screen.draw(&Circle::new(px, radius, color.filled()))?;
    }
    Ok(())
}

/// Draw one series' points or polylines, in pixels.
fn draw_series<DB: DrawingBackend>(
    screen: &DrawingArea<DB, Shift>,
    map: &PixelMap,
    p: &Prepared,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match p.series.style {
        Style::Markers | Style::MixedMarkers => {
            let style = p.color.filled();
            let pixels = map.marker_pixels(&p.runs);
            let radius = marker_radius(pixels.len());
            for pixel in pixels {
                screen.draw(&Circle::new(pixel, radius, style))?;
            }
        }
        Style::Line | Style::ThinLine => {
            let lines = map.polylines(&p.runs);
            // A line with more vertices than two per pixel column of the box is a dense
            // oscillation: drawn 1 px wide, so that overlapping series stay apart.
            let vertices: usize = lines.iter().map(Vec::len).sum();
            let columns = (map.right - map.left).max(1.0) as usize;
            let width = if p.series.style == Style::Line && vertices <= 2 * columns {
                LINE_WIDTH
            } else {
                1
            };
            let style = p.color.stroke_width(width);
            let lines = if width > 1 {
                geom::split_sharp_turns(lines)
            } else {
                let merged = lines
                    .iter()
                    .map(|l| geom::simplified(l, SIMPLIFY_TOLERANCE));
                merged.collect()
            };
            for line in lines {
                screen.draw(&PathElement::new(line, style))?;
            }
        }
        Style::Dashed => {
            let style = p.color.stroke_width(LINE_WIDTH);
            for dash in dashes(map.polylines(&p.runs)) {
                screen.draw(&PathElement::new(dash, style))?;
            }
        }
        Style::Band => {
            let bottom = map.bottom as i32;
            for mut line in map.polylines(&p.runs) {
                let (Some(&(first, _)), Some(&(last, _))) = (line.first(), line.last()) else {
                    continue;
                };
                line.extend([(last, bottom), (first, bottom)]);
                screen.draw(&Polygon::new(line, p.color.filled()))?;
            }
        }
    }
    Ok(())
}

/// Pixel polylines cut into dashes, `DASH_ON` drawn then `DASH_OFF` skipped along their length
/// (the pattern runs on across vertices, so dense lines stay dashed).
fn dashes(lines: Vec<Vec<(i32, i32)>>) -> Vec<Vec<(i32, i32)>> {
    let mut out = Vec::new();
    for line in lines {
        // Distance left in the current dash (on) or gap (off).
        let (mut on, mut left) = (true, DASH_ON);
        let mut current = vec![];
        for w in line.windows(2) {
            let (a, b) = (
                (w[0].0 as f64, w[0].1 as f64),
                (w[1].0 as f64, w[1].1 as f64),
            );
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let at = |s: f64| {
                let f = if len > 0.0 { s / len } else { 0.0 };
                (
                    (a.0 + f * (b.0 - a.0)).round() as i32,
                    (a.1 + f * (b.1 - a.1)).round() as i32,
                )
            };
            let mut s = 0.0;
            if on && current.is_empty() {
                current.push(w[0]);
            }
            while len - s >= left {
                s += left;
                if on {
                    current.push(at(s));
                    out.push(std::mem::take(&mut current));
                } else {
                    current.push(at(s));
                }
                on = !on;
                left = if on { DASH_ON } else { DASH_OFF };
            }
            left -= len - s;
            if on {
                current.push(w[1]);
            }
        }
        if current.len() > 1 {
            out.push(current);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::dashes;

    #[test]
    fn dashes_alternate_8_px_on_5_px_off_across_vertices() {
        // 30 px along x with a vertex at 10: dashes [0, 8], [13, 21], [26, 30].
        let got = dashes(vec![vec![(0, 0), (10, 0), (30, 0)]]);
        assert_eq!(
            got,
            [
                vec![(0, 0), (8, 0)],
                vec![(13, 0), (21, 0)],
                vec![(26, 0), (30, 0)]
            ]
        );
    }
}
