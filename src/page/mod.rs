//! Report pages: a recording as one self-contained HTML page that plays it in any browser,
//! and an index page over many recordings.
//!
//! A [`Page`] holds what the page shows, as the library reads it: the summary (the
//! header's facts), the players' stints, the chat, every game event, the timeline markers,
//! and each player's positions over the range. The map is the picture the render layer
//! ([`crate::render`]) draws without the paths, embedded as a PNG; the page's script draws
//! the tees over it at the tick a slider or the play button picks, with the same world to
//! pixel mapping the picture was drawn with ([`PageView`]).
//!
//! [`Page::to_html`] writes the page: styles, script, picture and data are inside, so it
//! works offline and from a `file://` URL and fetches nothing. The data is the `Page`
//! serialized as JSON, so the page and the library's serde types are one vocabulary; a page
//! stays small however long the recording by thinning positions to at most
//! [`PageOptions::max_samples`] (every player sampled on the same ticks).
//!
//! [`IndexRow`] is one recording's line in an index page, [`index_html`] the page itself
//! (sortable and filterable, each row linking its recording's page). Finding the files,
//! running them in parallel and keeping the index up to date is the front end's business.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

mod recording;

use crate::gamenet::summary::{ChatLine, EventLine, PlayerStint};
use crate::recording::Summary;
use crate::render::{Gathered, MarkKind, Scene, Track, group, hex, xml_escape};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the page's data ([`Page`]'s JSON): raised when a field changes meaning
/// or goes away.
pub const PAGE_SCHEMA: u32 = 1;

/// At most this many positions (summed over the players) go into a page unless
/// [`PageOptions::max_samples`] says otherwise: about 2 MB of JSON (see
/// `docs/report.md`).
pub const DEFAULT_MAX_SAMPLES: usize = 200_000;

/// What a report covers and how large its page may grow.
#[derive(Debug, Clone)]
pub struct PageOptions {
    /// The range, players, picture size and map, as for a picture. `heatmap` is ignored.
    pub render: crate::render::RenderOptions,
    /// At most this many positions in the page: beyond it, every player is sampled on
    /// every `step`-th tick only ([`Page::step`]).
    pub max_samples: usize,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            render: crate::render::RenderOptions::default(),
            max_samples: DEFAULT_MAX_SAMPLES,
        }
    }
}

/// Everything a recording's page shows; see the [module docs](self).
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// [`PAGE_SCHEMA`].
    pub schema: u32,
    /// The file's name (without its directories), or empty for a recording read from
    /// memory.
    pub file: String,
    /// The format's name ([`Format::name`](crate::recording::Format::name)).
    pub format: String,
    /// The picture's title line: map, date, length.
    pub title: String,
    /// The picture's second line, where it has one (Source bounds, an early end).
    pub note: Option<String>,
    /// The map's name.
    pub map: String,
    /// When it was recorded, as the recording says.
    pub date: String,
    /// Ticks per second.
    pub tick_rate: f64,
    /// The first tick with positions or events in the range.
    pub first_tick: Option<i32>,
    /// The last such tick.
    pub last_tick: Option<i32>,
    /// The length of the range in seconds.
    pub seconds: f64,
    /// The header's facts, as `demokit info --json` gives them.
    pub summary: Option<Summary>,
    /// The players with positions, in the picture's order and colours.
    pub players: Vec<PagePlayer>,
    /// Every player's stints over the whole recording.
    pub stints: Vec<PlayerStint>,
    /// The chat lines in the range.
    pub chat: Vec<ChatLine>,
    /// Every game event in the range.
    pub events: Vec<EventLine>,
    /// The demo's timeline markers (ticks) in the range; none for the other formats.
    pub markers: Vec<i32>,
    /// The picture's marks (spawns, deaths, kills, finishes) where their place is known,
    /// in tick order: the page draws them on the map as playback passes them.
    pub marks: Vec<PageMark>,
    /// The tile kinds the map picture shows, for the page's legend.
    #[serde(default)]
    pub tiles: Vec<PageTile>,
    /// The game's own events that the game log makes none of (Source: `round_start`,
    /// `bomb_planted`, ... by the demo's descriptors), in tick order, at most 500 of a
    /// name.
    pub game_events: Vec<PageGameEvent>,
    /// How many game events of each name the recording has (the list keeps at most 500
    /// of a name).
    pub game_event_counts: BTreeMap<String, u64>,
    /// Where a world position lands on the picture.
    pub view: PageView,
    /// Positions are kept on every `step`-th tick (1: all of them).
    pub step: u32,
    /// Positions read in the range.
    pub samples_read: usize,
    /// Positions kept in the page.
    pub samples_kept: usize,
    /// The error that ended the reading early; what came before it is shown.
    pub error: Option<String>,
    /// The map picture, a PNG (in the page: a `data:` URL).
    #[serde(skip)]
    pub picture: Vec<u8>,
}

