//! The game model: what a game is, whatever format recorded it, and the rules that make
//! the three formats give the same tables for the same game.
//!
//! Each format's game layer ([`twdemo::game`](crate::twdemo::game),
//! [`teehistorian::game`](crate::teehistorian::game), [`source::game`](crate::source::game))
//! reads its own records; what it hands on follows the rules here, so that the export's
//! `ticks`, `events`, `players` and `chat` tables, the CLI's listings, Python, the pictures
//! and the page, which all read the game layers through [`Recording`](crate::recording::Recording),
//! agree. The model is:
//!
//! - **Players** ([`PlayerStint`]): one client id from the first tick the player is in
//!   the game to the last. A join is the first tick the player is in the game, a leave
//!   the first tick it is gone: DDNet reads a join, a drop, a name or a team a client sent
//!   after the tick's snapshot, so a teehistorian file's record of tick T shows in the
//!   game (and in a demo of it) from T + 1.
//! - **Samples** ([`Sample`]): one per player per tick in play, with the same sampling
//!   rule in every format. A format that stores a tick only when something changed (a
//!   teehistorian file skips ticks; a demo has no snapshot for some ticks) is filled
//!   forward over gaps of up to [`MAX_FILLED_TICKS`]; a longer gap is a pause, left
//!   empty. A sample's [`position_tick`](Sample::position_tick) says when its position
//!   was true: a demo carries the physics core DDNet last sent for a character (DDNet
//!   sends it again only when the clients' prediction would go wrong), which can be
//!   ticks older than the snapshot; a teehistorian file's position is the one after the
//!   tick. The demo's position at tick T equals the teehistorian file's at its
//!   `position_tick` (tested on one game recorded both ways).
//! - **Events** ([`EventLine`]) with kind, actor (`client_id` and `name`: an event that
//!   has an actor names it both ways), target, weapon and position; **chat**
//!   ([`ChatLine`]) with sender and channel.
//! - **Teams** by the game's own names ([`team`]), the code beside the name.
//! - **Ticks of play**: the recording's first to last tick as `info` gives them; every
//!   event, chat line and stint lies within them ([`keep_in_play`]: what a Source demo's
//!   signon says, on the recording client's clock, is in the game at the first tick).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub use crate::gamenet::summary::{ChatLine, EventKind, EventLine, GameLog, PlayerStint};

/// The longest gap between two stored ticks that is filled forward: a minute of
/// Teeworlds ticks. A longer one (a paused server, a broken recording) gets no samples,
/// so that a few bytes of a file saying "a million ticks later" make no million rows.
pub const MAX_FILLED_TICKS: i32 = 50 * 60;

/// The ticks a format skipped between `last` (the tick before, if any) and `tick`, to be
/// filled forward with the samples of `last`; `None` when there are none or the gap is
/// longer than [`MAX_FILLED_TICKS`].
pub fn filled_ticks(last: Option<i32>, tick: i32) -> Option<std::ops::Range<i32>> {
    let last = last?;
    let gap = tick.checked_sub(last)?.checked_sub(1)?;
    (gap > 0 && gap <= MAX_FILLED_TICKS).then(|| last + 1..tick)
}

/// A demo header's timestamp as the model writes start times, ISO 8601: DDNet's
/// `2026-11-22_01-37-51` (local time, no zone) becomes `2026-11-22T01:37:51`, as a
/// teehistorian file's `start_time` begins; anything else is kept as written.
pub fn start_time_of_demo(timestamp: &str) -> String {
    let Ok(
        &[
            y0,
            y1,
            y2,
            y3,
            b'-',
            m0,
            m1,
            b'-',
            d0,
            d1,
            b'_',
            h0,
            h1,
            b'-',
            n0,
            n1,
            b'-',
            s0,
            s1,
        ],
    ) = <&[u8; 19]>::try_from(timestamp.as_bytes())
    else {
        return timestamp.to_owned();
    };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, n0, n1, s0, s1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return timestamp.to_owned();
    }
    let iso = [
        y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', n0, n1, b':', s0, s1,
    ];
    iso.iter().copied().map(char::from).collect()
}

