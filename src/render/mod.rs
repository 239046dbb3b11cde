//! Pictures of a game: a recording's map, each player's path, and marks for spawns,
//! deaths, kills and finishes, as SVG or PNG.
//!
//! [`Recording::scene`](crate::recording::Recording::scene) reads a recording (any format,
//! chosen by the entry point) into a [`Scene`]: the map's physics tiles coloured by kind
//! ([`TileKind`], after DDNet's entities view), the players' paths over the chosen range
//! in one colour each ([`PlayerPath`]), the [`Mark`]s of the game's events, a title line
//! and a legend, all laid out on a canvas of the size asked for. [`Scene::to_svg`] writes
//! it as an SVG document and [`Scene::to_png`] rasterizes it with tiny-skia into a palette
//! PNG (the text's glyphs are the outlines of two embedded fonts that cover Latin, Greek,
//! Cyrillic, CJK and Hangul: `text.rs`); both draw the same shapes at the same places, and
//! [`Scene::project`] says where a world position lands on the canvas.
//!
//! Teeworlds maps come from the demo's embedded map or a map file given with the options
//! ([`RenderOptions::map`]), which must be the one the recording names (its checksum).
//! A Source demo holds no map geometry (the BSP is not in it): its paths are drawn on the
//! map's x/y plane, north up, over a grid, with their bounds in the title.
//!
//! What this layer leaves to others: reading the formats and resolving tick ranges (the
//! entry point and the format modules), the map's look beyond its physics tiles (images,
//! quads), and where the picture goes (the front ends write it).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

mod gather;
mod indexed;
mod recording;
mod text;
mod world;

pub use world::OverviewImage;

pub(crate) use gather::{Gathered, Track, gather, group};

use crate::datafile::PhysicsLayers;
use crate::gamenet::summary::EventKind;
use crate::time::RangeBound;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What to draw, and how large.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// The range's first tick, as `trim` takes it (`None`: the recording's start).
    pub from: Option<RangeBound>,
    /// The range's last tick (`None`: the recording's end).
    pub to: Option<RangeBound>,
    /// The players to draw, by name (empty: every player).
    pub players: Vec<String>,
    /// Draw where the players were most (a heat map) rather than their paths.
    pub heatmap: bool,
    /// The canvas, in pixels: width and height.
    pub size: (u32, u32),
    /// The map file, for a teehistorian file (which names its map but does not hold it);
    /// for a demo it replaces the embedded map. Checked against the recording's checksum.
    /// For a Source demo: the map's BSP file (`VBSP`), whose floors and walls are drawn
    /// under the paths ([`crate::source::bsp`]).
    pub map: Option<Vec<u8>>,
    /// For a Source demo: an overview image drawn under the paths instead of the BSP's
    /// surfaces, placed by its description (`resource/overview/<map>.txt`).
    pub overview: Option<OverviewImage>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            from: None,
            to: None,
            players: Vec::new(),
            heatmap: false,
            size: DEFAULT_SIZE,
            map: None,
            overview: None,
        }
    }
}

/// The canvas size when none is asked for.
pub(crate) const DEFAULT_SIZE: (u32, u32) = (1024, 768);
/// The largest canvas side drawn, in pixels.
pub(crate) const MAX_SIDE: u32 = 8192;
/// The smallest canvas side drawn, in pixels (room for the title and a legend).
pub(crate) const MIN_SIDE: u32 = 64;

/// The kinds of image written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// PNG, 8-bit RGBA.
    Png,
    /// An SVG document.
    Svg,
}

impl ImageFormat {
    /// The format a file name's extension names (`.png`, `.svg`, any case), if any.
    pub fn from_path(path: &std::path::Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageFormat::Png),
            "svg" => Some(ImageFormat::Svg),
            _ => None,
        }
    }
}

/// An sRGB colour.
pub type Rgb = [u8; 3];

/// What a tile of the map is, as the picture colours it (after DDNet's entities view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TileKind {
    /// Hookable ground (`TILE_SOLID`).
    Solid,
    /// Unhookable ground (`TILE_NOHOOK`).
    Unhookable,
    /// Kills whoever touches it (`TILE_DEATH`).
    Death,
    /// Freeze, deep freeze and live freeze.
    Freeze,
    /// Unfreeze and deep unfreeze.
    Unfreeze,
    /// The race's start line.
    Start,
    /// The race's finish line.
    Finish,
    /// A teleporter's entrance (tele layer).
    TeleIn,
    /// A teleporter's exit (tele layer).
    TeleOut,
    /// A speedup (speedup layer).
    Speedup,
}

impl TileKind {
    /// Every kind, in the order of the legend.
    pub const ALL: &'static [TileKind] = &[
        TileKind::Solid,
        TileKind::Unhookable,
        TileKind::Death,
        TileKind::Freeze,
        TileKind::Unfreeze,
        TileKind::Start,
        TileKind::Finish,
        TileKind::TeleIn,
        TileKind::TeleOut,
        TileKind::Speedup,
    ];

    /// The colour the picture fills the tile with.
    pub const fn color(self) -> Rgb {
        match self {
            TileKind::Solid => [170, 160, 140],
            TileKind::Unhookable => [90, 90, 112],
            TileKind::Death => [120, 10, 10],
            TileKind::Freeze => [150, 180, 220],
            TileKind::Unfreeze => [222, 232, 242],
            TileKind::Start => [60, 170, 70],
            TileKind::Finish => [220, 70, 60],
            TileKind::TeleIn => [70, 100, 230],
            TileKind::TeleOut => [170, 90, 230],
            TileKind::Speedup => [230, 190, 40],
        }
    }

    /// The kind of a game or front layer tile index, `None` for air and the tiles not
    /// drawn (entities, switches, ...). The numbers are DDNet's `mapitems.h` at 28baa427:
    /// TILE_SOLID 1, TILE_DEATH 2, TILE_NOHOOK 3, TILE_FREEZE 9, TILE_UNFREEZE 11, the deep
    /// TILE_DFREEZE 12 and TILE_DUNFREEZE 13, the live TILE_LFREEZE 144 and TILE_LUNFREEZE
    /// 145, TILE_START 33 and TILE_FINISH 34.
    pub const fn of_index(index: u8) -> Option<TileKind> {
        match index {
            1 => Some(TileKind::Solid),
            2 => Some(TileKind::Death),
            3 => Some(TileKind::Unhookable),
            9 | 12 | 144 => Some(TileKind::Freeze),
            11 | 13 | 145 => Some(TileKind::Unfreeze),
            33 => Some(TileKind::Start),
            34 => Some(TileKind::Finish),
            _ => None,
        }
    }

    /// The kind of a tele layer tile of `kind` (its type byte).
    pub(crate) const fn of_tele(kind: u8) -> Option<TileKind> {
        // The numbers are DDNet's `mapitems.h` (28baa427): TILE_TELEINEVIL 10,
        // TILE_TELEINWEAPON 14, TILE_TELEINHOOK 15, TILE_TELEIN 26, TILE_TELECHECKIN 31,
        // TILE_TELECHECKINEVIL 63 take a tee somewhere; TILE_TELEOUT 27 and
        // TILE_TELECHECKOUT 30 are where it lands. TILE_TELECHECK 29 only records a
        // checkpoint and is drawn as nothing.
        match kind {
            10 | 14 | 15 | 26 | 31 | 63 => Some(TileKind::TeleIn),
            27 | 30 => Some(TileKind::TeleOut),
            _ => None,
        }
    }
}

/// The colour of the background (air), and of the canvas outside the map.
pub(crate) const BACKGROUND: Rgb = [24, 28, 36];
/// The colour of the canvas outside the map and the text bands.
pub(crate) const MARGIN: Rgb = [12, 14, 18];
/// The text's colour.
pub(crate) const TEXT: Rgb = [235, 235, 235];

/// The colour of the `i`th player (from 0) of a game without sides: 16 hues, each in 4
/// shades, so that 64 players have a colour each (the 65th gets the first again). Each
/// player's hue lies 7 of the 16 steps round the wheel from the one before, so that
/// players next to each other in the legend are far apart in colour.
pub(crate) fn player_color(i: usize) -> Rgb {
    let i = i % 64;
    let hue = ((i * 7) % 16) as f64 * 22.5;
    let (saturation, lightness, shift) = match i / 16 {
        0 => (0.95, 0.60, 0.0),
        1 => (0.65, 0.80, 11.25),
        2 => (1.0, 0.50, 5.6),
        _ => (0.55, 0.70, 16.9),
    };
    hsl(hue + shift, saturation, lightness)
}