/// One of the game's own events on a page (see [`Page::game_events`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PageGameEvent {
    /// The tick.
    pub tick: i32,
    /// The event's name, the page's kind for it.
    pub kind: String,
    /// Its values, `key=value, ...`.
    pub text: String,
}

/// A tile kind of the page's map picture, for its legend.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PageTile {
    /// The kind's name, as the picture's legend gives it.
    pub name: String,
    /// Its colour, `#rrggbb`.
    pub color: String,
}

/// One player of a page: who, in which colour, and where over the range.
#[derive(Debug, Clone, Serialize)]
pub struct PagePlayer {
    /// Client id (Source: player slot).
    pub client_id: i32,
    /// The last name in the range (`#id` when the recording gives none).
    pub name: String,
    /// The colour, as `#rrggbb`.
    pub color: String,
    /// The positions: ticks, x and y, each delta-coded (the first value as it is, then
    /// each the difference to the one before) and rounded to whole world units.
    pub track: DeltaTrack,
}

/// A mark on the map, as the picture's legend names it.
#[derive(Debug, Clone, Serialize)]
pub struct PageMark {
    /// `spawn`, `death`, `kill` or `finish` ([`MarkKind::name`]).
    pub kind: &'static str,
    /// The tick.
    pub tick: i32,
    /// Where, in world units (rounded).
    pub x: i64,
    /// Where, in world units (rounded).
    pub y: i64,
    /// The player's colour (a kill's: the killer's), as `#rrggbb`.
    pub color: String,
}

/// A player's positions as three delta-coded columns; see [`PagePlayer::track`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct DeltaTrack {
    /// Ticks.
    pub tick: Vec<i64>,
    /// World x.
    pub x: Vec<i64>,
    /// World y.
    pub y: Vec<i64>,
}

impl DeltaTrack {
    /// The positions, undone from their deltas: tick, x, y.
    pub fn decode(&self) -> Vec<(i64, i64, i64)> {
        let (mut t, mut x, mut y) = (0, 0, 0);
        self.tick
            .iter()
            .zip(&self.x)
            .zip(&self.y)
            .map(|((dt, dx), dy)| {
                t += dt;
                x += dx;
                y += dy;
                (t, x, y)
            })
            .collect()
    }
}

/// The world to picture mapping: a world position (`x`, `y`) is drawn at pixel
/// (`x0 + sx * x`, `y0 + sy * y`) of a `width` by `height` picture.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PageView {
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
    /// Pixel x of world x 0.
    pub x0: f64,
    /// Pixels per world unit along x.
    pub sx: f64,
    /// Pixel y of world y 0.
    pub y0: f64,
    /// Pixels per world unit along y (negative where the world's y points up).
    pub sy: f64,
    /// The map area on the picture: left, top, width, height, in pixels (tees outside
    /// it are not drawn).
    pub clip: [f64; 4],
    /// A tee's radius in pixels.
    pub radius: f64,
}