/// One player at one tick: what every format's `ticks` rows hold, as far as the format
/// records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sample {
    /// Client id (Source: the player's entity index - 1).
    pub client_id: i32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// The tick the position is from (see the [module docs](self)).
    pub position_tick: i32,
    /// Velocity (Teeworlds demos: 1/256 units per tick).
    pub vel_x: Option<i32>,
    /// Velocity.
    pub vel_y: Option<i32>,
    /// The weapon held, as the protocol numbers it.
    pub weapon: Option<i32>,
    /// Health.
    pub health: Option<i32>,
    /// Armor.
    pub armor: Option<i32>,
}

/// One player at a tick of the game stream
/// ([`RecordingFormat::game`](crate::format::RecordingFormat::game)): the sample and the
/// name the player has then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerAt<'a> {
    /// What the format records of the player at the tick.
    pub sample: Sample,
    /// The player's name at the tick (empty where the recording has not named the player
    /// yet).
    pub name: &'a str,
    /// Whether it is a camera rather than a player (a Source demo's SourceTV relay):
    /// see [`PlayerStint::camera`](crate::gamenet::summary::PlayerStint::camera).
    pub camera: bool,
}

/// The facts of a recorded game that every format gives: where and when it was played,
/// and how its ticks and positions are counted.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GameFacts {
    /// The format's version as the recording gives it (a demo's container version, a
    /// teehistorian file's `version`, a Source demo's demo protocol).
    pub version: String,
    /// The map's name; empty where the recording does not name it.
    pub map: String,
    /// When it was recorded, as the recording says (a demo's timestamp as
    /// [`start_time_of_demo`] writes it, a teehistorian file's `start_time`); empty where
    /// it does not say.
    pub start_time: String,
    /// The server's name (Source demos); empty for the others.
    pub server: String,
    /// The server's version (a teehistorian file's `server_version`); empty for the
    /// others.
    pub server_version: String,
    /// The game's id where the recording has one (a teehistorian file's `game_uuid`);
    /// empty otherwise.
    pub game_uuid: String,
    /// Ticks per second.
    pub tick_rate: f64,
    /// Whether the y axis points up (Source) rather than down (Teeworlds).
    pub y_up: bool,
}

/// What a walk of the game stream
/// ([`Recording::game`](crate::recording::Recording::game)) hands out, and what it may
/// leave out: a part nobody wants is not computed (a teehistorian file's inputs are
/// stepped over, its players' names not followed, a Source demo's entities not decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GameOptions {
    /// The ticks whose players are handed out (`None`: every tick).
    pub range: Option<crate::time::TickRange>,
    /// Whether the walk stops after the range's end (the log then covers the recording
    /// up to there) rather than reading on to the end.
    pub stop_after_range: bool,
    /// Only these players' samples, by client id, ascending, each once (`None`: every
    /// player's); see [`following`](Self::following).
    pub client_ids: Option<Vec<i32>>,
    /// Whether the players' samples are handed out at all ([`GameSink::players`]).
    pub players: bool,
    /// Whether the samples carry the players' names (else the names are empty).
    pub names: bool,
    /// Whether the game log (players, events, chat) is kept for the [`GameEnd`](crate::format::GameEnd).
    pub log: bool,
    /// Whether the inputs the clients sent are handed out ([`GameSink::inputs`]; the
    /// formats that record them: teehistorian).
    pub inputs: bool,
    /// Whether the events typed by the recording's own protocol are handed out
    /// ([`GameSink::protocol_event`]; the formats that describe their events in the file:
    /// Source).
    pub protocol_events: bool,
    /// Whether the container's frames are handed out ([`GameSink::frame`]; the formats
    /// whose records are frames with a command and a tick: Source).
    pub frames: bool,
    /// Whether a long walk may run on a thread of its own while the caller's thread takes
    /// what it hands out (a teehistorian file's); what is handed out is the same.
    pub pipelined: bool,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions::over(None)
    }
}