/// The colour of the `i`th player (from 0) on `side` (0: red, RED, terrorists, survivors;
/// 1: blue, BLU, counter-terrorists, infected): reds and oranges for the first side,
/// blues and cyans for the second, 8 hues in 4 shades each.
pub(crate) fn side_color(side: u8, i: usize) -> Rgb {
    let i = i % 32;
    let (start, span) = if side == 0 {
        (-20.0, 60.0)
    } else {
        (180.0, 70.0)
    };
    let hue = start + ((i * 5) % 8) as f64 * span / 8.0;
    let (saturation, lightness) = match i / 8 {
        0 => (0.95, 0.58),
        1 => (0.70, 0.78),
        2 => (1.0, 0.47),
        _ => (0.55, 0.68),
    };
    hsl(hue, saturation, lightness)
}

/// The side a team is on, by its name ([`crate::model::team`]'s names): 0 for the first
/// of a two-sided game's teams, 1 for the second; `None` for spectators and games
/// without sides (DDNet's race teams).
fn side_of(team_name: &str) -> Option<u8> {
    match team_name {
        "red" | "RED" | "TERRORIST" | "Survivor" | "Allies" | "Combine" => Some(0),
        "blue" | "BLU" | "CT" | "Infected" | "Axis" | "Rebels" => Some(1),
        _ => None,
    }
}

/// A colour from hue (degrees), saturation and lightness (0 to 1).
fn hsl(hue: f64, saturation: f64, lightness: f64) -> Rgb {
    let h = hue.rem_euclid(360.0) / 60.0;
    let c = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = lightness - c / 2.0;
    let byte = |v: f64| ((v + m).clamp(0.0, 1.0) * 255.0).round() as u8;
    [byte(r), byte(g), byte(b)]
}

/// The heat map's colour for a cell `t` of the way (0 to 1, logarithmic in the count)
/// from the emptiest to the fullest, and its opacity.
fn heat_color(t: f64) -> (Rgb, f64) {
    let t = t.clamp(0.0, 1.0);
    ([255, (230.0 * (1.0 - t)) as u8, 0], 0.35 + 0.6 * t)
}

/// A run of tiles of one kind on one row of the map, in tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRun {
    /// The kind.
    pub kind: TileKind,
    /// The first tile's column.
    pub x: u32,
    /// The row.
    pub y: u32,
    /// How many tiles.
    pub len: u32,
}

/// One player's path.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerPath {
    /// Client id (Source: player slot).
    pub client_id: i32,
    /// The last name the player had in the range (`#id` when the recording gives none).
    pub name: String,
    /// The path's colour.
    pub color: Rgb,
    /// The path's unbroken pieces (broken where the player was away, dead or teleported),
    /// each a list of world positions.
    pub segments: Vec<Vec<[f32; 2]>>,
    /// Positions in the range.
    pub samples: usize,
}

/// What a [`Mark`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MarkKind {
    /// A player (re)appeared: a ring.
    Spawn,
    /// A player died: a cross.
    Death,
    /// A player killed (the victim's place, in the killer's colour): a diamond.
    Kill,
    /// A player finished the race: a square.
    Finish,
}

impl MarkKind {
    /// Every kind, in the order of the legend.
    pub const ALL: &'static [MarkKind] = &[
        MarkKind::Spawn,
        MarkKind::Death,
        MarkKind::Kill,
        MarkKind::Finish,
    ];

    /// The kind's name in the legend.
    pub const fn name(self) -> &'static str {
        match self {
            MarkKind::Spawn => "spawn",
            MarkKind::Death => "death",
            MarkKind::Kill => "kill",
            MarkKind::Finish => "finish",
        }
    }
}

/// A mark on the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// What it shows.
    pub kind: MarkKind,
    /// The tick.
    pub tick: i32,
    /// Where, in world units.
    pub at: [f32; 2],
    /// The player's colour.
    pub color: Rgb,
}

/// Where the players were most: positions counted per cell of a grid over the view.
#[derive(Debug, Clone, PartialEq)]
pub struct Heat {
    /// A cell's side, in world units.
    pub cell: f32,
    /// The world position of cell (0, 0)'s corner.
    pub origin: [f32; 2],
    /// Cells per row.
    pub columns: usize,
    /// Positions per cell, row by row.
    pub counts: Vec<u32>,
}

/// A picture of a game, laid out on its canvas; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Canvas width in pixels.
    pub width: u32,
    /// Canvas height in pixels.
    pub height: u32,
    /// The title line: map, date, length.
    pub title: String,
    /// A second line under the title, where there is more to say (Source: the bounds;
    /// a recording that ended early: where).
    pub note: Option<String>,
    /// The error that ended the reading early, if it did: the picture shows what came
    /// before it (and says so in [`note`](Self::note)).
    pub error: Option<String>,
    /// The world rectangle shown: left, top, width, height, in world units.
    pub view: [f64; 4],
    /// Whether the world's y axis points up (Source) rather than down (Teeworlds).
    pub y_up: bool,
    /// The map's size in world units, when there is a map.
    pub map_size: Option<[f64; 2]>,
    /// The map's tiles other than air, as runs.
    pub tiles: Vec<TileRun>,
    /// The tile kinds the map has, for the legend.
    pub tile_kinds: Vec<TileKind>,
    /// Source: the spacing of the grid lines, in world units.
    pub grid: Option<f64>,
    /// The players drawn, in client id order.
    pub players: Vec<PlayerPath>,
    /// The marks, in tick order.
    pub marks: Vec<Mark>,
    /// The heat map, when asked for (then the paths are not drawn).
    pub heat: Option<Heat>,
    /// Source: the map's floors and walls or its overview image, under the paths.
    world: Option<world::Layer>,
    /// The map area on the canvas: left, top, width, height, in pixels.
    area: [f64; 4],
    /// Pixels per world unit.
    scale: f64,
    /// The title as drawn: wrapped at its ` | ` to the canvas's width.
    title_lines: Vec<String>,
    /// The title's font size, in pixels.
    title_size: f64,
    /// The note's and the legend's font size, in pixels.
    text_size: f64,
    /// The legend, laid out below the map area.
    legend: Vec<LegendEntry>,
}

/// World units of a Teeworlds tile.
pub(crate) const TILE: f64 = 32.0;

impl Scene {
    /// Where world position (`x`, `y`) lands on the canvas, in pixels (fractions kept),
    /// held within a margin of the canvas as wide as the canvas is long (a position from a
    /// damaged recording, 2^31 units out, would otherwise reach the rasterizer as a
    /// coordinate it cannot take); anything not finite lands on the canvas's corner.
    pub fn project(&self, x: f64, y: f64) -> (f64, f64) {
        let (px, py) = self.project_unbounded(x, y);
        let margin = f64::from(self.width.max(self.height));
        let hold = |v: f64, side: u32| {
            if v.is_finite() {
                v.clamp(-margin, f64::from(side) + margin)
            } else {
                0.0
            }
        };
        (hold(px, self.width), hold(py, self.height))
    }

    /// [`project`](Self::project) without the margin.
    fn project_unbounded(&self, x: f64, y: f64) -> (f64, f64) {
        let [vx, vy, vw, vh] = self.view;
        let [ax, ay, aw, ah] = self.area;
        let (ox, oy) = (
            ax + (aw - vw * self.scale) / 2.0,
            ay + (ah - vh * self.scale) / 2.0,
        );
        let px = ox + (x - vx) * self.scale;
        let py = if self.y_up {
            oy + (vy + vh - y) * self.scale
        } else {
            oy + (y - vy) * self.scale
        };
        (px, py)
    }

    /// Where the world is drawn on the canvas (between the title and the legend, within
    /// the view): left, top, width, height, in pixels. Outside it are the bands and the
    /// margin.
    pub fn map_area(&self) -> [f64; 4] {
        let (x0, y0) = self.project(self.view[0], self.view[1]);
        let (x1, y1) = self.project(self.view[0] + self.view[2], self.view[1] + self.view[3]);
        let [ax, ay, aw, ah] = self.area;
        let left = x0.min(x1).max(ax);
        let top = y0.min(y1).max(ay);
        let right = x0.max(x1).min(ax + aw);
        let bottom = y0.max(y1).min(ay + ah);
        [left, top, (right - left).max(0.0), (bottom - top).max(0.0)]
    }