impl Page {
    /// Builds a report from what a walk gathered and the scene drawn from it.
    pub(crate) fn build(
        mut g: Gathered,
        scene: &Scene,
        summary: Option<Summary>,
        markers: Vec<i32>,
        file: String,
        format: String,
        max_samples: usize,
    ) -> Page {
        // The map alone, without paths, marks, heat or text: the tees move over it, and
        // the page writes the title and legend itself.
        let backdrop = scene.backdrop();
        let picture = backdrop.to_png();
        let tiles = backdrop
            .tile_legend()
            .into_iter()
            .map(|(name, color)| PageTile {
                name: name.to_owned(),
                color: hex(color),
            })
            .collect();
        // The world-to-pixel mapping, from two corners of the view: points on the
        // picture, which `project` does not hold back (a point far off it would be).
        let [vx, vy, vw, vh] = backdrop.view;
        let (ax, ay) = backdrop.project(vx, vy);
        let (bx, by) = backdrop.project(vx + vw, vy + vh);
        let (sx, sy) = ((bx - ax) / vw, (by - ay) / vh);
        let view = PageView {
            width: backdrop.width,
            height: backdrop.height,
            x0: ax - vx * sx,
            sx,
            y0: ay - vy * sy,
            sy,
            clip: backdrop.map_area(),
            radius: (backdrop.scale() * 14.0).clamp(3.0, 12.0),
        };
        // Positions may have been thinned while reading already (`g.step`): the page's
        // step is a multiple of that one, so that its groups hold whole reading groups.
        let kept: usize = g.tracks.values().map(|t| t.samples.len()).sum();
        let first = g.first_tick.unwrap_or(0);
        let step = thinning_step(&g.tracks, kept, max_samples, first, g.step.max(1));
        let samples_read = g.read;
        let players: Vec<PagePlayer> = scene
            .players
            .iter()
            .map(|p| PagePlayer {
                client_id: p.client_id,
                name: p.name.clone(),
                color: hex(p.color),
                track: g
                    .tracks
                    .get(&p.client_id)
                    .map(|t| thin(t, first, step))
                    .unwrap_or_default(),
            })
            .collect();
        let samples_kept = players.iter().map(|p| p.track.tick.len()).sum();
        let seconds = match (g.first_tick, g.last_tick) {
            (Some(a), Some(b)) if g.tick_rate > 0.0 => (f64::from(b) - f64::from(a)) / g.tick_rate,
            _ => 0.0,
        };
        let marks = scene
            .marks
            .iter()
            .map(|m| PageMark {
                kind: MarkKind::name(m.kind),
                tick: m.tick,
                x: m.at[0].round() as i64,
                y: m.at[1].round() as i64,
                color: hex(m.color),
            })
            .collect();
        let range = g.first_tick.zip(g.last_tick);
        let markers = markers
            .into_iter()
            .filter(|m| range.is_none_or(|(a, b)| (a..=b).contains(m)))
            .collect();
        Page {
            schema: PAGE_SCHEMA,
            file,
            format,
            title: scene.title.clone(),
            note: scene.note.clone(),
            map: std::mem::take(&mut g.map),
            date: std::mem::take(&mut g.date),
            tick_rate: g.tick_rate,
            first_tick: g.first_tick,
            last_tick: g.last_tick,
            seconds,
            summary,
            players,
            stints: std::mem::take(&mut g.stints),
            chat: std::mem::take(&mut g.chat),
            events: std::mem::take(&mut g.all_events),
            markers,
            marks,
            tiles,
            game_events: std::mem::take(&mut g.game_events)
                .into_iter()
                .map(|e| PageGameEvent {
                    tick: e.tick,
                    kind: e.name,
                    text: e.text,
                })
                .collect(),
            game_event_counts: std::mem::take(&mut g.game_event_counts),
            view,
            step,
            samples_read,
            samples_kept,
            error: g.error.take(),
            picture,
        }
    }

    /// The page: one HTML document with its styles, script, picture and data inside.
    pub fn to_html(&self) -> String {
        let data = script_json(self);
        let picture = base64::engine::general_purpose::STANDARD.encode(&self.picture);
        let title = if self.file.is_empty() {
            self.title.clone()
        } else {
            format!("{} – {}", self.file, self.title)
        };
        fill_slots(
            PAGE,
            &[
                ("title", &xml_escape(&title)),
                ("style", STYLE),
                ("picture", &picture),
                ("data", &data),
                ("script", PAGE_SCRIPT),
            ],
        )
    }

