//! What a picture is drawn from, read from a recording of any format: each player's
//! positions over a range of ticks, the game's events, and the title's facts. The entry
//! point chooses the format ([`Visitor`]); each method here walks its format's game layer
//! once.

use crate::gamenet::summary::{ChatLine, EventKind, EventLine, GameLog, PlayerStint};
use crate::recording::{Error, TeehistorianStream, Visitor};
use crate::source::SourceSlice;
use crate::teehistorian::game::EventLogger;
use crate::teehistorian::{TeehistorianSlice, TickWalk, WalkSource};
use crate::time::TickRange;
use crate::twdemo::DemoSlice;
use crate::twdemo::game::{GameReplay, TickLogger};
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
    /// Whether the y axis points up (Source) rather than down (Teeworlds).
    pub y_up: bool,
    /// The error that ended the walk early; what came before it is drawn.
    pub error: Option<String>,
    /// Why the map is not drawn, where the recording's own map does not load.
    pub map_note: Option<String>,
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

/// Walks a recording into a [`Gathered`], over `range` (`None`: all of it).
pub(crate) struct Gatherer {
    pub range: Option<TickRange>,
}

impl Gatherer {
    fn keeps(&self, tick: i32) -> bool {
        self.range.is_none_or(|r| r.contains(tick))
    }

    fn past(&self, tick: i32) -> bool {
        self.range.is_some_and(|r| tick > r.to)
    }

    fn teehistorian_walk<S: WalkSource>(&self, mut walk: TickWalk<S>, g: &mut Gathered) {
        let mut log = EventLogger::new();
        loop {
            let tick = match walk.next_tick(|event| log.add(&event)) {
                None => break,
                Some(Ok(tick)) => tick,
                Some(Err(e)) => {
                    g.error = Some(e.to_string());
                    break;
                }
            };
            if self.past(tick) {
                break;
            }
            if !self.keeps(tick) {
                continue;
            }
            g.saw(tick);
            let roster = log.roster();
            for (cid, (x, y)) in walk.world().players() {
                let name = roster.player(cid).map_or("", |p| p.name.as_str());
                g.sample(tick, cid, name, x as f32, y as f32);
            }
        }
        g.keep_log(log.finish(walk.tick()), self.range);
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Visitor for Gatherer {
    type Output = Result<Gathered, Error>;

    fn twdemo(&mut self, data: &[u8]) -> Self::Output {
        let demo = DemoSlice::parse(data)?;
        let header = &demo.prelude().header;
        let mut g = Gathered {
            map: lossy(header.map_name.text_bytes()),
            date: lossy(header.timestamp.text_bytes()),
            tick_rate: f64::from(crate::time::SERVER_TICK_SPEED),
            ..Gathered::default()
        };
        let mut log = TickLogger::default();
        let mut replay = GameReplay::new(&demo);
        while let Some(tick) = replay.next() {
            let tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    g.error = Some(e.to_string());
                    break;
                }
            };
            log.tick(&tick);
            if self.past(tick.tick) {
                break;
            }
            if !self.keeps(tick.tick) {
                continue;
            }
            g.saw(tick.tick);
            for c in tick.world.characters() {
                let name = tick
                    .world
                    .player(c.client_id)
                    .map_or("", |p| p.name.as_str());
                g.sample(tick.tick, c.client_id, name, c.x as f32, c.y as f32);
            }
        }
        g.keep_log(log.finish(), self.range);
        Ok(g)
    }

    fn teehistorian(&mut self, data: &[u8]) -> Self::Output {
        let th = TeehistorianSlice::parse(data)?;
        let header = th.header();
        let mut g = Gathered {
            map: header.map_name.clone().unwrap_or_default(),
            date: header.start_time.clone().unwrap_or_default(),
            tick_rate: f64::from(crate::time::SERVER_TICK_SPEED),
            ..Gathered::default()
        };
        self.teehistorian_walk(TickWalk::new(&th), &mut g);
        Ok(g)
    }

    fn teehistorian_stream(&mut self, reader: TeehistorianStream, _len: u64) -> Self::Output {
        let header = reader.header();
        let mut g = Gathered {
            map: header.map_name.clone().unwrap_or_default(),
            date: header.start_time.clone().unwrap_or_default(),
            tick_rate: f64::from(crate::time::SERVER_TICK_SPEED),
            ..Gathered::default()
        };
        self.teehistorian_walk(TickWalk::from_reader(reader), &mut g);
        Ok(g)
    }

    fn source(&mut self, data: &[u8]) -> Self::Output {
        use crate::source::game::{Item, Walk};
        let demo = SourceSlice::parse(data)?;
        let header = demo.header();
        let tick_rate = if header.playback_time > 0.0 && header.ticks > 0 {
            f64::from(header.ticks) / f64::from(header.playback_time)
        } else {
            66.0
        };
        let mut g = Gathered {
            map: lossy(header.map.text_bytes()),
            server: lossy(header.server.text_bytes()),
            tick_rate,
            y_up: true,
            ..Gathered::default()
        };
        let options = Walk {
            entities: true,
            ..Walk::default()
        };
        let mut names: BTreeMap<i32, String> = BTreeMap::new();
        let range = self.range;
        let walked = crate::source::game::game_log_reader_with(data, options, |item| match item {
            Item::Join { slot, player, .. } | Item::Rename { slot, player, .. } => {
                names.insert(*slot, player.name.clone());
            }
            Item::Players { tick, players } if range.is_none_or(|r| r.contains(*tick)) => {
                g.saw(*tick);
                for p in players.iter().filter(|p| p.in_pvs) {
                    let Some([x, y, _]) = p.origin else { continue };
                    let slot = p.index as i32 - 1;
                    let name = names.get(&slot).map_or("", String::as_str);
                    g.sample(*tick, slot, name, x, y);
                }
            }
            _ => {}
        });
        match walked {
            Ok((log, error)) => {
                g.error = error.map(|e| e.to_string());
                g.keep_log(log, range);
            }
            Err(e) => g.error = Some(e.to_string()),
        }
        Ok(g)
    }
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
