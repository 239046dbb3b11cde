//! Pictures of a game: a recording's map, each player's path, and marks for spawns,
//! deaths, kills and finishes, as SVG or PNG.
//!
//! [`Recording::scene`](crate::recording::Recording::scene) reads a recording (any format,
//! chosen by the entry point) into a [`Scene`]: the map's physics tiles coloured by kind
//! ([`TileKind`], after DDNet's entities view), the players' paths over the chosen range
//! in one colour each ([`PlayerPath`]), the [`Mark`]s of the game's events, a title line
//! and a legend, all laid out on a canvas of the size asked for. [`Scene::to_svg`] writes
//! it as an SVG document and [`Scene::to_png`] rasterizes it with tiny-skia (the glyphs of
//! the text are font8x8's); both draw the same shapes at the same places, and
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
mod recording;
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

/// The players' colours, in the order players are given them (by client id); the 13th
/// player gets the first again.
pub(crate) const PLAYER_COLORS: [Rgb; 12] = [
    [255, 64, 129],
    [0, 229, 255],
    [118, 255, 3],
    [255, 145, 0],
    [255, 255, 255],
    [213, 0, 249],
    [255, 234, 0],
    [29, 233, 182],
    [255, 110, 64],
    [124, 77, 255],
    [178, 255, 89],
    [64, 196, 255],
];

/// The colour of the `i`th player (from 0), [`PLAYER_COLORS`] over again.
fn player_color(i: usize) -> Rgb {
    let [first, ..] = PLAYER_COLORS;
    PLAYER_COLORS
        .get(i % PLAYER_COLORS.len())
        .copied()
        .unwrap_or(first)
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
    /// The legend's top, in pixels.
    legend_top: f64,
    /// Text scale: pixels per glyph pixel.
    text_scale: u32,
}