    /// Pixels per world unit.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The picture a report page plays the game over: the map (or plane) alone, as large
    /// as the map area, without paths, marks, heat, title or legend (the page writes
    /// those itself, at a size that reads however the picture is scaled).
    pub(crate) fn backdrop(&self) -> Scene {
        let [ax, ay, aw, ah] = self.area;
        let mut backdrop = self.clone();
        backdrop.players.clear();
        backdrop.marks.clear();
        backdrop.heat = None;
        backdrop.title_lines.clear();
        backdrop.note = None;
        backdrop.legend.clear();
        backdrop.width = (aw.ceil() as u32).clamp(1, MAX_SIDE);
        backdrop.height = (ah.ceil() as u32).clamp(1, MAX_SIDE);
        backdrop.area = [0.0, 0.0, aw, ah];
        let _ = (ax, ay);
        backdrop
    }

    /// The tile kinds the picture shows, each with its name and colour, as the legend
    /// lists them.
    pub fn tile_legend(&self) -> Vec<(&'static str, Rgb)> {
        self.tile_kinds
            .iter()
            .map(|&k| (tile_name(k), k.color()))
            .collect()
    }

    /// The legend's labels as drawn: each label's text and the box it is written in
    /// (left, top, width, height, in pixels), swatch excluded.
    pub fn legend_labels(&self) -> Vec<(String, [f64; 4])> {
        let f = text::fonts();
        self.legend
            .iter()
            .map(|e| {
                let width = f.width(&e.label, self.text_size);
                let rect = [e.x + e.label_x, e.y, width, self.text_size * text::LINE];
                (e.label.clone(), rect)
            })
            .collect()
    }

    /// The path's stroke width in pixels.
    pub(crate) fn stroke_width(&self) -> f64 {
        (self.scale * 8.0).clamp(2.5, 5.0)
    }

    /// The scene as an SVG document.
    pub fn to_svg(&self) -> String {
        let mut svg = Svg::new(self.width, self.height);
        self.draw(&mut svg);
        svg.finish()
    }

    /// The scene as a PNG image: a palette of the picture's colours, one byte a pixel
    /// (see `indexed.rs`).
    // The layout bounds the size (at least one pixel, at most `MAX_SIDE` a side), which is
    // all a pixmap in memory needs to be made and encoded (into a `Vec`, which does not
    // fail).
    #[allow(clippy::expect_used)]
    pub fn to_png(&self) -> Vec<u8> {
        let mut raster = Raster::new(self.width, self.height).expect("size checked when laid out");
        self.draw(&mut raster);
        indexed::palette_png(&raster.pixmap).expect("encoding a pixmap in memory does not fail")
    }

    /// Draws the scene with `canvas`'s shapes.
    fn draw(&self, c: &mut dyn Canvas) {
        c.rect(0.0, 0.0, self.width as f64, self.height as f64, MARGIN, 1.0);
        let clip = self.area;
        // The map (or, for Source, the plane) inside the view.
        let (x0, y0) = self.project(self.view[0], self.view[1]);
        let (x1, y1) = self.project(self.view[0] + self.view[2], self.view[1] + self.view[3]);
        let (left, right) = (x0.min(x1), x0.max(x1));
        let (top, bottom) = (y0.min(y1), y0.max(y1));
        c.rect(left, top, right - left, bottom - top, BACKGROUND, 1.0);
        if let Some(layer) = &self.world {
            layer.draw(c.shapes(), &|x, y| self.project(x, y), clip);
        }
        for run in &self.tiles {
            // Edges on whole pixels, so that neighbouring runs meet without seams.
            let (x0, y0) = self.project(run.x as f64 * TILE, run.y as f64 * TILE);
            let (x1, y1) = self.project((run.x + run.len) as f64 * TILE, (run.y + 1) as f64 * TILE);
            let (x0, y0, x1, y1) = (x0.round(), y0.round(), x1.round(), y1.round());
            if x1 > x0 && y1 > y0 {
                c.tile(x0, y0, x1 - x0, y1 - y0, run.kind.color());
            }
        }
        if let Some(spacing) = self.grid {
            let [vx, vy, vw, vh] = self.view;
            // Lines counted, not stepped to: far from 0 a step of `spacing` can be lost in
            // the float (x + spacing == x), and a view from a damaged recording can span
            // more lines than a picture could show.
            for x in grid_lines(vx, vw, spacing) {
                let (px, _) = self.project(x, vy);
                c.rect(px, top, 1.0, bottom - top, GRID, 1.0);
            }
            for y in grid_lines(vy, vh, spacing) {
                let (_, py) = self.project(vx, y);
                c.rect(left, py, right - left, 1.0, GRID, 1.0);
            }
        }
        if let Some(heat) = &self.heat {
            let max = heat.max();
            let side = heat.cell as f64 * self.scale;
            for (i, &n) in heat.counts.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let (col, row) = (i % heat.columns, i / heat.columns);
                let wx = heat.origin[0] as f64 + col as f64 * heat.cell as f64;
                let wy = heat.origin[1] as f64 + row as f64 * heat.cell as f64;
                let (px, py) = self.project(wx, wy);
                let py = if self.y_up { py - side } else { py };
                let (color, alpha) = heat_color(heat_share(n, max));
                c.rect(px, py, side, side, color, alpha);
            }
        } else {
            self.draw_paths(c);
        }
        let r = (self.stroke_width() * 1.6).max(4.0);
        // Marks of one kind and colour closer than their radius are drawn once: a
        // thousand deaths at one spike are one cross (and an SVG of them stays small).
        let mut drawn = std::collections::HashSet::new();
        for mark in &self.marks {
            let (x, y) = self.project(mark.at[0] as f64, mark.at[1] as f64);
            let cell = ((x / r).round() as i64, (y / r).round() as i64);
            if drawn.insert((mark.kind, mark.color, cell)) {
                c.mark(mark.kind, x, y, r, mark.color);
            }
        }
        // The bands over anything drawn past the map area.
        c.rect(0.0, 0.0, self.width as f64, clip[1], MARGIN, 1.0);
        let below = clip[1] + clip[3];
        c.rect(
            0.0,
            below,
            self.width as f64,
            self.height as f64 - below,
            MARGIN,
            1.0,
        );
        let pad = self.pad();
        let line = self.title_size * text::LINE;
        for (i, title) in self.title_lines.iter().enumerate() {
            c.text(
                pad,
                pad * 0.6 + i as f64 * line,
                title,
                self.title_size,
                TEXT,
            );
        }
        if let Some(note) = &self.note {
            let y = pad * 0.6 + self.title_lines.len() as f64 * line;
            c.text(pad, y, note, self.text_size, NOTE);
        }
        let s = self.text_size;
        for entry in &self.legend {
            let (x, y) = (entry.x, entry.y + 0.1 * s);
            let side = 0.9 * s;
            match entry.swatch {
                Swatch::Tile(kind) => c.rect(x, y, side, side, kind.color(), 1.0),
                Swatch::Player(color) => c.rect(x, y, side, side, color, 1.0),
                Swatch::More => c.rect(x, y, side, side, NOTE, 1.0),
                Swatch::Mark(kind) => {
                    let half = side / 2.0;
                    c.mark(kind, x + half, y + half, half, TEXT)
                }
                Swatch::Scale => {
                    // The heat map's colours from the emptiest cell to the fullest.
                    let steps = 12;
                    let w = SCALE_WIDTH * s / steps as f64;
                    for i in 0..steps {
                        let (color, alpha) = heat_color(i as f64 / (steps - 1) as f64);
                        c.rect(x + i as f64 * w, y, w + 0.5, side, BACKGROUND, 1.0);
                        c.rect(x + i as f64 * w, y, w + 0.5, side, color, alpha);
                    }
                }
            }
            c.text(x + entry.label_x, entry.y, &entry.label, s, TEXT);
        }
    }

    /// The players' paths: each player's pieces in one stroke, thinned to what shows.
    fn draw_paths(&self, c: &mut dyn Canvas) {
        let width = self.stroke_width();
        let mut paths: Vec<(Rgb, Vec<(f64, f64)>)> = Vec::new();
        // A player seen in single positions (far apart in time: a thinned or teleporting
        // recording) is drawn as dots, one a cell of the stroke's width: an hour of 64
        // players would otherwise be millions of dots on the same pixels.
        let mut dots = std::collections::HashSet::new();
        for player in &self.players {
            for segment in &player.segments {
                let points = on_pixels(
                    segment
                        .iter()
                        .map(|p| self.project(p[0] as f64, p[1] as f64)),
                );
                if let [(x, y)] = *points.as_slice() {
                    let cell = ((x / width).round() as i64, (y / width).round() as i64);
                    if !dots.insert((player.color, cell)) {
                        continue;
                    }
                }
                paths.push((player.color, points));
            }
        }
        // Past MAX_DRAWN_POINTS, every path keeps every n-th point (and its ends), and
        // every n-th dot or single step: an hour of 64 players wandering the map would otherwise take
        // minutes to stroke, for a picture the lines cover anyway.
        let total: usize = paths.iter().map(|p| p.1.len()).sum();
        let stride = total.div_ceil(MAX_DRAWN_POINTS).max(1);
        let mut nth_short = 0usize;
        // One call per player: a raster strokes a player's pieces together.
        for player in paths.chunk_by(|a, b| a.0 == b.0) {
            let Some(&(color, _)) = player.first() else {
                continue;
            };
            let pieces: Vec<Vec<(f64, f64)>> = player
                .iter()
                .filter_map(|(_, points)| {
                    if stride == 1 {
                        return Some(points.clone());
                    }
                    // Pieces too short to thin within (a dot, a single step) are thinned
                    // among themselves: every n-th is kept.
                    if points.len() <= 2 {
                        nth_short += 1;
                        return nth_short.is_multiple_of(stride).then(|| points.clone());
                    }
                    let mut kept: Vec<(f64, f64)> =
                        points.iter().copied().step_by(stride).collect();
                    if (points.len() - 1) % stride != 0 {
                        kept.extend(points.last().copied());
                    }
                    Some(kept)
                })
                .collect();
            c.polylines(&pieces, color, width);
        }
    }

    /// The space between the canvas's edge and the text, in pixels.
    fn pad(&self) -> f64 {
        (self.title_size * 0.5).round().max(4.0)
    }
}

