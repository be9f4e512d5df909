//! A map (map.png/svg): one value per cell of a regular 2-D grid, drawn as coloured cells
//! over the grid's two coordinates, with a colour bar beside the plot (or, for a map of
//! categories such as exit basins, a legend of their colours: `write_category_map`) and a
//! caption naming the colour of the cells without a value. Drawn with plotters on the same bitmap and SVG
//! backends, font and colour scale (`time_color`) as the other figures.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::draw::{AXIS_LABEL_SIZE, BACKGROUND, FONT, HEIGHT, TICK_LABEL_SIZE, TITLE_SIZE, WIDTH};
use super::geom::tick_label;
use super::{encode_png, output_error, register_font, time_color, with_suffix};
use crate::error::Result;
use crate::output::write_atomic;

/// Cells without a value: a mid grey, which the colour scale (purple through yellow-green)
/// never takes.
pub const MISSING: (u8, u8, u8) = (170, 170, 170);

/// Width of the colour bar's column (bar, ticks and its label), and the caption's height.
const BAR_AREA: u32 = 170;
const CAPTION_AREA: u32 = 34;
/// Steps of the colour bar.
const BAR_STEPS: usize = 128;

/// A map's data: `values[i + columns·j]` is the cell at column i (x) and row j (y).
#[derive(Debug, Clone)]
pub struct Map {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The centres of the first and last column, and of the first and last row.
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub columns: usize,
    pub rows: usize,
    /// Non-finite: the cell has no value.
    pub values: Vec<f64>,
    /// The colour scale's range; values beyond it take its end colours.
    pub scale: (f64, f64),
    pub bar_label: String,
    /// The caption of the cells without a value (drawn when there are any).
    pub missing_label: String,
}

impl Map {
    /// The colour of a value on the scale (its ends beyond it), or `MISSING`.
    pub fn color(&self, v: f64) -> (u8, u8, u8) {
        if !v.is_finite() {
            return MISSING;
        }
        let (lo, hi) = self.scale;
        let f = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        time_color(f)
    }

    /// How many cells have no value.
    pub fn missing(&self) -> usize {
        self.values.iter().filter(|v| !v.is_finite()).count()
    }

    /// One axis's cell edges' range and cell width: centres `c` of `count` cells.
    fn edges(c: (f64, f64), count: usize) -> (f64, f64, f64) {
        let w = if count > 1 && c.1 != c.0 {
            (c.1 - c.0) / (count - 1) as f64
        } else {
            1.0
        };
        (c.0 - 0.5 * w, c.1 + 0.5 * w, w)
    }
}

/// A map of categories: cell values are indices into `entries` (its colour and legend
/// label), non-finite for cells without a value.
pub type Legend = [((u8, u8, u8), String)];

/// Write `<stem>.png` and `<stem>.svg`, each whole, both drawn before either is written.
pub fn write_map(map: &Map, stem: &Path) -> Result<[PathBuf; 2]> {
    write_either(map, None, stem)
}

/// As `write_map`, for a map of categories: each cell in its category's colour (`Legend`),
/// with the legend in place of the colour bar (`Map::scale` and `bar_label` unused).
pub fn write_category_map(map: &Map, legend: &Legend, stem: &Path) -> Result<[PathBuf; 2]> {
    write_either(map, Some(legend), stem)
}

fn write_either(map: &Map, legend: Option<&Legend>, stem: &Path) -> Result<[PathBuf; 2]> {
    let (png_path, svg_path) = (with_suffix(stem, "png"), with_suffix(stem, "svg"));
    let png = render_png(map, legend).map_err(|e| output_error(&png_path, e))?;
    let svg = render_svg(map, legend).map_err(|e| output_error(&svg_path, e))?;
    write_atomic(&png_path, &png)?;
    write_atomic(&svg_path, svg.as_bytes())?;
    Ok([png_path, svg_path])
}

fn render_png(map: &Map, legend: Option<&Legend>) -> std::result::Result<Vec<u8>, String> {
    register_font()?;
    let mut rgb = vec![0u8; 3 * WIDTH as usize * HEIGHT as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, map, legend).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    encode_png(&rgb, WIDTH, HEIGHT).map_err(|e| e.to_string())
}

fn render_svg(map: &Map, legend: Option<&Legend>) -> std::result::Result<String, String> {
    register_font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, map, legend).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A cell's colour: its category's with a legend, else its value's on the scale.