/// World units of a Teeworlds tile.
pub(crate) const TILE: f64 = 32.0;
/// Height of a glyph, in glyph pixels.
const GLYPH: f64 = 8.0;

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

    /// The scene as a PNG image (8-bit RGBA).
    // The layout bounds the size (at least one pixel, at most `MAX_SIDE` a side), which is
    // all a pixmap in memory needs to be made and encoded (into a `Vec`, which does not
    // fail).
    #[allow(clippy::expect_used)]
    pub fn to_png(&self) -> Vec<u8> {
        let mut raster = Raster::new(self.width, self.height).expect("size checked when laid out");
        self.draw(&mut raster);
        raster
            .pixmap
            .encode_png()
            .expect("encoding a pixmap in memory does not fail")
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
                c.rect(px, top, 1.0, bottom - top, [52, 58, 72], 1.0);
            }
            for y in grid_lines(vy, vh, spacing) {
                let (_, py) = self.project(vx, y);
                c.rect(left, py, right - left, 1.0, [52, 58, 72], 1.0);
            }
        }
        if let Some(heat) = &self.heat {
            let max = heat.counts.iter().copied().max().unwrap_or(0).max(1);
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
                let t = (1.0 + n as f64).ln() / (1.0 + max as f64).ln();
                let color = [255, (230.0 * (1.0 - t)) as u8, 0];
                c.rect(px, py, side, side, color, 0.35 + 0.6 * t);
            }
        } else {
            let width = self.stroke_width();
            let mut paths: Vec<(Rgb, Vec<(f64, f64)>)> = Vec::new();
            for player in &self.players {
                for segment in &player.segments {
                    let points = on_pixels(
                        segment
                            .iter()
                            .map(|p| self.project(p[0] as f64, p[1] as f64)),
                    );
                    paths.push((player.color, points));
                }
            }
            // Past MAX_DRAWN_POINTS, every path keeps every n-th point (and its ends): an
            // hour of 64 players wandering the map would otherwise take minutes to stroke,
            // for a picture the lines cover anyway.
            let total: usize = paths.iter().map(|p| p.1.len()).sum();
            let stride = total.div_ceil(MAX_DRAWN_POINTS).max(1);
            // One call per player: a raster strokes a player's pieces together.
            for player in paths.chunk_by(|a, b| a.0 == b.0) {
                let Some(&(color, _)) = player.first() else {
                    continue;
                };
                let pieces: Vec<Vec<(f64, f64)>> = player
                    .iter()
                    .map(|(_, points)| {
                        if stride == 1 || points.len() <= 2 {
                            return points.clone();
                        }
                        let mut kept: Vec<(f64, f64)> =
                            points.iter().copied().step_by(stride).collect();
                        if (points.len() - 1) % stride != 0 {
                            kept.extend(points.last().copied());
                        }
                        kept
                    })
                    .collect();
                c.polylines(&pieces, color, width);
            }
        }
        let r = (self.stroke_width() * 1.6).max(4.0);
        for mark in &self.marks {
            let (x, y) = self.project(mark.at[0] as f64, mark.at[1] as f64);
            c.mark(mark.kind, x, y, r, mark.color);
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
        let s = self.text_scale as f64;
        c.text(6.0, 4.0, &self.title, self.text_scale, TEXT);
        if let Some(note) = &self.note {
            c.text(6.0, 8.0 + GLYPH * s, note, self.text_scale, [180, 180, 180]);
        }
        for entry in self.legend() {
            let (x, y) = (entry.x, entry.y);
            let box_side = GLYPH * s;
            match entry.swatch {
                Swatch::Tile(kind) => c.rect(x, y, box_side, box_side, kind.color(), 1.0),
                Swatch::Player(color) => c.rect(x, y, box_side, box_side, color, 1.0),
                Swatch::Mark(kind) => {
                    let half = box_side / 2.0;
                    c.mark(kind, x + half, y + half, half, TEXT)
                }
            }
            c.text(x + box_side + 4.0, y, &entry.label, self.text_scale, TEXT);
        }
    }

    /// The legend's entries, laid out in rows below the map area.
    fn legend(&self) -> Vec<LegendEntry> {
        let s = self.text_scale as f64;
        let mut entries = Vec::new();
        let (mut x, mut y) = (6.0, self.legend_top);
        let mut push = |swatch: Swatch, label: String| {
            let width = GLYPH * s + 4.0 + label.chars().count() as f64 * GLYPH * s + 14.0;
            if x + width > self.width as f64 && x > 6.0 {
                x = 6.0;
                y += GLYPH * s + 6.0;
            }
            entries.push(LegendEntry {
                swatch,
                label,
                x,
                y,
            });
            x += width;
        };
        // At most a quarter of the canvas for the players' names; the rest are counted.
        let row = GLYPH * s + 6.0;
        let max_rows = ((self.height as f64 / 4.0 / row).floor() as usize).max(2);
        let per_row = ((self.width as f64 - 12.0) / (GLYPH * s * 14.0))
            .floor()
            .max(1.0) as usize;
        let shown = if self.players.len() > max_rows * per_row {
            max_rows * per_row - 1
        } else {
            self.players.len()
        };
        for player in self.players.iter().take(shown) {
            push(Swatch::Player(player.color), legend_name(&player.name));
        }
        if shown < self.players.len() {
            push(
                Swatch::Player(MARGIN),
                format!("+{} more", self.players.len() - shown),
            );
        }
        for &kind in MarkKind::ALL {
            push(Swatch::Mark(kind), kind.name().to_owned());
        }
        for &kind in &self.tile_kinds {
            push(Swatch::Tile(kind), tile_name(kind).to_owned());
        }
        entries
    }
}