impl GameOptions {
    /// Every tick's players with their names, and the log, over `range` (`None`: all of
    /// it), stopping after the range: what a picture or a page is drawn from.
    pub fn over(range: Option<crate::time::TickRange>) -> GameOptions {
        GameOptions {
            range,
            stop_after_range: true,
            client_ids: None,
            players: true,
            names: true,
            log: true,
            inputs: false,
            protocol_events: false,
            frames: false,
            pipelined: false,
        }
    }

    /// Only the samples of the players `client_ids` (in any order, repeats ignored).
    pub fn following(mut self, client_ids: &[i32]) -> GameOptions {
        let mut ids = client_ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        self.client_ids = Some(ids);
        self
    }

    /// Whether `tick` is in the range.
    pub fn keeps(&self, tick: i32) -> bool {
        self.range.is_none_or(|r| r.contains(tick))
    }

    /// Whether the samples of player `client_id` are handed out.
    pub fn keeps_player(&self, client_id: i32) -> bool {
        self.client_ids
            .as_ref()
            .is_none_or(|ids| ids.binary_search(&client_id).is_ok())
    }

    /// Whether the walk ends after `tick`: no tick after it is in the range, and the walk
    /// stops there.
    pub fn stops_at(&self, tick: i32) -> bool {
        self.stop_after_range && self.range.is_some_and(|r| tick >= r.to)
    }

    /// Whether `tick` is past the range's end.
    pub fn past(&self, tick: i32) -> bool {
        self.range.is_some_and(|r| tick > r.to)
    }
}