/// `title` in lines at most `width` pixels wide at `size`: broken at its ` | `, a part
/// longer than a line cut with an ellipsis.
fn wrap_title(title: &str, size: f64, width: f64) -> Vec<String> {
    let f = text::fonts();
    let mut lines: Vec<String> = Vec::new();
    for part in title.split(" | ") {
        match lines.last_mut() {
            Some(line) if f.width(&format!("{line} | {part}"), size) <= width => {
                line.push_str(" | ");
                line.push_str(part);
            }
            _ => lines.push(f.fit(part, size, width)),
        }
    }
    lines
}

/// The width of a heat map's colour scale in the legend, in font sizes.
const SCALE_WIDTH: f64 = 8.0;

/// The colour of the grid lines.
const GRID: Rgb = [52, 58, 72];

/// The note's colour.
const NOTE: Rgb = [180, 180, 180];

/// Where `n` lies between an empty cell and the fullest (`max`), on a logarithmic scale.
fn heat_share(n: u32, max: u32) -> f64 {
    (1.0 + n as f64).ln() / (1.0 + max.max(1) as f64).ln()
}

impl Heat {
    /// The count of the fullest cell.
    pub fn max(&self) -> u32 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

fn tile_name(kind: TileKind) -> &'static str {
    match kind {
        TileKind::Solid => "solid",
        TileKind::Unhookable => "unhookable",
        TileKind::Death => "death tile",
        TileKind::Freeze => "freeze",
        TileKind::Unfreeze => "unfreeze",
        TileKind::Start => "start",
        TileKind::Finish => "finish line",
        TileKind::TeleIn => "tele in",
        TileKind::TeleOut => "tele out",
        TileKind::Speedup => "speedup",
    }
}

/// What an entry of the legend shows before its label.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Swatch {
    Tile(TileKind),
    Player(Rgb),
    /// The players left out of the legend (`+N more`).
    More,
    Mark(MarkKind),
    /// The heat map's colours, from the emptiest cell to the fullest.
    Scale,
}

/// An entry of the legend, laid out.
#[derive(Debug, Clone, PartialEq)]
struct LegendEntry {
    swatch: Swatch,
    label: String,
    /// The swatch's top-left corner, in pixels.
    x: f64,
    y: f64,
    /// Where the label starts, right of `x`.
    label_x: f64,
}

/// What the legend lists, before it is laid out.
struct LegendItems<'a> {
    players: &'a [PlayerPath],
    marks: Vec<MarkKind>,
    tiles: &'a [TileKind],
    /// The heat map's fullest cell and its side in world units, when it is a heat map.
    heat: Option<(u32, f32)>,
}

/// The legend laid out in `width` pixels from `top`, its text `size` pixels high: the
/// players in columns (at most `max_height` pixels of them: the ones past that are
/// counted in a last `+N more`), then the marks, tile kinds and heat scale in a row that
/// wraps. Returns the entries and the legend's height.
fn lay_out_legend(
    items: &LegendItems<'_>,
    width: f64,
    top: f64,
    size: f64,
    pad: f64,
    max_height: f64,
) -> (Vec<LegendEntry>, f64) {
    let f = text::fonts();
    let row = size * (text::LINE + 0.25);
    let swatch = size * 1.3;
    let gap = size * 1.2;
    let usable = (width - 2.0 * pad).max(size);
    let mut entries = Vec::new();
    let mut y = top;
    if !items.players.is_empty() && items.heat.is_none() {
        // Columns as wide as the widest name (names longer than 12 font sizes cut).
        let longest = size * 12.0;
        let labels: Vec<String> = items
            .players
            .iter()
            .map(|p| f.fit(&p.name, size, longest))
            .collect();
        let column = labels
            .iter()
            .map(|l| f.width(l, size))
            .fold(f.width("+000 more", size), f64::max)
            + swatch
            + gap;
        let columns = ((usable + gap) / column).floor().max(1.0) as usize;
        let rows_needed = items.players.len().div_ceil(columns);
        let max_rows = ((max_height / row).floor() as usize).max(1);
        let shown = if rows_needed > max_rows {
            (max_rows * columns).saturating_sub(1)
        } else {
            items.players.len()
        };
        let mut place = |i: usize, swatch_kind: Swatch, label: String| {
            entries.push(LegendEntry {
                swatch: swatch_kind,
                label,
                x: pad + (i % columns) as f64 * column,
                y: top + (i / columns) as f64 * row,
                label_x: swatch,
            });
        };
        for (i, (player, label)) in items.players.iter().zip(labels).take(shown).enumerate() {
            place(i, Swatch::Player(player.color), label);
        }
        if shown < items.players.len() {
            place(
                shown,
                Swatch::More,
                format!("+{} more", items.players.len() - shown),
            );
        }
        y = top + (shown + usize::from(shown < items.players.len())).div_ceil(columns) as f64 * row;
    }
    // The rest flow along a row, wrapping.
    let mut rest: Vec<(Swatch, String, f64)> = Vec::new();
    if let Some((max, cell)) = items.heat {
        let label = format!("1 to {max} positions per {cell:.0}×{cell:.0} units");
        rest.push((Swatch::Scale, label, SCALE_WIDTH * size + gap * 0.5));
    }
    for &kind in &items.marks {
        rest.push((Swatch::Mark(kind), kind.name().to_owned(), swatch));
    }
    for &kind in items.tiles {
        rest.push((Swatch::Tile(kind), tile_name(kind).to_owned(), swatch));
    }
    let mut x = pad;
    let mut used_row = false;
    for (swatch_kind, label, label_x) in rest {
        let w = label_x + f.width(&label, size) + gap;
        if used_row && x + w - gap > pad + usable {
            x = pad;
            y += row;
        }
        entries.push(LegendEntry {
            swatch: swatch_kind,
            label: f.fit(&label, size, (usable - label_x).max(size)),
            x,
            y,
            label_x,
        });
        x += w;
        used_row = true;
    }
    if used_row {
        y += row;
    }
    (entries, y - top)
}