/// A player's name in the legend: at most 24 characters.
fn legend_name(name: &str) -> String {
    let mut short: String = name.chars().take(24).collect();
    if name.chars().count() > 24 {
        short.pop();
        short.push('~');
    }
    short
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

#[derive(Debug, Clone, Copy)]
enum Swatch {
    Tile(TileKind),
    Player(Rgb),
    Mark(MarkKind),
}

#[derive(Debug, Clone)]
struct LegendEntry {
    swatch: Swatch,
    label: String,
    x: f64,
    y: f64,
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
    let players: Vec<PlayerPath> = g
        .tracks
        .iter()
        .enumerate()
        .map(|(i, (&client_id, track))| PlayerPath {
            client_id,
            name: if track.name.is_empty() {
                format!("#{client_id}")
            } else {
                track.name.clone()
            },
            color: player_color(i),
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
    let (margin, min_side) = if source {
        (256.0, 2048.0)
    } else {
        (6.0 * TILE, 24.0 * TILE)
    };
    let mut view = match bounds {
        Some([x0, y0, x1, y1]) => {
            let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            let w = (x1 - x0 + 2.0 * margin).max(min_side);
            let h = (y1 - y0 + 2.0 * margin).max(min_side * 0.6);
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
        if !g.server.is_empty() {
            note.push(g.server.clone());
        }
        if let Some([x0, y0, x1, y1]) = bounds {
            note.push(format!(
                "x {x0:.0}..{x1:.0}, y {y0:.0}..{y1:.0} ({})",
                world::Backdrop::describe(g.backdrop.as_ref())
            ));
        }
    }
    if let Some(map_note) = &g.map_note {
        note.push(map_note.clone());
    }
    if let Some(error) = &g.error {
        note.push(format!("read up to the error: {error}"));
    }
    let note = (!note.is_empty()).then(|| note.join(" | "));

    // The layout: title band, map area, legend band.
    let text_scale = if width >= 960 { 2 } else { 1 };
    let s = text_scale as f64;
    let title_band = 8.0 + GLYPH * s + note.as_ref().map_or(0.0, |_| 4.0 + GLYPH * s) + 6.0;
    let mut scene = Scene {
        width,
        height,
        title,
        note,
        error: g.error.clone(),
        view,
        y_up: source,
        map_size,
        tiles: Vec::new(),
        tile_kinds: Vec::new(),
        grid: (source && g.backdrop.is_none()).then_some(512.0),
        players,
        marks,
        heat: None,
        world: None,
        area: [0.0, 0.0, 0.0, 0.0],
        scale: 1.0,
        legend_top: 0.0,
        text_scale,
    };
    // The legend's height depends on its rows; lay it out from the bottom.
    scene.legend_top = height as f64;
    let rows = {
        let entries = scene.legend();
        let first = entries.first().map_or(0.0, |e| e.y);
        let last = entries.last().map_or(0.0, |e| e.y);
        ((last - first) / (GLYPH * s + 6.0)).round() as usize + 1
    };
    let legend_band = rows as f64 * (GLYPH * s + 6.0) + 6.0;
    scene.legend_top = height as f64 - legend_band + 4.0;
    let area_h = (height as f64 - title_band - legend_band).max(1.0);
    scene.area = [4.0, title_band, width as f64 - 8.0, area_h];
    // The view widened or heightened to the area's shape, so that the whole area shows
    // the world; kept within the map where the map is large enough.
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
    if options.heatmap {
        scene.heat = Some(heat_in(g, view, source));
    }
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
    /// Text whose top-left corner is (`x`, `y`), 8 × `scale` pixels high.
    fn text(&mut self, x: f64, y: f64, text: &str, scale: u32, color: Rgb);
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

    fn text(&mut self, x: f64, y: f64, text: &str, scale: u32, color: Rgb) {
        let size = 8.0 * scale as f64;
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{:.1}" font-family="monospace" font-size="{size:.0}" fill="{}">{}</text>"#,
            y + size * 0.85,
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

    fn text(&mut self, x: f64, y: f64, text: &str, scale: u32, color: Rgb) {
        use font8x8::UnicodeFonts;
        let s = scale as f32;
        let mut pb = tiny_skia::PathBuilder::new();
        for (i, ch) in text.chars().enumerate() {
            let glyph = font8x8::BASIC_FONTS
                .get(ch)
                .or_else(|| font8x8::LATIN_FONTS.get(ch))
                .or_else(|| font8x8::GREEK_FONTS.get(ch))
                .or_else(|| font8x8::BASIC_FONTS.get('?'))
                .unwrap_or([0; 8]);
            let left = x as f32 + i as f32 * 8.0 * s;
            if left > self.pixmap.width() as f32 {
                break;
            }
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    // The lowest bit is the leftmost pixel.
                    if bits >> col & 1 == 1
                        && let Some(rect) = tiny_skia::Rect::from_xywh(
                            left + col as f32 * s,
                            y as f32 + row as f32 * s,
                            s,
                            s,
                        )
                    {
                        pb.push_rect(rect);
                    }
                }
            }
        }
        if let Some(path) = pb.finish() {
            self.pixmap.fill_path(
                &path,
                &Raster::paint(color, 1.0, false),
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