fn cell_color(map: &Map, legend: Option<&Legend>, v: f64) -> (u8, u8, u8) {
    match legend {
        Some(entries) if v.is_finite() && v >= 0.0 && (v as usize) < entries.len() => {
            entries[v as usize].0
        }
        Some(_) => MISSING,
        None => map.color(v),
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// The whole map: title, cells with axes, colour bar (or legend), caption.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    map: &Map,
    legend: Option<&Legend>,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&BACKGROUND)?;
    let area = root.titled(&map.title, (FONT, TITLE_SIZE))?;
    let (_, h) = area.dim_in_pixel();
    let (body, caption) = area.split_vertically(h.saturating_sub(CAPTION_AREA));
    let (w, _) = body.dim_in_pixel();
    let (cells, bar) = body.split_horizontally(w.saturating_sub(BAR_AREA));

    let (x0, x1, dx) = Map::edges(map.x, map.columns);
    let (y0, y1, dy) = Map::edges(map.y, map.rows);
    let mut chart = ChartBuilder::on(&cells)
        .margin(20)
        .x_label_area_size(60)
        .y_label_area_size(90)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    // Labels as the other figures write them: no float noise, no negative zero.
    let x_tick = |v: &f64| tick_label(*v, x1 - x0);
    let y_tick = |v: &f64| tick_label(*v, y1 - y0);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(map.x_label.as_str())
        .y_desc(map.y_label.as_str())
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .label_style((FONT, TICK_LABEL_SIZE))
        .axis_desc_style((FONT, AXIS_LABEL_SIZE))
        .draw()?;
    let centre = |c: (f64, f64), w: f64, k: usize| c.0 + w * k as f64;
    chart.draw_series((0..map.rows).flat_map(|j| {
        (0..map.columns).map(move |i| {
            let (cx, cy) = (centre(map.x, dx, i), centre(map.y, dy, j));
            let color = rgb(cell_color(map, legend, map.values[i + map.columns * j]));
            Rectangle::new(
                [
                    (cx - 0.5 * dx, cy - 0.5 * dy),
                    (cx + 0.5 * dx, cy + 0.5 * dy),
                ],
                color.filled(),
            )
        })
    }))?;

    match legend {
        Some(entries) => draw_legend(&bar, entries)?,
        None => draw_bar(&bar, map)?,
    }
    let missing = map.missing();
    if missing > 0 {
        let y = (CAPTION_AREA / 2) as i32;
        caption.draw(&Rectangle::new(
            [(30, y - 8), (46, y + 8)],
            rgb(MISSING).filled(),
        ))?;
        let text = TextStyle::from((FONT, TICK_LABEL_SIZE)).pos(Pos::new(HPos::Left, VPos::Center));
        let label = format!("{} ({missing} of {})", map.missing_label, map.values.len());
        caption.draw(&Text::new(label, (56, y), text))?;
    }
    Ok(())
}

/// The colour bar of a map of values.
fn draw_bar<DB: DrawingBackend>(
    bar: &DrawingArea<DB, Shift>,
    map: &Map,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (lo, hi) = if map.scale.1 > map.scale.0 {
        map.scale
    } else {
        (map.scale.0 - 0.5, map.scale.0 + 0.5)
    };
    let mut scale = ChartBuilder::on(bar)
        .margin_top(20)
        .margin_bottom(80)
        .margin_right(30)
        .y_label_area_size(110)
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    let bar_tick = |v: &f64| tick_label(*v, hi - lo);
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_formatter(&bar_tick)
        .y_desc(map.bar_label.as_str())
        .label_style((FONT, TICK_LABEL_SIZE))
        .axis_desc_style((FONT, AXIS_LABEL_SIZE))
        // Labels stand twice the tick's length from the bar (plotters' rule): at the default
        // the digits touched its colours.
        .set_tick_mark_size(LabelAreaPosition::Left, 6)
        .draw()?;
    let step = (hi - lo) / BAR_STEPS as f64;
    scale.draw_series((0..BAR_STEPS).map(|k| {
        let v = lo + step * k as f64;
        let color = rgb(time_color((k as f64 + 0.5) / BAR_STEPS as f64));
        Rectangle::new([(0.0, v), (1.0, v + step)], color.filled())
    }))?;
    Ok(())
}