/// Where the game stream ([`Recording::game`](crate::recording::Recording::game)) hands
/// what it walks, in the recording's order. Only [`players`](Self::players) is required;
/// a closure `FnMut(i32, &[PlayerAt])` is a sink of the players alone.
pub trait GameSink {
    /// The players in the game at `tick`, in client id order: one call per tick of the
    /// range, the ticks a format skipped filled forward (see the [module docs](self)).
    fn players(&mut self, tick: i32, players: &[PlayerAt<'_>]);

    /// Inputs the clients sent, in the recording's order, each tick's before its
    /// players.
    fn inputs(&mut self, _inputs: &[InputAt]) {}

    /// An event typed by the recording's own protocol.
    fn protocol_event(&mut self, _event: &ProtocolEvent<'_>) {}

    /// One frame of the recording's container.
    fn frame(&mut self, _frame: &FrameAt<'_>) {}
}

impl<F: FnMut(i32, &[PlayerAt<'_>])> GameSink for F {
    fn players(&mut self, tick: i32, players: &[PlayerAt<'_>]) {
        self(tick, players);
    }
}

/// One input a client sent, as absolute values (a teehistorian file stores most as
/// differences to the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputAt {
    /// The tick it was sent for.
    pub tick: i32,
    /// Client id.
    pub client_id: i32,
    /// -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Aim, relative to the character.
    pub target_x: i32,
    /// Aim, relative to the character.
    pub target_y: i32,
    /// Jump held.
    pub jump: i32,
    /// Fire presses counter.
    pub fire: i32,
    /// Hook held.
    pub hook: i32,
    /// Player flags (chatting, scoreboard, ...).
    pub player_flags: i32,
    /// Weapon wanted.
    pub wanted_weapon: i32,
    /// Next-weapon presses counter.
    pub next_weapon: i32,
    /// Previous-weapon presses counter.
    pub prev_weapon: i32,
    /// Whether it was stored whole rather than as a difference.
    pub new: bool,
}

/// An event typed by the recording's own descriptors (a Source demo's game events:
/// `player_death`, `round_start`, ...), its values named by them.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolEvent<'a> {
    /// The tick.
    pub tick: i32,
    /// The event's name.
    pub name: std::borrow::Cow<'a, str>,
    /// Its values by key, in the descriptor's order.
    pub values: Vec<(std::borrow::Cow<'a, str>, FieldValue<'a>)>,
}

/// One value of a [`ProtocolEvent`].
///
/// With the `serde` feature: the bare value (a JSON number, string or bool).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum FieldValue<'a> {
    /// An integer.
    Int(i64),
    /// An unsigned 64-bit integer (a Source event's `uint64`).
    Uint(u64),
    /// A float, as the recording stores it.
    Float(f32),
    /// A bool.
    Bool(bool),
    /// Text.
    Text(std::borrow::Cow<'a, str>),
    /// Text that is not UTF-8, as its bytes (with the `serde` feature: an array of byte
    /// values).
    Bytes(std::borrow::Cow<'a, [u8]>),
}

/// One frame of a recording's container: where it is and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameAt<'a> {
    /// Its place in the file, from 0.
    pub index: u64,
    /// The offset of its first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// Its command's name.
    pub command: &'a str,
    /// The tick.
    pub tick: i32,
    /// The player slot, in the formats' profiles that have one.
    pub slot: Option<i32>,
}

/// The kind of game a team number belongs to, which names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TeamGame {
    /// A Teeworlds game with red and blue teams (TDM, CTF).
    TeeworldsTeams,
    /// A Teeworlds game without teams (deathmatch, DDNet's race): a player is in the game
    /// or a spectator.
    TeeworldsFree,
    /// A Source game; the name is the demo's game directory (`tf`, `cstrike`, `csgo`, ...).
    Source(SourceGame),
}

impl TeamGame {
    /// The kind of a Teeworlds game by its game type's name (a teehistorian header's
    /// `game_type`): the team modes (`TDM`, `CTF` and their variants, `iTDM`, `gCTF`, ...)
    /// have teams; deathmatch and DDNet's race have none.
    pub fn of_game_type(game_type: &str) -> TeamGame {
        let upper = game_type.to_ascii_uppercase();
        if upper.contains("TDM") || upper.contains("CTF") {
            TeamGame::TeeworldsTeams
        } else {
            TeamGame::TeeworldsFree
        }
    }
}

/// The Source games whose team numbers have names of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceGame {
    /// Team Fortress 2.
    TeamFortress2,
    /// Counter-Strike: Source and CS:GO.
    CounterStrike,
    /// Day of Defeat: Source.
    DayOfDefeat,
    /// Left 4 Dead 1 and 2.
    Left4Dead,
    /// Half-Life 2: Deathmatch.
    Hl2Deathmatch,
    /// Any other (Portal, HL2, mods): only the engine's own teams.
    Other,
}

impl SourceGame {
    /// The game of a demo's game directory (its header's `game_dir`).
    pub fn of_game_dir(game_dir: &str) -> SourceGame {
        match game_dir.to_ascii_lowercase().as_str() {
            "tf" | "tf2" => SourceGame::TeamFortress2,
            "cstrike" | "csgo" => SourceGame::CounterStrike,
            "dod" => SourceGame::DayOfDefeat,
            "left4dead" | "left4dead2" => SourceGame::Left4Dead,
            "hl2mp" => SourceGame::Hl2Deathmatch,
            _ => SourceGame::Other,
        }
    }
}

/// A team number as the game names it, or `None` where the number means no team: a
/// Teeworlds game without teams (deathmatch, DDNet's race) has only spectators (-1) and
/// DDNet's race teams (`team 1` ...); team 0 there is no team. A number a game has no
/// name for is `team N`.
pub fn team(game: TeamGame, code: i32) -> Option<(i32, std::borrow::Cow<'static, str>)> {
    use std::borrow::Cow;
    let named = |name: &'static str| Some((code, Cow::Borrowed(name)));
    match (game, code) {
        (TeamGame::TeeworldsTeams | TeamGame::TeeworldsFree, -1) => named("spectators"),
        (TeamGame::TeeworldsTeams, 0) => named("red"),
        (TeamGame::TeeworldsTeams, 1) => named("blue"),
        (TeamGame::TeeworldsFree, 0) => None,
        (TeamGame::Source(_), 0) => named("Unassigned"),
        (TeamGame::Source(_), 1) => named("Spectator"),
        (TeamGame::Source(game), 2 | 3) if game != SourceGame::Other => {
            let [two, three] = match game {
                SourceGame::TeamFortress2 => ["RED", "BLU"],
                SourceGame::CounterStrike => ["TERRORIST", "CT"],
                SourceGame::DayOfDefeat => ["Allies", "Axis"],
                SourceGame::Left4Dead => ["Survivor", "Infected"],
                _ => ["Combine", "Rebels"],
            };
            named(if code == 2 { two } else { three })
        }
        _ => Some((code, Cow::Owned(format!("team {code}")))),
    }
}

/// Moves every tick of `log` into the ticks of play `first..=last` (a format whose records
/// can carry ticks outside them: a Source demo's frames before its first sync tick hold
/// the recording client's clock): what happened before the first tick of play is in the
/// game at that tick, and no stint lasts past the last.
pub fn keep_in_play(log: &mut GameLog, first: i32, last: i32) {
    let last = last.max(first);
    let clamp = |tick: &mut i32| *tick = (*tick).clamp(first, last);
    for event in &mut log.events {
        clamp(&mut event.tick);
    }
    for line in &mut log.chat {
        clamp(&mut line.tick);
    }
    for stint in &mut log.players {
        clamp(&mut stint.first_tick);
        clamp(&mut stint.last_tick);
    }
}

/// What a reader of a game's tables asks for: some kinds of event, a tick range, some
/// players (by client id or by name). Empty lists and `None` select everything. The CLI's
/// `--kind`, `--from/--to` and `--players` and Python's `kind=`, `ticks=` and `players=`
/// are this.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Event kinds by name (`join`, `kill`, ...; [`EventKind::name`]).
    pub kinds: Vec<String>,
    /// The ticks, both ends kept (resolved by
    /// [`Recording::tick_range`](crate::recording::Recording::tick_range)).
    pub ticks: Option<crate::time::TickRange>,
    /// Players: a client id (`3`) or a name.
    pub players: Vec<String>,
}

/// A [`Selection`] checked against a game: kinds that exist, client ids for the names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selected {
    /// The kinds kept; `None` all.
    pub kinds: Option<Vec<EventKind>>,
    /// The ticks kept; `None` all.
    pub ticks: Option<crate::time::TickRange>,
    /// The client ids kept, ascending; `None` all.
    pub client_ids: Option<Vec<i32>>,
}

