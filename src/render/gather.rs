//! What a picture is drawn from, read from a recording of any format through the entry
//! point's game stream ([`Recording::game`]): each player's positions over a range of
//! ticks, the game's events, and the title's facts.

use crate::gamenet::summary::{ChatLine, EventKind, EventLine, GameLog, PlayerStint};
use crate::model::GameOptions;
use crate::recording::{Error, Recording};
use crate::time::TickRange;
use std::collections::BTreeMap;

/// One player's positions, in tick order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Track {
    /// The last name the player had in the range.
    pub name: String,
    /// Tick, x, y (world units; Source: the map's x and y).
    pub samples: Vec<(i32, f32, f32)>,
}

impl Track {
    /// The last position at or before `tick`, or the first after it.
    pub fn at(&self, tick: i32) -> Option<(f32, f32)> {
        let i = self.samples.partition_point(|s| s.0 <= tick);
        let s = self.samples.get(i.saturating_sub(1))?;
        Some((s.1, s.2))
    }
}

/// Everything read from the recording.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// The map's name.
    pub map: String,
    /// When it was recorded, as the recording says.
    pub date: String,
    /// Source: the server; empty for the others.
    pub server: String,
    /// Ticks per second.
    pub tick_rate: f64,
    /// The first and last tick with positions or events in the range.
    pub first_tick: Option<i32>,
    /// The last tick seen.
    pub last_tick: Option<i32>,
    /// Positions by client id (Source: player slot).
    pub tracks: BTreeMap<i32, Track>,
    /// The kills, deaths and finishes in the range: what the picture marks.
    pub events: Vec<EventLine>,
    /// Every event in the range (joins, leaves, renames, votes too), for a report page.
    pub all_events: Vec<EventLine>,
    /// The chat lines in the range.
    pub chat: Vec<ChatLine>,
    /// Every player's stints, over the whole recording.
    pub stints: Vec<PlayerStint>,
    /// The game's own events (Source), at most [`MAX_GAME_EVENTS_OF_A_NAME`] of a name.
    pub game_events: Vec<GameEventLine>,
    /// How many of each name there were.
    pub game_event_counts: BTreeMap<String, u64>,
    /// Whether the y axis points up (Source) rather than down (Teeworlds).
    pub y_up: bool,
    /// The error that ended the walk early; what came before it is drawn.
    pub error: Option<String>,
    /// Why the map is not drawn, where the recording's own map does not load.
    pub map_note: Option<String>,
    /// Source: the map's surfaces or overview image, drawn under the paths.
    pub backdrop: Option<super::world::Backdrop>,
    /// Positions read in the range, kept or not.
    pub read: usize,
    /// Positions kept.
    kept: usize,
    /// Keep at most this many ([`MAX_KEPT`] when 0).
    pub max_kept: usize,
    /// Positions are kept on one tick per group of `step` ticks from the first tick (1:
    /// every one): doubled whenever more than [`MAX_KEPT`] are kept, so that memory stays
    /// bounded however long the recording.
    pub step: u32,
}

/// At most this many positions are kept while reading (about 24 MB): a one-hour game of 64
/// players has 11.5 million, more than a picture or a page can show.
pub(crate) const MAX_KEPT: usize = 2_000_000;

impl Gathered {
    fn sample(&mut self, tick: i32, client_id: i32, name: &str, x: f32, y: f32) {
        self.read += 1;
        let step = self.step.max(1);
        let first = self.first_tick.unwrap_or(tick);
        let track = self.tracks.entry(client_id).or_default();
        if track.name != name && !name.is_empty() {
            track.name.clear();
            track.name.push_str(name);
        }
        if step > 1
            && track
                .samples
                .last()
                .is_some_and(|last| group(last.0, first, step) == group(tick, first, step))
        {
            return;
        }
        track.samples.push((tick, x, y));
        self.kept += 1;
        let max = if self.max_kept == 0 {
            MAX_KEPT
        } else {
            self.max_kept
        };
        if self.kept > max {
            self.thin();
        }
    }

    /// Doubles the step and drops the positions that no longer start their group.
    fn thin(&mut self) {
        self.step = self.step.max(1).saturating_mul(2);
        let (step, first) = (self.step, self.first_tick.unwrap_or(0));
        self.kept = 0;
        for track in self.tracks.values_mut() {
            let mut last = None;
            track.samples.retain(|s| {
                let g = group(s.0, first, step);
                let keep = last != Some(g);
                last = Some(g);
                keep
            });
            self.kept += track.samples.len();
        }
    }

    fn saw(&mut self, tick: i32) {
        // Source ticks are not always in order (sign-on frames): the smallest and largest.
        self.first_tick = Some(self.first_tick.map_or(tick, |t| t.min(tick)));
        self.last_tick = Some(self.last_tick.map_or(tick, |t| t.max(tick)));
    }

    /// Puts every track in tick order (Source frames may come out of order).
    pub fn sort(&mut self) {
        for track in self.tracks.values_mut() {
            track.samples.sort_by_key(|s| s.0);
        }
    }