/// Builds the scene from what was read.
pub(crate) fn build(
    g: &mut Gathered,
    map: Option<&PhysicsLayers>,
    options: &RenderOptions,
) -> Result<Scene, String> {
    g.sort();
    let (width, height) = options.size;
    if !(MIN_SIDE..=MAX_SIDE).contains(&width) || !(MIN_SIDE..=MAX_SIDE).contains(&height) {
        return Err(format!(
            "the size {width}x{height} is out of range (each side {MIN_SIDE} to {MAX_SIDE} pixels)"
        ));
    }
    // The players asked for, by name.
    if !options.players.is_empty() {
        let known: Vec<&str> = g.tracks.values().map(|t| t.name.as_str()).collect();
        for wanted in &options.players {
            if !known.contains(&wanted.as_str()) {
                return Err(format!(
                    "no player named {wanted:?} has positions in the range (players: {})",
                    known
                        .iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        g.tracks.retain(|_, t| options.players.contains(&t.name));
    }
    let source = g.y_up;
    // In a game of two sides every player takes a colour of its side's family, when
    // every player drawn is on one of the two.
    let sides: BTreeMap<i32, u8> = g
        .stints
        .iter()
        .filter_map(|s| Some((s.client_id, side_of(s.team_name.as_deref()?)?)))
        .collect();
    let by_side = !g.tracks.is_empty() && g.tracks.keys().all(|c| sides.contains_key(c));
    let mut on_side = [0usize; 2];
    let players: Vec<PlayerPath> = g
        .tracks
        .iter()
        .enumerate()
        .map(|(i, (&client_id, track))| PlayerPath {
            client_id,
            name: if track.name.is_empty() {
                format!("player {client_id}")
            } else {
                track.name.clone()
            },
            color: match sides.get(&client_id) {
                Some(&side) if by_side => {
                    let n = on_side.get_mut(usize::from(side)).map_or(0, |n| {
                        *n += 1;
                        *n - 1
                    });
                    side_color(side, n)
                }
                _ => player_color(i),
            },
            segments: segments(track, source, g.tick_rate, g.step),
            samples: track.samples.len(),
        })
        .collect();
    let color_of = |cid: i32| players.iter().find(|p| p.client_id == cid).map(|p| p.color);
    let mut marks = spawn_marks(g, &players);
    for e in &g.events {
        let Some(cid) = e.client_id else { continue };
        let track = g.tracks.get(&cid);
        match e.kind {
            EventKind::Death => {
                let Some(color) = color_of(cid) else { continue };
                let at = match (e.x, e.y) {
                    (Some(x), Some(y)) => Some((x as f32, y as f32)),
                    _ => track.and_then(|t| t.at(e.tick)),
                };
                if let Some((x, y)) = at {
                    marks.push(Mark {
                        kind: MarkKind::Death,
                        tick: e.tick,
                        at: [x, y],
                        color,
                    });
                }
            }
            EventKind::Kill => {
                let victim = e.victim.unwrap_or(cid);
                let (Some(color), Some(track)) = (color_of(cid), g.tracks.get(&victim)) else {
                    continue;
                };
                if let Some((x, y)) = track.at(e.tick) {
                    marks.push(Mark {
                        kind: MarkKind::Kill,
                        tick: e.tick,
                        at: [x, y],
                        color,
                    });
                }
            }
            EventKind::Finish | EventKind::TeamFinish => {
                let (Some(color), Some(track)) = (color_of(cid), track) else {
                    continue;
                };
                if let Some((x, y)) = track.at(e.tick) {
                    marks.push(Mark {
                        kind: MarkKind::Finish,
                        tick: e.tick,
                        at: [x, y],
                        color,
                    });
                }
            }
            _ => {}
        }
    }
    marks.sort_by_key(|m| m.tick);

    // The view: the paths' bounds with a margin, within the map.
    let mut bounds: Option<[f64; 4]> = None;
    for track in g.tracks.values() {
        for &(_, x, y) in &track.samples {
            let (x, y) = (x as f64, y as f64);
            let b = bounds.get_or_insert([x, y, x, y]);
            b[0] = b[0].min(x);
            b[1] = b[1].min(y);
            b[2] = b[2].max(x);
            b[3] = b[3].max(y);
        }
    }
    let map_size = map.map(|m| [m.game.width as f64 * TILE, m.game.height as f64 * TILE]);
    // A margin of a twentieth of the extent (at least a tee's reach), and a least side,
    // so that one player standing still is not drawn a screen wide.
    let (margin, min_side) = if source {
        (64.0, 1024.0)
    } else {
        (TILE, 16.0 * TILE)
    };
    let mut view = match bounds {
        Some([x0, y0, x1, y1]) => {
            let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            let margin = margin.max((x1 - x0).max(y1 - y0) / 20.0);
            let w = (x1 - x0 + 2.0 * margin).max(min_side);
            let h = (y1 - y0 + 2.0 * margin).max(min_side);
            [cx - w / 2.0, cy - h / 2.0, w, h]
        }
        None => match map_size {
            Some([w, h]) => [0.0, 0.0, w, h],
            None => [-1024.0, -1024.0, 2048.0, 2048.0],
        },
    };
    if source {
        view = world::frame(g.backdrop.as_ref(), bounds, view);
    }
    if let Some([mw, mh]) = map_size {
        let x0 = view[0].max(0.0);
        let y0 = view[1].max(0.0);
        let x1 = (view[0] + view[2]).min(mw);
        let y1 = (view[1] + view[3]).min(mh);
        view = if x1 > x0 && y1 > y0 {
            [x0, y0, x1 - x0, y1 - y0]
        } else {
            [0.0, 0.0, mw, mh]
        };
    }

    // The title.
    let ticks = match (g.first_tick, g.last_tick) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    let mut title = if g.map.is_empty() {
        "(no map name)".to_owned()
    } else {
        g.map.clone()
    };
    if !g.date.is_empty() {
        let _ = write!(title, " | {}", g.date);
    }
    if let Some((a, b)) = ticks {
        let seconds = (f64::from(b) - f64::from(a)) / g.tick_rate;
        let _ = write!(title, " | {} (ticks {a}-{b})", duration(seconds));
    }
    let mut note = Vec::new();
    if source {
        if let Some([x0, y0, x1, y1]) = bounds {
            note.push(format!(
                "x {x0:.0}..{x1:.0}, y {y0:.0}..{y1:.0} ({})",
                world::Backdrop::describe(g.backdrop.as_ref())
            ));
        }
        if !g.server.is_empty() {
            note.push(g.server.clone());
        }
    }
    if let Some(map_note) = &g.map_note {
        note.push(map_note.clone());
    }
    if let Some(error) = &g.error {
        note.push(format!("read up to the error: {error}"));
    }
    let note = (!note.is_empty()).then(|| note.join(" | "));

    // The layout: title band, map area, legend band, the canvas fitted to the view's
    // shape within the size asked for.
    let f = text::fonts();
    let title_size = (f64::from(width).min(f64::from(height) * 1.5) / 56.0).clamp(10.0, 24.0);
    let text_size = (title_size * 0.8).max(9.0);
    let pad = (title_size * 0.5).round().max(4.0);
    // The title wraps at its ` | ` (and the band grows with it) as the canvas narrows.
    let title_band = |lines: usize| {
        pad * 0.6
            + title_size * text::LINE * lines as f64
            + note.as_ref().map_or(0.0, |_| text_size * text::LINE)
            + pad * 0.6
    };
    let mark_kinds: Vec<MarkKind> = MarkKind::ALL
        .iter()
        .copied()
        .filter(|k| marks.iter().any(|m| m.kind == *k))
        .collect();
    let tile_kinds = map.map(|m| tiles_in(m, view).1).unwrap_or_default();
    let heat_of = |g: &Gathered, view| options.heatmap.then(|| heat_in(g, view, source));
    let heat = heat_of(g, view);
    let items = LegendItems {
        players: &players,
        marks: mark_kinds,
        tiles: &tile_kinds,
        heat: heat.as_ref().map(|h| (h.max(), h.cell)),
    };
    let legend_for = |canvas_width: f64| {
        lay_out_legend(
            &items,
            canvas_width,
            0.0,
            text_size,
            pad,
            f64::from(height) * 0.3,
        )
    };
    let aspect = if view[2] > 0.0 && view[3] > 0.0 && (view[2] / view[3]).is_finite() {
        view[2] / view[3]
    } else {
        1.0
    };
    let (mut canvas_w, canvas_h) = (f64::from(width), f64::from(height));
    let (mut legend, mut legend_h) = legend_for(canvas_w);
    let mut title_lines = wrap_title(&title, title_size, canvas_w - 2.0 * pad);
    let room = |legend_h: f64, lines: usize| {
        (canvas_h - title_band(lines) - legend_h - pad * 0.5).max(1.0)
    };
    let mut area_h = room(legend_h, title_lines.len());
    let mut area_w = canvas_w - 2.0 * pad;
    if aspect * area_h < area_w {
        // Taller than the room: the canvas narrows to the view (to two fifths of the
        // width asked for at least, where the legend and the title still read), and the
        // legend and the title are laid out again in that width.
        canvas_w = (aspect * area_h + 2.0 * pad)
            .max(f64::from(width) * 0.4)
            .max(f64::from(MIN_SIDE))
            .min(canvas_w)
            .ceil();
        (legend, legend_h) = legend_for(canvas_w);
        title_lines = wrap_title(&title, title_size, canvas_w - 2.0 * pad);
        area_h = room(legend_h, title_lines.len());
        area_w = (canvas_w - 2.0 * pad).min(aspect * area_h);
    } else {
        // Wider than the room: the canvas is as tall as the view needs.
        area_h = area_w / aspect;
    }
    let title_band = title_band(title_lines.len());
    let canvas_height = (title_band + area_h + legend_h + pad * 0.5)
        .ceil()
        .clamp(f64::from(MIN_SIDE), canvas_h);
    let legend_top = title_band + area_h + pad * 0.25;
    for entry in &mut legend {
        entry.y += legend_top;
    }
    let area = [(canvas_w - area_w) / 2.0, title_band, area_w, area_h];
    let mut scene = Scene {
        width: canvas_w as u32,
        height: canvas_height as u32,
        title,
        title_lines,
        note: note.map(|n| f.fit(&n, text_size, canvas_w - 2.0 * pad)),
        error: g.error.clone(),
        view,
        y_up: source,
        map_size,
        tiles: Vec::new(),
        tile_kinds: Vec::new(),
        // Source without its world: the map's plane in 512 units; a Teeworlds game
        // without its map: 10 tiles.
        grid: match (source, map) {
            (true, _) => g.backdrop.is_none().then_some(512.0),
            (false, None) => Some(10.0 * TILE),
            (false, Some(_)) => None,
        },
        players,
        marks,
        heat: None,
        world: None,
        area,
        scale: 1.0,
        title_size,
        text_size,
        legend,
    };
    // The view widened or heightened to the area's shape (by rounding only, the canvas
    // being fitted to it), so that the whole area shows the world; kept within the map
    // where the map is large enough.
    let [_, _, aw, ah] = scene.area;
    let (mut vx, mut vy, mut vw, mut vh) = (view[0], view[1], view[2], view[3]);
    if vw / vh < aw / ah {
        let w = vh * aw / ah;
        vx -= (w - vw) / 2.0;
        vw = w;
    } else {
        let h = vw * ah / aw;
        vy -= (h - vh) / 2.0;
        vh = h;
    }
    if let Some([mw, mh]) = map_size {
        vx = if vw >= mw {
            (mw - vw) / 2.0
        } else {
            vx.clamp(0.0, mw - vw)
        };
        vy = if vh >= mh {
            (mh - vh) / 2.0
        } else {
            vy.clamp(0.0, mh - vh)
        };
    }
    let view = [vx, vy, vw, vh];
    scene.view = view;
    scene.scale = (aw / vw).min(ah / vh);
    scene.world = world::layer(g.backdrop.as_ref(), view);
    if let Some(map) = map {
        (scene.tiles, scene.tile_kinds) = tiles_in(map, view);
    }
    scene.heat = heat_of(g, view);
    Ok(scene)
}

/// The map's tiles in `view`, as runs, and the kinds among them.
fn tiles_in(map: &PhysicsLayers, view: [f64; 4]) -> (Vec<TileRun>, Vec<TileKind>) {
    let mut tiles = Vec::new();
    let mut tile_kinds = Vec::new();
    {
        let tx0 = (view[0] / TILE).floor().max(0.0) as usize;
        let ty0 = (view[1] / TILE).floor().max(0.0) as usize;
        let tx1 = (((view[0] + view[2]) / TILE).ceil().max(0.0) as usize).min(map.game.width);
        let ty1 = (((view[1] + view[3]) / TILE).ceil().max(0.0) as usize).min(map.game.height);
        for y in ty0..ty1 {
            let mut run: Option<TileRun> = None;
            for x in tx0..tx1 {
                let kind = tile_kind(map, x, y);
                match (&mut run, kind) {
                    (Some(r), Some(k)) if r.kind == k => r.len += 1,
                    _ => {
                        tiles.extend(run.take());
                        run = kind.map(|kind| TileRun {
                            kind,
                            x: x as u32,
                            y: y as u32,
                            len: 1,
                        });
                    }
                }
                if let Some(k) = kind
                    && !tile_kinds.contains(&k)
                {
                    tile_kinds.push(k);
                }
            }
            tiles.extend(run);
        }
        tile_kinds.sort();
    }
    (tiles, tile_kinds)
}

/// At most this many grid lines per axis: a wider view (a damaged recording's positions
/// far apart) gets its lines at a multiple of the spacing.
const MAX_GRID_LINES: f64 = 256.0;

/// The positions of the grid lines from `start` over `span`, `spacing` apart (or a power
/// of two times that, so that there are at most [`MAX_GRID_LINES`]); none when the view
/// is not finite.
fn grid_lines(start: f64, span: f64, spacing: f64) -> impl Iterator<Item = f64> {
    let mut spacing = spacing.max(1.0);
    let usable = start.is_finite() && span.is_finite() && span >= 0.0;
    while usable && span / spacing > MAX_GRID_LINES {
        spacing *= 2.0;
    }
    let first = (start / spacing).ceil() * spacing;
    let count = if usable {
        ((start + span - first) / spacing).floor().max(-1.0) as i64 + 1
    } else {
        0
    };
    (0..count.min(MAX_GRID_LINES as i64 + 2)).map(move |i| first + i as f64 * spacing)
}

/// At most this many cells in a heat map's grid: a view that spans more (a damaged
/// recording's positions far apart) gets larger cells.
const MAX_HEAT_CELLS: f64 = 1_048_576.0;

/// Positions per cell of a grid over `view`.
fn heat_in(g: &Gathered, view: [f64; 4], source: bool) -> Heat {
    let base = if source { 64.0 } else { TILE };
    // Cells large enough that the grid stays within MAX_HEAT_CELLS.
    let spans = (view[2].abs() + 2.0 * base) * (view[3].abs() + 2.0 * base);
    let cell = if spans.is_finite() && spans / (base * base) <= MAX_HEAT_CELLS {
        base
    } else if spans.is_finite() {
        (spans / MAX_HEAT_CELLS).sqrt().max(base)
    } else {
        f64::from(f32::MAX)
    } as f32;
    let view = view.map(|v| if v.is_finite() { v } else { 0.0 });
    let origin = [
        ((view[0] / cell as f64).floor() * cell as f64) as f32,
        ((view[1] / cell as f64).floor() * cell as f64) as f32,
    ];
    // `as` saturates; the cell size above keeps the product within MAX_HEAT_CELLS (a
    // couple of cells more for the rounding).
    let columns = ((view[0] + view[2] - origin[0] as f64) / cell as f64).ceil() as usize + 1;
    let rows = ((view[1] + view[3] - origin[1] as f64) / cell as f64).ceil() as usize + 1;
    let (columns, rows) = (columns.min(4096), rows.min(4096));
    let mut counts = vec![0u32; columns * rows];
    for track in g.tracks.values() {
        for &(_, x, y) in &track.samples {
            let c = ((x - origin[0]) / cell).floor();
            let r = ((y - origin[1]) / cell).floor();
            if c >= 0.0
                && r >= 0.0
                && (c as usize) < columns
                && (r as usize) < rows
                && let Some(count) = counts.get_mut(r as usize * columns + c as usize)
            {
                *count += 1;
            }
        }
    }
    Heat {
        cell,
        origin,
        columns,
        counts,
    }
}

/// The kind of the tile at (`x`, `y`): the game layer's, under the front layer's, under
/// the tele and speedup layers'.
fn tile_kind(map: &PhysicsLayers, x: usize, y: usize) -> Option<TileKind> {
    let speedup = map
        .speedup
        .as_ref()
        .and_then(|l| l.tile(x, y))
        .filter(|t| t.first().is_some_and(|&v| v != 0) || t.get(2).is_some_and(|&v| v != 0))
        .map(|_| TileKind::Speedup);
    let tele = map
        .tele
        .as_ref()
        .and_then(|l| TileKind::of_tele(l.kind(x, y)));
    let front = map
        .front
        .as_ref()
        .and_then(|l| TileKind::of_index(l.kind(x, y)));
    speedup
        .or(tele)
        .or(front)
        .or_else(|| TileKind::of_index(map.game.kind(x, y)))
}

/// A track's unbroken pieces: broken where the player was away for a while or moved
/// farther in one sample than anyone runs (a teleporter, a respawn).
fn segments(track: &Track, source: bool, tick_rate: f64, step: u32) -> Vec<Vec<[f32; 2]>> {
    let (max_gap, max_jump) = if source {
        ((tick_rate / 2.0).max(2.0) as i32, 600.0f32)
    } else {
        (10, 12.0 * TILE as f32)
    };
    // Positions thinned while reading are `step` ticks apart: the gaps and moves allowed
    // between two of them grow with it.
    let step = step.clamp(1, 1 << 16) as i32;
    let (max_gap, max_jump) = (max_gap.max(2 * step), max_jump * step as f32);
    let mut out: Vec<Vec<[f32; 2]>> = Vec::new();
    let mut last: Option<(i32, f32, f32)> = None;
    for &(tick, x, y) in &track.samples {
        let broken = last.is_none_or(|(t, lx, ly)| {
            // In i64: a damaged recording's ticks can lie any distance apart.
            i64::from(tick) - i64::from(t) > i64::from(max_gap)
                || (x - lx).abs() > max_jump
                || (y - ly).abs() > max_jump
        });
        match out.last_mut() {
            Some(piece) if !broken => piece.push([x, y]),
            _ => out.push(vec![[x, y]]),
        }
        last = Some((tick, x, y));
    }
    out
}

/// A ring where each player first appears, and where they appear again after a death.
fn spawn_marks(g: &Gathered, players: &[PlayerPath]) -> Vec<Mark> {
    let mut deaths: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for e in &g.events {
        let who = match e.kind {
            EventKind::Death => e.client_id,
            EventKind::Kill => e.victim.or(e.client_id),
            _ => None,
        };
        if let Some(cid) = who {
            deaths.entry(cid).or_default().push(e.tick);
        }
    }
    let mut marks = Vec::new();
    for player in players {
        let Some(track) = g.tracks.get(&player.client_id) else {
            continue;
        };
        let died = deaths.get(&player.client_id);
        let mut last: Option<i32> = None;
        for &(tick, x, y) in &track.samples {
            let spawn = match last {
                None => true,
                Some(t) => {
                    i64::from(tick) - i64::from(t) > i64::from(g.step.max(1))
                        && died.is_some_and(|d| d.iter().any(|&dt| (t - 1..=tick).contains(&dt)))
                }
            };
            if spawn {
                marks.push(Mark {
                    kind: MarkKind::Spawn,
                    tick,
                    at: [x, y],
                    color: player.color,
                });
            }
            last = Some(tick);
        }
    }
    marks
}

/// Seconds as `m:ss` or `h:mm:ss`.
fn duration(seconds: f64) -> String {
    let total = seconds.max(0.0).round() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// Points per piece a raster path is stroked in. A stroke costs about its bounding box's
/// area whatever its points (anti-aliased filling scans every row of it), and a player's
/// path spans most of the picture: one stroke per player is the fastest (an hour of 64
/// players: 13 s at the test build's opt-level 1 with pieces of 65,536 points, 33 s with
/// pieces of 1,024, 329 s with one stroke per unbroken piece of path).
const PIECE_POINTS: usize = 65_536;

/// At most about this many points of the players' paths are stroked.
const MAX_DRAWN_POINTS: usize = 200_000;

/// A path's points on the canvas without the ones less than half a pixel from the point
/// kept before them (the last point is always kept): an hour of a player's positions is
/// hundreds of thousands of points, most of them on pixels drawn already, and a stroker's
/// time grows with the points, not the pixels.
fn on_pixels(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut skipped = None;
    for p in points {
        match out.last() {
            Some(&(x, y)) if (p.0 - x).powi(2) + (p.1 - y).powi(2) < 0.25 => skipped = Some(p),
            _ => {
                out.push(p);
                skipped = None;
            }
        }
    }
    out.extend(skipped);
    out
}

/// The shapes a scene is drawn with, for each output.
trait Canvas: world::WorldShapes {
    /// The canvas as the world layer draws on it.
    fn shapes(&mut self) -> &mut dyn world::WorldShapes;
    /// A filled rectangle, anti-aliased.
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb, alpha: f64);
    /// A map tile run: a filled rectangle without anti-aliasing, so that neighbours meet.
    fn tile(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb);
    /// An open line through `points`, round joins and caps.
    fn polyline(&mut self, points: &[(f64, f64)], color: Rgb, width: f64);
    /// Several polylines of one colour and width (one player's path, broken where the
    /// player was away).
    fn polylines(&mut self, paths: &[Vec<(f64, f64)>], color: Rgb, width: f64) {
        for points in paths {
            self.polyline(points, color, width);
        }
    }
    /// A mark of `kind` centred on (`x`, `y`) with radius `r`.
    fn mark(&mut self, kind: MarkKind, x: f64, y: f64, r: f64, color: Rgb);
    /// A line of text whose top-left corner is (`x`, `y`), in a font `size` pixels high.
    fn text(&mut self, x: f64, y: f64, text: &str, size: f64, color: Rgb);
}

/// `#rrggbb`, as SVG and HTML write a colour.
pub(crate) fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// An SVG document being written.
struct Svg {
    out: String,
}

impl Svg {
    fn new(width: u32, height: u32) -> Svg {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
        );
        Svg { out }
    }

    fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// `text` with XML's special characters escaped (and control characters dropped): for
/// SVG, and for HTML element content and attributes.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

impl Canvas for Svg {
    fn shapes(&mut self) -> &mut dyn world::WorldShapes {
        self
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb, alpha: f64) {
        let opacity = if alpha < 1.0 {
            format!(r#" fill-opacity="{alpha:.2}""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.out,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" fill="{}"{opacity}/>"#,
            hex(color)
        );
    }

    fn tile(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb) {
        let _ = writeln!(
            self.out,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" fill="{}" shape-rendering="crispEdges"/>"#,
            hex(color)
        );
    }

    fn polylines(&mut self, paths: &[Vec<(f64, f64)>], color: Rgb, width: f64) {
        // One path element for all of a player's pieces: a piece of one position is a
        // zero-length line, which the round cap draws as a dot (an element of its own
        // would cost ten times the bytes, and a thinned hour of 64 players has a hundred
        // thousand of them).
        let mut d = String::new();
        for points in paths {
            let mut points = points.iter();
            let Some((x, y)) = points.next() else {
                continue;
            };
            let _ = write!(d, "M{x:.1} {y:.1}");
            let mut drawn = false;
            for (x, y) in points {
                let _ = write!(d, "L{x:.1} {y:.1}");
                drawn = true;
            }
            if !drawn {
                d.push_str("h0");
            }
        }
        if d.is_empty() {
            return;
        }
        let _ = writeln!(
            self.out,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="{width:.2}" stroke-linejoin="round" stroke-linecap="round"/>"#,
            hex(color)
        );
    }

    fn polyline(&mut self, points: &[(f64, f64)], color: Rgb, width: f64) {
        let mut d = String::new();
        for (x, y) in points {
            let _ = write!(d, "{x:.1},{y:.1} ");
        }
        if let [(x, y)] = *points {
            let _ = writeln!(
                self.out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.2}" fill="{}"/>"#,
                width / 2.0,
                hex(color)
            );
            return;
        }
        let _ = writeln!(
            self.out,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{width:.2}" stroke-linejoin="round" stroke-linecap="round"/>"#,
            d.trim_end(),
            hex(color)
        );
    }

    fn mark(&mut self, kind: MarkKind, x: f64, y: f64, r: f64, color: Rgb) {
        let c = hex(color);
        let _ = match kind {
            MarkKind::Spawn => writeln!(
                self.out,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="none" stroke="#000000" stroke-width="3.5"/><circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="none" stroke="{c}" stroke-width="2"/>"##
            ),
            MarkKind::Death => writeln!(
                self.out,
                r##"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="#000000" stroke-width="4.5" stroke-linecap="round"/><path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{c}" stroke-width="2.5" stroke-linecap="round"/>"##,
                x - r,
                y - r,
                x + r,
                y + r,
                x - r,
                y + r,
                x + r,
                y - r,
                x - r,
                y - r,
                x + r,
                y + r,
                x - r,
                y + r,
                x + r,
                y - r
            ),
            MarkKind::Kill => writeln!(
                self.out,
                r##"<path d="M{x:.1},{:.1}L{:.1},{y:.1}L{x:.1},{:.1}L{:.1},{y:.1}Z" fill="{c}" stroke="#000000" stroke-width="1.5"/>"##,
                y - r,
                x + r,
                y + r,
                x - r
            ),
            MarkKind::Finish => writeln!(
                self.out,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{c}" stroke="#ffffff" stroke-width="1.5"/>"##,
                x - r * 0.8,
                y - r * 0.8,
                r * 1.6,
                r * 1.6
            ),
        };
    }

    fn text(&mut self, x: f64, y: f64, text: &str, size: f64, color: Rgb) {
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{:.1}" font-family="{}" font-size="{size:.1}" fill="{}">{}</text>"#,
            y + size * 0.93,
            text::SVG_FAMILIES,
            hex(color),
            xml_escape(text)
        );
    }
}

/// A raster being drawn with tiny-skia.
struct Raster {
    pixmap: tiny_skia::Pixmap,
}

impl Raster {
    /// A blank raster; `None` for a size of 0 or too large.
    fn new(width: u32, height: u32) -> Option<Raster> {
        Some(Raster {
            pixmap: tiny_skia::Pixmap::new(width, height)?,
        })
    }

    fn paint(color: Rgb, alpha: f64, anti_alias: bool) -> tiny_skia::Paint<'static> {
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(
            color[0],
            color[1],
            color[2],
            (alpha.clamp(0.0, 1.0) * 255.0).round() as u8,
        );
        paint.anti_alias = anti_alias;
        paint
    }

    fn fill(&mut self, rect: (f64, f64, f64, f64), paint: &tiny_skia::Paint<'_>) {
        // Clipped to the canvas first: tiny-skia's anti-aliased rectangles want
        // coordinates near it.
        let (x, y, w, h) = rect;
        let (x0, y0) = (x.max(-1.0), y.max(-1.0));
        let x1 = (x + w).min(self.pixmap.width() as f64 + 1.0);
        let y1 = (y + h).min(self.pixmap.height() as f64 + 1.0);
        if !(x1 > x0 && y1 > y0) {
            return;
        }
        let (x, y, w, h) = (x0, y0, x1 - x0, y1 - y0);
        // Thin anti-aliased rectangles trip a debug assertion in tiny-skia 0.11
        // (`hairline_aa::fill_rect`): those are drawn without anti-aliasing.
        if paint.anti_alias && (w < 2.0 || h < 2.0) {
            let mut sharp = paint.clone();
            sharp.anti_alias = false;
            return self.fill((x, y, w.max(1.0), h.max(1.0)), &sharp);
        }
        if let Some(rect) = tiny_skia::Rect::from_xywh(x as f32, y as f32, w as f32, h as f32) {
            self.pixmap
                .fill_rect(rect, paint, tiny_skia::Transform::identity(), None);
        }
    }

    fn stroke(&mut self, path: &tiny_skia::Path, color: Rgb, width: f64, cap: tiny_skia::LineCap) {
        let stroke = tiny_skia::Stroke {
            width: width as f32,
            line_cap: cap,
            line_join: tiny_skia::LineJoin::Round,
            ..tiny_skia::Stroke::default()
        };
        self.pixmap.stroke_path(
            path,
            &Raster::paint(color, 1.0, true),
            &stroke,
            tiny_skia::Transform::identity(),
            None,
        );
    }

    fn fill_path(&mut self, path: &tiny_skia::Path, color: Rgb) {
        self.pixmap.fill_path(
            path,
            &Raster::paint(color, 1.0, true),
            tiny_skia::FillRule::Winding,
            tiny_skia::Transform::identity(),
            None,
        );
    }
}

impl Canvas for Raster {
    fn shapes(&mut self) -> &mut dyn world::WorldShapes {
        self
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb, alpha: f64) {
        self.fill((x, y, w, h), &Raster::paint(color, alpha, true));
    }

    fn tile(&mut self, x: f64, y: f64, w: f64, h: f64, color: Rgb) {
        self.fill((x, y, w, h), &Raster::paint(color, 1.0, false));
    }

    fn polylines(&mut self, paths: &[Vec<(f64, f64)>], color: Rgb, width: f64) {
        // The pieces go into paths of up to PIECE_POINTS points, each stroked once: a
        // stroke costs about its bounding box's area, which thousands of short pieces
        // each spanning the map pile up (see PIECE_POINTS).
        let mut pb = tiny_skia::PathBuilder::new();
        let mut in_path = 0;
        for points in paths {
            if points.len() == 1 {
                self.polyline(points, color, width);
                continue;
            }
            let mut start = 0;
            while start + 1 < points.len() {
                let room = PIECE_POINTS - in_path.min(PIECE_POINTS - 1);
                let end = (start + room).min(points.len() - 1);
                let mut piece = points.iter().skip(start).take(end - start + 1);
                if let Some(&(x, y)) = piece.next() {
                    pb.move_to(x as f32, y as f32);
                }
                for &(x, y) in piece {
                    pb.line_to(x as f32, y as f32);
                }
                in_path += end - start + 1;
                if in_path >= PIECE_POINTS {
                    if let Some(path) = std::mem::take(&mut pb).finish() {
                        self.stroke(&path, color, width, tiny_skia::LineCap::Round);
                    }
                    in_path = 0;
                }
                start = end;
            }
        }
        if let Some(path) = pb.finish() {
            self.stroke(&path, color, width, tiny_skia::LineCap::Round);
        }
    }

    fn polyline(&mut self, points: &[(f64, f64)], color: Rgb, width: f64) {
        let Some(&(x, y)) = points.first() else {
            return;
        };
        if points.len() == 1 {
            if let Some(dot) = tiny_skia::PathBuilder::from_circle(
                x as f32,
                y as f32,
                (width / 2.0).max(0.5) as f32,
            ) {
                self.fill_path(&dot, color);
            }
            return;
        }
        self.polylines(&[points.to_vec()], color, width);
    }

    fn mark(&mut self, kind: MarkKind, x: f64, y: f64, r: f64, color: Rgb) {
        let (xf, yf, rf) = (x as f32, y as f32, r as f32);
        match kind {
            MarkKind::Spawn => {
                if let Some(ring) = tiny_skia::PathBuilder::from_circle(xf, yf, rf) {
                    self.stroke(&ring, [0, 0, 0], 3.5, tiny_skia::LineCap::Butt);
                    self.stroke(&ring, color, 2.0, tiny_skia::LineCap::Butt);
                }
            }
            MarkKind::Death => {
                let mut pb = tiny_skia::PathBuilder::new();
                pb.move_to(xf - rf, yf - rf);
                pb.line_to(xf + rf, yf + rf);
                pb.move_to(xf - rf, yf + rf);
                pb.line_to(xf + rf, yf - rf);
                if let Some(cross) = pb.finish() {
                    self.stroke(&cross, [0, 0, 0], 4.5, tiny_skia::LineCap::Round);
                    self.stroke(&cross, color, 2.5, tiny_skia::LineCap::Round);
                }
            }
            MarkKind::Kill => {
                let mut pb = tiny_skia::PathBuilder::new();
                pb.move_to(xf, yf - rf);
                pb.line_to(xf + rf, yf);
                pb.line_to(xf, yf + rf);
                pb.line_to(xf - rf, yf);
                pb.close();
                if let Some(diamond) = pb.finish() {
                    self.fill_path(&diamond, color);
                    self.stroke(&diamond, [0, 0, 0], 1.5, tiny_skia::LineCap::Butt);
                }
            }
            MarkKind::Finish => {
                let side = rf * 1.6;
                if let Some(rect) =
                    tiny_skia::Rect::from_xywh(xf - rf * 0.8, yf - rf * 0.8, side, side)
                {
                    let square = tiny_skia::PathBuilder::from_rect(rect);
                    self.fill_path(&square, color);
                    self.stroke(&square, [255, 255, 255], 1.5, tiny_skia::LineCap::Butt);
                }
            }
        }
    }

    fn text(&mut self, x: f64, y: f64, text: &str, size: f64, color: Rgb) {
        let mut pb = tiny_skia::PathBuilder::new();
        text::fonts().outline(text, (x, y), size, self.pixmap.width() as f64, &mut pb);
        if let Some(path) = pb.finish() {
            self.pixmap.fill_path(
                &path,
                &Raster::paint(color, 1.0, true),
                tiny_skia::FillRule::Winding,
                tiny_skia::Transform::identity(),
                None,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_keep_one_point_per_half_pixel_and_their_ends() {
        let points = (0..1000).map(|i| (f64::from(i) * 0.01, 0.0));
        let kept = on_pixels(points);
        assert_eq!(kept.first(), Some(&(0.0, 0.0)));
        assert_eq!(kept.last(), Some(&(9.99, 0.0)));
        assert!(kept.len() <= 22, "{}", kept.len());
        for pair in kept[..kept.len() - 1].windows(2) {
            assert!(pair[1].0 - pair[0].0 >= 0.5, "{pair:?}");
        }
    }
}