impl Selection {
    /// Whether it selects everything.
    pub fn is_everything(&self) -> bool {
        self.kinds.is_empty() && self.ticks.is_none() && self.players.is_empty()
    }

    /// Checks the selection against `log` (the game's players) and `span` (its first and
    /// last tick): an error that lists what exists for a kind or a player the game does
    /// not have, and for ticks outside the game's.
    pub fn resolve(&self, log: &GameLog, span: Option<(i32, i32)>) -> Result<Selected, String> {
        let kinds = if self.kinds.is_empty() {
            None
        } else {
            let mut kinds = Vec::new();
            for name in &self.kinds {
                let kind = EventKind::ALL
                    .iter()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| {
                        let all: Vec<_> = EventKind::ALL.iter().map(|k| k.name()).collect();
                        format!("no event kind {name:?}: the kinds are {}", all.join(", "))
                    })?;
                kinds.push(*kind);
            }
            Some(kinds)
        };
        let client_ids = if self.players.is_empty() {
            None
        } else {
            let mut ids = Vec::new();
            for player in &self.players {
                let named: Vec<i32> = log
                    .players
                    .iter()
                    .filter(|p| p.name == *player)
                    .map(|p| p.client_id)
                    .collect();
                match player.parse::<i32>() {
                    _ if !named.is_empty() => ids.extend(named),
                    Ok(id) if log.players.iter().any(|p| p.client_id == id) => ids.push(id),
                    Ok(id) => {
                        let mut known: Vec<i32> = log.players.iter().map(|p| p.client_id).collect();
                        known.sort_unstable();
                        return Err(format!(
                            "no player with client id {id}: the ids are {}",
                            listed(known.iter().map(i32::to_string))
                        ));
                    }
                    Err(_) => {
                        let mut known: Vec<String> = log
                            .players
                            .iter()
                            .map(|p| format!("{:?}", p.name))
                            .collect();
                        known.sort();
                        return Err(format!(
                            "no player named {player:?}: the players are {}",
                            listed(known.into_iter())
                        ));
                    }
                }
            }
            ids.sort_unstable();
            ids.dedup();
            Some(ids)
        };
        if let (Some(range), Some((first, last))) = (self.ticks, span)
            && (range.to < first || range.from > last)
        {
            return Err(format!(
                "ticks {}..={} are outside the recording's ticks {first}..={last}",
                range.from, range.to
            ));
        }
        Ok(Selected {
            kinds,
            ticks: self.ticks,
            client_ids,
        })
    }
}