    /// Keeps what the game log says about the range.
    fn keep_log(&mut self, log: GameLog, range: Option<TickRange>) {
        let within = |tick: i32| range.is_none_or(|r| r.contains(tick));
        self.all_events = log.events.into_iter().filter(|e| within(e.tick)).collect();
        self.events = self
            .all_events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Kill | EventKind::Death | EventKind::Finish | EventKind::TeamFinish
                )
            })
            .cloned()
            .collect();
        self.chat = log.chat.into_iter().filter(|c| within(c.tick)).collect();
        self.stints = log.players;
    }
}

/// The group of `step` ticks from `first` that `tick` is in.
pub(crate) fn group(tick: i32, first: i32, step: u32) -> i64 {
    (i64::from(tick) - i64::from(first)).div_euclid(i64::from(step))
}

/// The most game events of one name a report page lists (the rest are counted): a CS:GO
/// demo fires thousands of footsteps and shots.
pub(crate) const MAX_GAME_EVENTS_OF_A_NAME: u64 = 500;

/// The game stream read into a [`Gathered`].
struct Sink<'g> {
    g: &'g mut Gathered,
}

impl crate::model::GameSink for Sink<'_> {
    fn players(&mut self, tick: i32, players: &[crate::model::PlayerAt<'_>]) {
        let g = &mut *self.g;
        g.saw(tick);
        // A camera (SourceTV) is no player: no path, no heat (the page's players table
        // still lists it, marked, from the log).
        for p in players.iter().filter(|p| !p.camera) {
            let (x, y) = (p.sample.x as f32, p.sample.y as f32);
            g.sample(tick, p.sample.client_id, p.name, x, y);
        }
    }

    fn protocol_event(&mut self, event: &crate::model::ProtocolEvent<'_>) {
        // What the game log makes its own events of is not listed twice.
        const IN_THE_LOG: &[&str] = &[
            "player_death",
            "player_team",
            "player_connect",
            "player_connect_client",
            "player_disconnect",
            "player_changename",
            "player_info",
            "player_say",
            "player_chat",
        ];
        if IN_THE_LOG.contains(&event.name.as_ref()) {
            return;
        }
        let count = self
            .g
            .game_event_counts
            .entry(event.name.to_string())
            .or_default();
        *count += 1;
        if *count > MAX_GAME_EVENTS_OF_A_NAME {
            return;
        }
        let mut text = String::new();
        for (key, value) in event.values.iter().take(8) {
            if !text.is_empty() {
                text.push_str(", ");
            }
            let value = match value {
                crate::model::FieldValue::Int(v) => v.to_string(),
                crate::model::FieldValue::Uint(v) => v.to_string(),
                crate::model::FieldValue::Float(v) => format!("{v}"),
                crate::model::FieldValue::Bool(v) => v.to_string(),
                crate::model::FieldValue::Text(v) => v.chars().take(64).collect(),
                crate::model::FieldValue::Bytes(_) => continue,
            };
            text.push_str(key);
            text.push('=');
            text.push_str(&value);
        }
        self.g.game_events.push(GameEventLine {
            tick: event.tick,
            name: event.name.to_string(),
            text,
        });
    }
}

/// One of the game's own events as its protocol names it (Source: the demo's event
/// descriptors), for a report page: those the game log does not make events of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GameEventLine {
    /// The tick.
    pub tick: i32,
    /// The event's name (`round_start`, `bomb_planted`).
    pub name: String,
    /// Its values, `key=value, ...` (at most 8).
    pub text: String,
}

/// Reads the game stream of `recording` into a [`Gathered`], over `range` (`None`: all of
/// it); with `game_events`, the game's own events too (Source).
pub(crate) fn gather(
    recording: &Recording,
    range: Option<TickRange>,
    game_events: bool,
) -> Result<Gathered, Error> {
    let mut g = Gathered::default();
    let mut options = GameOptions::over(range);
    options.protocol_events = game_events;
    let end = recording.game(&options, &mut Sink { g: &mut g })?;
    let facts = end.facts;
    g.map = facts.map;
    g.date = facts.start_time;
    g.server = facts.server;
    g.tick_rate = facts.tick_rate;
    g.y_up = facts.y_up;
    g.error = end.error.map(|e| e.to_string());
    g.keep_log(end.log, range);
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_thins_to_the_budget_on_shared_ticks() {
        let mut g = Gathered {
            max_kept: 100,
            ..Gathered::default()
        };
        for tick in 0..1000 {
            g.saw(tick);
            g.sample(tick, 0, "a", tick as f32, 0.0);
            // The second player every other tick.
            if tick % 2 == 0 {
                g.sample(tick, 1, "b", 0.0, tick as f32);
            }
        }
        assert_eq!(g.read, 1500);
        let kept: usize = g.tracks.values().map(|t| t.samples.len()).sum();
        assert!((25..=100).contains(&kept), "{kept}");
        assert!(g.step.is_power_of_two() && g.step >= 16, "{}", g.step);
        for track in g.tracks.values() {
            let mut last = None;
            for &(tick, _, _) in &track.samples {
                let group = group(tick, 0, g.step);
                assert_ne!(last, Some(group), "two positions in group {group}");
                assert_eq!(
                    i64::from(tick),
                    group * i64::from(g.step),
                    "a group's first tick"
                );
                last = Some(group);
            }
        }
    }
}