    /// This recording's line in an index page; `page` is the link to its own page.
    pub fn row(&self, path: String, page: Option<String>) -> IndexRow {
        IndexRow {
            path,
            page,
            format: self.format.clone(),
            map: self.map.clone(),
            date: crate::time::shown_start_time(&self.date),
            seconds: Some(self.seconds),
            players: self.players.iter().map(|p| p.name.clone()).collect(),
            error: self.error.clone(),
        }
    }
}

/// The smallest step found, a multiple of `unit` (the step the reading thinned to
/// already), that keeps at most `max` of the `read` positions: players are sampled on the
/// same ticks (one position per player per group of `step` ticks from `first`). A
/// recording whose snapshots come every other tick keeps twice what `read / step` says, so
/// the step grows until the count fits.
fn thinning_step(
    tracks: &BTreeMap<i32, Track>,
    read: usize,
    max: usize,
    first: i32,
    unit: u32,
) -> u32 {
    let max = max.max(1);
    if read <= max {
        return unit;
    }
    let round = |step: u64| {
        (step.div_ceil(u64::from(unit)) * u64::from(unit)).min(u64::from(u32::MAX)) as u32
    };
    let mut step = round((read as u64).div_ceil(max as u64).max(u64::from(unit)));
    loop {
        let kept: usize = tracks.values().map(|t| groups(t, first, step)).sum();
        if kept <= max || step == u32::MAX {
            return step;
        }
        let grown = (u64::from(step) * kept as u64).div_ceil(max as u64);
        step = round(grown.max(u64::from(step) + 1));
    }
}

/// How many groups of `step` ticks from `first` a track has positions in.
fn groups(track: &Track, first: i32, step: u32) -> usize {
    let mut count = 0;
    let mut last = None;
    for &(tick, _, _) in &track.samples {
        let g = group(tick, first, step);
        if last != Some(g) {
            count += 1;
            last = Some(g);
        }
    }
    count
}

/// A track's positions, one per `step` ticks (the first in each group of `step` ticks
/// from `first`), delta-coded.
fn thin(track: &Track, first: i32, step: u32) -> DeltaTrack {
    let mut out = DeltaTrack::default();
    let (mut t0, mut x0, mut y0) = (0i64, 0i64, 0i64);
    let mut last_group = None;
    for &(tick, x, y) in &track.samples {
        let g = group(tick, first, step);
        if last_group == Some(g) {
            continue;
        }
        last_group = Some(g);
        let (t, x, y) = (i64::from(tick), x.round() as i64, y.round() as i64);
        out.tick.push(t - t0);
        out.x.push(x - x0);
        out.y.push(y - y0);
        (t0, x0, y0) = (t, x, y);
    }
    out
}

/// One recording's line in an index page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexRow {
    /// The file, relative to the directory the index covers.
    pub path: String,
    /// Its page, relative to the index page (`None`: no page, see `error`).
    pub page: Option<String>,
    /// The format's name.
    pub format: String,
    /// The map's name.
    pub map: String,
    /// When it was recorded, as pictures and pages show it
    /// ([`shown_start_time`](crate::time::shown_start_time)).
    pub date: String,
    /// Length in seconds, where the recording could be read.
    pub seconds: Option<f64>,
    /// The players' names.
    pub players: Vec<String>,
    /// Why the recording could not be read (whole or in part).
    pub error: Option<String>,
}

/// The index page over `rows`, titled `title`: a table that sorts by any column and
/// filters as one types, each row linking its recording's page.
pub fn index_html(title: &str, rows: &[IndexRow]) -> String {
    #[derive(Serialize)]
    struct IndexData<'a> {
        schema: u32,
        title: &'a str,
        rows: &'a [IndexRow],
    }
    let data = script_json(&IndexData {
        schema: PAGE_SCHEMA,
        title,
        rows,
    });
    fill_slots(
        INDEX,
        &[
            ("title", &xml_escape(title)),
            ("style", STYLE),
            ("data", &data),
            ("script", INDEX_SCRIPT),
        ],
    )
}