/// `items` (sorted) joined by commas, each once, or `none`: what an error lists.
fn listed(items: impl Iterator<Item = String>) -> String {
    let mut items: Vec<String> = items.collect();
    items.dedup();
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

impl Selected {
    /// A selection that keeps nothing: no kind, no player.
    pub const NOTHING: Selected = Selected {
        kinds: Some(Vec::new()),
        ticks: None,
        client_ids: Some(Vec::new()),
    };

    /// Whether `tick` is kept.
    pub fn keeps_tick(&self, tick: i32) -> bool {
        self.ticks.is_none_or(|r| r.from <= tick && tick <= r.to)
    }

    /// Whether the player `client_id` is kept.
    pub fn keeps_client(&self, client_id: i32) -> bool {
        self.client_ids
            .as_ref()
            .is_none_or(|ids| ids.binary_search(&client_id).is_ok())
    }

    /// Whether an event is kept: its kind, its tick, and its actor or its victim.
    pub fn keeps_event(&self, event: &EventLine) -> bool {
        self.kinds.as_ref().is_none_or(|k| k.contains(&event.kind))
            && self.keeps_tick(event.tick)
            && (self.client_ids.is_none()
                || [event.client_id, event.victim]
                    .into_iter()
                    .flatten()
                    .any(|id| self.keeps_client(id)))
    }

    /// Whether a chat line is kept: its tick and its speaker.
    pub fn keeps_chat(&self, line: &ChatLine) -> bool {
        self.keeps_tick(line.tick) && self.keeps_client(line.client_id)
    }

    /// Whether a stint is kept: its player, and whether it overlaps the ticks.
    pub fn keeps_player(&self, stint: &PlayerStint) -> bool {
        self.keeps_client(stint.client_id)
            && self
                .ticks
                .is_none_or(|r| stint.first_tick <= r.to && r.from <= stint.last_tick)
    }

    /// `log` with only what is kept.
    pub fn apply(&self, mut log: GameLog) -> GameLog {
        log.events.retain(|e| self.keeps_event(e));
        log.chat.retain(|c| self.keeps_chat(c));
        log.players.retain(|p| self.keeps_player(p));
        log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_fill_up_to_the_limit() {
        assert_eq!(filled_ticks(None, 5), None);
        assert_eq!(filled_ticks(Some(4), 5), None);
        assert_eq!(filled_ticks(Some(4), 4), None);
        assert_eq!(filled_ticks(Some(6), 4), None);
        assert_eq!(filled_ticks(Some(4), 7), Some(5..7));
        assert_eq!(
            filled_ticks(Some(0), MAX_FILLED_TICKS + 1),
            Some(1..MAX_FILLED_TICKS + 1)
        );
        assert_eq!(filled_ticks(Some(0), MAX_FILLED_TICKS + 2), None);
        assert_eq!(filled_ticks(Some(i32::MIN), i32::MAX), None);
    }

    #[test]
    fn selections_name_what_exists() {
        let mut log = GameLog::default();
        log.players.push(PlayerStint {
            client_id: 3,
            name: "mover1".into(),
            clan: String::new(),
            country: -1,
            country_code: None,
            team: None,
            team_name: None,
            first_tick: 10,
            last_tick: 90,
            left: false,
            camera: false,
        });
        let select = |kinds: &[&str], players: &[&str]| Selection {
            kinds: kinds.iter().map(|s| s.to_string()).collect(),
            players: players.iter().map(|s| s.to_string()).collect(),
            ticks: None,
        };
        let e = select(&["kil"], &[]).resolve(&log, None).unwrap_err();
        assert!(e.contains("\"kil\"") && e.contains("kill, death"), "{e}");
        let e = select(&[], &["mover2"]).resolve(&log, None).unwrap_err();
        assert!(e.contains("\"mover1\""), "{e}");
        let e = select(&[], &["4"]).resolve(&log, None).unwrap_err();
        assert!(e.ends_with("the ids are 3"), "{e}");
        let by_name = select(&["kill"], &["mover1"]).resolve(&log, None).unwrap();
        assert_eq!(by_name.client_ids, Some(vec![3]));
        assert_eq!(
            by_name,
            select(&["kill"], &["3"]).resolve(&log, None).unwrap()
        );
        let outside = Selection {
            ticks: Some(crate::time::TickRange::new(100, 200)),
            ..Selection::default()
        };
        let e = outside.resolve(&log, Some((1, 99))).unwrap_err();
        assert!(e.contains("1..=99"), "{e}");
    }

    #[test]
    fn demo_start_times_are_iso_8601() {
        assert_eq!(
            start_time_of_demo("2026-11-22_01-37-51"),
            "2026-11-22T01:37:51"
        );
        assert_eq!(start_time_of_demo("yesterday"), "yesterday");
        assert_eq!(
            start_time_of_demo("2026-11-22_01-37-5x"),
            "2026-11-22_01-37-5x"
        );
    }

    #[test]
    fn teams_have_their_games_names() {
        let name = |game, code| team(game, code).map(|(_, name)| name.into_owned());
        let tf2 = TeamGame::Source(SourceGame::of_game_dir("tf"));
        assert_eq!(name(tf2, 2).as_deref(), Some("RED"));
        assert_eq!(name(tf2, 3).as_deref(), Some("BLU"));
        assert_eq!(name(tf2, 1).as_deref(), Some("Spectator"));
        let cs = TeamGame::Source(SourceGame::of_game_dir("csgo"));
        assert_eq!(name(cs, 2).as_deref(), Some("TERRORIST"));
        let portal = TeamGame::Source(SourceGame::of_game_dir("portal"));
        assert_eq!(name(portal, 2).as_deref(), Some("team 2"));
        assert_eq!(name(TeamGame::TeeworldsFree, 0), None);
        assert_eq!(name(TeamGame::TeeworldsFree, 3).as_deref(), Some("team 3"));
        assert_eq!(
            name(TeamGame::TeeworldsFree, -1).as_deref(),
            Some("spectators")
        );
        assert_eq!(name(TeamGame::TeeworldsTeams, 1).as_deref(), Some("blue"));
    }
}

/// A list of players handed to a [`GameSink`], kept from tick to tick: the names it
/// borrows change every tick, its allocation stays.
#[derive(Debug, Default)]
pub(crate) struct PlayerList(Vec<PlayerAt<'static>>);

impl PlayerList {
    /// Runs `fill` on the list, empty, with names of any lifetime.
    // `filter_map` to `None` changes the element type (the names' lifetime), which a
    // `filter` cannot.
    #[allow(clippy::unnecessary_filter_map)]
    pub(crate) fn with<'a, R>(&mut self, fill: impl FnOnce(&mut Vec<PlayerAt<'a>>) -> R) -> R {
        // Collecting an emptied vector into one of a type of the same layout reuses its
        // allocation (std's in-place collection): no list is allocated per tick.
        let mut players: Vec<PlayerAt<'a>> = std::mem::take(&mut self.0)
            .into_iter()
            .filter_map(|_| None)
            .collect();
        let result = fill(&mut players);
        players.clear();
        self.0 = players.into_iter().filter_map(|_| None).collect();
        result
    }
}