/// The legend of a map of categories: a swatch and a label per category, from the top.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &Legend,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let text = TextStyle::from((FONT, TICK_LABEL_SIZE)).pos(Pos::new(HPos::Left, VPos::Center));
    for (k, (color, label)) in entries.iter().enumerate() {
        let y = 60 + 28 * k as i32;
        area.draw(&Rectangle::new(
            [(4, y - 8), (20, y + 8)],
            rgb(*color).filled(),
        ))?;
        area.draw(&Text::new(label.clone(), (26, y), text.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(values: Vec<f64>) -> Map {
        Map {
            title: "test map".into(),
            x_label: "q2".into(),
            y_label: "p2".into(),
            x: (-1.0, 1.0),
            y: (0.0, 2.0),
            columns: 3,
            rows: 2,
            values,
            scale: (0.0, 8.0),
            bar_label: "MEGNO ⟨Y⟩".into(),
            missing_label: "no value".into(),
        }
    }

    #[test]
    fn cells_take_the_scale_colours_and_missing_ones_grey() {
        let m = map(vec![0.0, 4.0, 100.0, f64::NAN, -3.0, 8.0]);
        assert_eq!(m.color(0.0), time_color(0.0));
        assert_eq!(m.color(100.0), time_color(1.0));
        assert_eq!(m.color(-3.0), time_color(0.0));
        assert_eq!(m.color(f64::NAN), MISSING);
        assert_eq!(m.missing(), 1);
        assert_eq!(Map::edges((-1.0, 1.0), 3), (-1.5, 1.5, 1.0));
    }

    #[test]
    fn both_files_are_written_with_labels_and_every_colour() {
        let dir = tempfile::tempdir().unwrap();
        let m = map(vec![0.0, 4.0, 100.0, f64::NAN, -3.0, 8.0]);
        let [png, svg] = write_map(&m, &dir.path().join("map")).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        let has = |c: (u8, u8, u8)| buf.chunks_exact(3).any(|p| p == [c.0, c.1, c.2]);
        for c in [time_color(0.0), time_color(0.5), MISSING] {
            assert!(has(c), "no pixel of {c:?}");
        }
        let text = std::fs::read_to_string(svg).unwrap();
        for label in ["test map", "q2", "p2", "MEGNO ⟨Y⟩", "no value (1 of 6)"] {
            assert!(text.contains(label), "SVG lacks {label}");
        }
    }

    /// A map of categories: each cell in its category's colour, the legend's labels in place
    /// of the colour bar, cells outside the categories grey.
    #[test]
    fn category_cells_take_their_legend_colours() {
        let dir = tempfile::tempdir().unwrap();
        let m = map(vec![0.0, 1.0, 2.0, f64::NAN, 1.0, 0.0]);
        let legend = [
            ((200, 30, 30), "exit 1".to_string()),
            ((30, 30, 200), "exit 2".to_string()),
            ((250, 250, 250), "not escaped".to_string()),
        ];
        assert_eq!(cell_color(&m, Some(&legend), 1.0), (30, 30, 200));
        assert_eq!(cell_color(&m, Some(&legend), 3.0), MISSING);
        let [png, svg] = write_category_map(&m, &legend, &dir.path().join("basins")).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        let has = |c: (u8, u8, u8)| buf.chunks_exact(3).any(|p| p == [c.0, c.1, c.2]);
        for c in [(200, 30, 30), (30, 30, 200), MISSING] {
            assert!(has(c), "no pixel of {c:?}");
        }
        let text = std::fs::read_to_string(svg).unwrap();
        for label in ["exit 1", "exit 2", "not escaped", "no value (1 of 6)"] {
            assert!(text.contains(label), "SVG lacks {label}");
        }
        assert!(
            !text.contains("MEGNO"),
            "a colour bar's label in a map of categories"
        );
    }

    /// Axes and colour bar through zero, in steps that are not exact in binary: every tick
    /// label is a short number, and zero is "0", never "-0" or "-0.0".
    #[test]
    fn tick_labels_have_no_negative_zero_or_float_noise() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = map((0..49).map(|k| k as f64 * 0.1 - 2.4).collect());
        (m.x, m.y, m.columns, m.rows) = ((-0.3, 0.3), (-0.7, 0.5), 7, 7);
        m.scale = (-0.3, 0.3);
        let [_, svg] = write_map(&m, &dir.path().join("map")).unwrap();
        let text = std::fs::read_to_string(svg).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let labels: Vec<&str> = (lines.windows(2))
            .filter(|w| w[0].contains("<text"))
            .map(|w| w[1].trim())
            .filter(|l| l.parse::<f64>().is_ok())
            .collect();
        assert!(labels.len() > 10, "{labels:?}");
        assert!(labels.contains(&"0"), "{labels:?}");
        for l in &labels {
            assert!(
                !l.starts_with("-0") || l.starts_with("-0."),
                "{l} in {labels:?}"
            );
            assert!(l.parse::<f64>().unwrap() != 0.0 || *l == "0", "{l}");
            assert!(l.len() <= 5, "float noise: {l}");
        }
    }
}