/// `template` with each `{{name}}` slot replaced by its value from `values`, in one pass
/// from left to right: a value is never scanned again, so text from a recording that
/// holds `{{script}}` stays that text. Every slot of the template must have a value (a
/// template is the crate's own: a slot without one is a bug, caught by the tests).
fn fill_slots(template: &str, values: &[(&str, &str)]) -> String {
    let capacity = template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>();
    let mut out = String::with_capacity(capacity);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        match values.iter().find(|(slot, _)| *slot == name) {
            Some((_, value)) => out.push_str(value),
            None => {
                debug_assert!(false, "the template's slot {name:?} has no value");
                out.push_str(&rest[start..start + 4 + len]);
            }
        }
        rest = &rest[start + 4 + len..];
    }
    out.push_str(rest);
    out
}

/// `value` as JSON that is safe inside a `<script>` element and in any HTML parser:
/// `<`, `>` and `&` are written `\u003c`, `\u003e` and `\u0026` (no text in a recording,
/// such as a chat line saying `</script>` or `<!--`, can end the element or start a
/// comment), and U+2028 and U+2029 as `\u2028` and `\u2029` (line terminators to older
/// JavaScript parsers). The JSON value is the same.
// The page data are structs, sequences and maps with string keys, all of them derived or
// plain: serde_json fails on none of them.
#[allow(clippy::expect_used)]
fn script_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("report data serializes");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The recording page's HTML, with `{{...}}` slots.
const PAGE: &str = include_str!("page.html");
/// The index page's HTML, with `{{...}}` slots.
const INDEX: &str = include_str!("index.html");
/// The styles both pages share.
const STYLE: &str = include_str!("style.css");
/// The recording page's script.
const PAGE_SCRIPT: &str = include_str!("page.js");
/// The index page's script.
const INDEX_SCRIPT: &str = include_str!("index.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_at_most_the_budget_and_one_per_group() {
        let every_tick = Track {
            name: "a".into(),
            samples: (0..1000)
                .map(|t| (t, t as f32 * 2.0, -(t as f32)))
                .collect(),
        };
        let tracks = BTreeMap::from([(0, every_tick.clone())]);
        let step = thinning_step(&tracks, 1000, 100, 0, 1);
        assert_eq!(step, 10);
        let thinned = thin(&every_tick, 0, step);
        assert_eq!(thinned.tick.len(), 100);
        let decoded = thinned.decode();
        assert_eq!(decoded[0], (0, 0, 0));
        assert_eq!(decoded[1], (10, 20, -10));
        assert_eq!(decoded[99], (990, 1980, -990));
        assert_eq!(thinning_step(&tracks, 1000, 1000, 0, 1), 1);
        // Every other tick: the step doubles to fit.
        let every_other = Track {
            name: "b".into(),
            samples: (0..1000).step_by(2).map(|t| (t, 0.0, 0.0)).collect(),
        };
        let tracks = BTreeMap::from([(0, every_other.clone()), (1, every_other.clone())]);
        let step = thinning_step(&tracks, 1000, 100, 0, 1);
        let kept: usize = tracks.values().map(|t| thin(t, 0, step).tick.len()).sum();
        assert!((50..=100).contains(&kept), "step {step} keeps {kept}");
    }

    #[test]
    fn script_json_cannot_end_its_element() {
        let said = "</script><script>alert(1)</script><!-- & \u{2028}\u{2029} -->";
        let text = script_json(&said);
        for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!text.contains(c), "{text}");
        }
        let back: String = serde_json::from_str(&text).unwrap();
        assert_eq!(back, said);
    }

    /// A value holding a slot's name is not filled again: `{{script}}` in a map name
    /// stays those ten characters (the defect of chained `replace`s).
    #[test]
    fn slots_are_filled_once() {
        let filled = fill_slots(
            "<title>{{title}}</title><script>{{script}}</script>",
            &[("title", "{{script}}x{{style}}"), ("script", "run()")],
        );
        assert_eq!(
            filled,
            "<title>{{script}}x{{style}}</title><script>run()</script>"
        );
        // Every slot of the crate's templates is filled.
        for template in [PAGE, INDEX] {
            let slots: Vec<&str> = template
                .split("{{")
                .skip(1)
                .map(|s| s.split("}}").next().unwrap())
                .collect();
            for slot in slots {
                assert!(
                    ["title", "style", "picture", "data", "script"].contains(&slot),
                    "{slot}"
                );
            }
        }
    }
}
