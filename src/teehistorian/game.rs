//! The game layer of teehistorian files: who played, by name, and what their clients said
//! and did, typed.
//!
//! Built on the [semantic layer](super::semantic): [`GameEvents`] follows its events and
//! keeps a [`Roster`] of the players (name, clan, country, skin and team from their
//! `Cl_StartInfo` / `Cl_ChangeInfo` messages and DDNet's EX records, the protocol from the
//! join-version records). Each MESSAGE record is unpacked in its client's protocol
//! ([`gamenet`](crate::gamenet): a 0.7 client's messages are recorded as it sent them), and
//! the events that concern the game come out as [`GameEvent`]s; positions and inputs stay
//! with the semantic layer's [`World`], which
//! [`GameEvents::world`] lends.
//!
//! DDNet does not record chat (`Cl_Say`), votes or vote calls in teehistorian files (their
//! messages are marked so in DDNet's protocol table); what the server itself says through
//! its console (`say`) is a console command.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::ReadError;
use super::message::{Args, Ex};
use super::reader::{MessageAt, TeehistorianReader};
use super::semantic::{Event, EventKind, Events, SemanticError, StreamEvents, World};
use crate::codec::string::NulStr;
use crate::gamenet::summary::{
    ChatLine, EventKind as LineKind, EventLine, GameLog, GameLogBuilder,
};
use crate::gamenet::{AnyMessage, Protocol, seven, six};
use std::collections::VecDeque;
use std::io::Read;

/// The most client ids the roster tracks (DDNet's `MAX_CLIENTS`).
const MAX_CLIENTS: usize = 128;

/// A connected player.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Player {
    /// Client id (`client_id` in JSON, as everywhere).
    #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
    pub cid: i32,
    /// Name (invalid UTF-8 replaced); empty until the client sent its info.
    pub name: String,
    /// Clan.
    pub clan: String,
    /// ISO 3166-1 numeric country code.
    pub country: i32,
    /// Skin (0.7: the body part's name).
    pub skin: String,
    /// Team: -1 spectators, 0 the game; DDNet's teams from the player-team record.
    pub team: i32,
    /// `true` for a 0.7 client.
    pub sixup: bool,
    /// The client's DDNet version, when it said.
    pub ddnet_version: Option<i32>,
    /// The tick it joined.
    pub joined: i32,
}

/// The players connected at a point of the file.
#[derive(Debug, Clone)]
pub struct Roster {
    players: Vec<Option<Player>>,
    /// The protocol announced for each client id's next join.
    next_sixup: Vec<bool>,
    /// How many times a player came, went or was renamed ([`Roster::name_changes`]).
    name_changes: u64,
}

impl Default for Roster {
    fn default() -> Self {
        Roster {
            players: vec![None; MAX_CLIENTS],
            next_sixup: vec![false; MAX_CLIENTS],
            name_changes: 0,
        }
    }
}

fn slot(cid: i32) -> Option<usize> {
    usize::try_from(cid).ok().filter(|&c| c < MAX_CLIENTS)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Roster {
    /// The connected players, by client id.
    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.players.iter().flatten()
    }

    /// The player with client id `cid`, if connected.
    pub fn player(&self, cid: i32) -> Option<&Player> {
        self.players.get(slot(cid)?)?.as_ref()
    }

    /// The protocol a client's messages are recorded in.
    pub fn protocol(&self, cid: i32) -> Protocol {
        match self.player(cid) {
            Some(p) if p.sixup => Protocol::Seven,
            _ => Protocol::Six,
        }
    }

    /// How many times so far a player came, went or got a name other than the one they
    /// had: while it stays the same, so does every client id's name. A caller that shows
    /// names tick by tick compares them only when it moves (chat, team changes and the
    /// other messages, far more common, leave it).
    pub fn name_changes(&self) -> u64 {
        self.name_changes
    }

    fn player_mut(&mut self, cid: i32) -> Option<&mut Player> {
        self.players.get_mut(slot(cid)?)?.as_mut()
    }
}

/// Something that happened in the game.
///
/// With the `serde` feature: the fields with `"kind"`, e.g. `{"kind": "name",
/// "client_id": 0, "name": "nameless tee"}` (the client id is `client_id`, as in the tables
/// and a demo's events; an `ex` event keeps its record's own fields).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
// One event at a time: boxing the message would allocate per message.
#[allow(clippy::large_enum_variant)]
pub enum GameEvent<'a> {
    /// A client joined.
    Join {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// Whether it is a 0.7 client.
        sixup: bool,
    },
    /// A client left.
    Drop {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The name it had.
        name: String,
        /// Why it left.
        reason: NulStr<&'a [u8]>,
    },
    /// A player's name was set or changed.
    Name {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The new name.
        name: String,
    },
    /// A player's team changed (DDNet's player-team record, or a team change the client
    /// asked for).
    Team {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The team.
        team: i32,
    },
    /// A message a client sent, typed in its protocol.
    Message {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The message.
        message: AnyMessage<'a>,
    },
    /// A console command was executed (`cid` -1: by the server itself).
    ConsoleCommand {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The command.
        cmd: NulStr<&'a [u8]>,
        /// Its arguments.
        args: Args<'a>,
    },
    /// A player finished the race.
    Finish {
        /// Client id (`client_id` in JSON, as in the tables and a demo's events).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// Time in ticks.
        time: i32,
    },
    /// A team finished the race.
    TeamFinish {
        /// Team.
        team: i32,
        /// Time in ticks.
        time: i32,
    },
    /// Another extension record (authentication, save and load, versions, ...).
    Ex(Ex<'a>),
}

impl GameEvent<'_> {
    /// The kind's name as in JSON (`"join"`, `"message"`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            GameEvent::Join { .. } => "join",
            GameEvent::Drop { .. } => "drop",
            GameEvent::Name { .. } => "name",
            GameEvent::Team { .. } => "team",
            GameEvent::Message { .. } => "message",
            GameEvent::ConsoleCommand { .. } => "console_command",
            GameEvent::Finish { .. } => "finish",
            GameEvent::TeamFinish { .. } => "team_finish",
            GameEvent::Ex(_) => "ex",
        }
    }
}

/// A [`GameEvent`] with the tick and the offset of the message it came from.
///
/// With the `serde` feature: `{"tick", "offset"}` and the event's fields.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GameEventAt<'a> {
    /// The tick.
    pub tick: i32,
    /// Offset of the message.
    pub offset: u64,
    /// What happened.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub event: GameEvent<'a>,
}

/// The game events of a file, with the roster kept up to date; see the [module
/// docs](self).
pub struct GameEvents<'a, I>
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    events: Events<'a, I>,
    follower: Follower,
    /// The game events the last semantic event meant, not yet handed on.
    queue: VecDeque<GameEventAt<'a>>,
}

/// What both [`GameEvents`] and [`EventLogger`] keep while following semantic events:
/// the roster.
#[derive(Debug, Default)]
struct Follower {
    roster: Roster,
}

impl<'a, I> GameEvents<'a, I>
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    /// Game events over `messages` (e.g. [`TeehistorianSlice::messages`](super::TeehistorianSlice::messages)).
    pub fn new(messages: I) -> Self {
        GameEvents {
            events: Events::new(messages),
            follower: Follower::default(),
            queue: VecDeque::new(),
        }
    }

    /// The players connected after the events yielded so far.
    pub fn roster(&self) -> &Roster {
        &self.follower.roster
    }

    /// Positions and inputs after the events yielded so far.
    pub fn world(&self) -> &World {
        self.events.world()
    }

    /// The tick of the last event read.
    pub fn tick(&self) -> i32 {
        self.events.tick()
    }
}

impl Follower {
    /// Follows one semantic event: updates the roster and hands what it means to `out`, in
    /// order, with the roster as that event left it (the game events borrow what the
    /// semantic event borrows).
    fn follow<'e>(&mut self, event: Event<'e>, mut out: impl FnMut(&Roster, GameEventAt<'e>)) {
        let (tick, offset) = (event.tick, event.offset);
        let mut push = |roster: &Roster, event| {
            out(
                roster,
                GameEventAt {
                    tick,
                    offset,
                    event,
                },
            )
        };
        match event.kind {
            EventKind::Join { cid } => {
                if let Some(c) = slot(cid)
                    && let Some(next_sixup) = self.roster.next_sixup.get_mut(c)
                    && let Some(player) = self.roster.players.get_mut(c)
                {
                    let sixup = std::mem::take(next_sixup);
                    self.roster.name_changes += 1;
                    *player = Some(Player {
                        cid,
                        country: -1,
                        sixup,
                        joined: tick,
                        ..Player::default()
                    });
                    push(&self.roster, GameEvent::Join { cid, sixup });
                }
            }
            EventKind::Drop { cid, reason } => {
                self.roster.name_changes += 1;
                let name = slot(cid)
                    .and_then(|c| self.roster.players.get_mut(c)?.take())
                    .map(|p| p.name)
                    .unwrap_or_default();
                push(&self.roster, GameEvent::Drop { cid, name, reason });
            }
            EventKind::NetMessage { cid, data } => {
                let message = self.roster.protocol(cid).unpack_message(data).message;
                for follow_up in self.apply_message(cid, &message) {
                    push(&self.roster, follow_up);
                }
                push(&self.roster, GameEvent::Message { cid, message });
            }
            EventKind::ConsoleCommand { cid, cmd, args, .. } => {
                push(&self.roster, GameEvent::ConsoleCommand { cid, cmd, args });
            }
            EventKind::Ex(ex) => {
                let event = match ex {
                    Ex::JoinVer7 { cid } | Ex::JoinVer6 { cid } => {
                        if let Some(next) =
                            slot(cid).and_then(|c| self.roster.next_sixup.get_mut(c))
                        {
                            *next = matches!(ex, Ex::JoinVer7 { .. });
                        }
                        GameEvent::Ex(ex)
                    }
                    Ex::PlayerName { cid, name } => {
                        let name = lossy(name.as_bytes());
                        if let Some(p) = self.roster.player_mut(cid)
                            && p.name != name
                        {
                            p.name.clone_from(&name);
                            self.roster.name_changes += 1;
                        }
                        GameEvent::Name { cid, name }
                    }
                    Ex::PlayerTeam { cid, team } => {
                        if let Some(p) = self.roster.player_mut(cid) {
                            p.team = team;
                        }
                        GameEvent::Team { cid, team }
                    }
                    Ex::PlayerFinish { cid, time } => GameEvent::Finish { cid, time },
                    Ex::TeamFinish { team, time } => GameEvent::TeamFinish { team, time },
                    Ex::DdnetVersion {
                        cid, ddnet_version, ..
                    }
                    | Ex::DdnetVersionOld { cid, ddnet_version } => {
                        if let Some(p) = self.roster.player_mut(cid) {
                            p.ddnet_version = Some(ddnet_version);
                        }
                        GameEvent::Ex(ex)
                    }
                    other => GameEvent::Ex(other),
                };
                push(&self.roster, event);
            }
            _ => {}
        }
    }

    /// Updates the roster from a client's message; the name and team events it implies.
    fn apply_message<'e>(&mut self, cid: i32, message: &AnyMessage<'_>) -> Vec<GameEvent<'e>> {
        let roster = &mut self.roster;
        let Some(player) = slot(cid).and_then(|c| roster.players.get_mut(c)?.as_mut()) else {
            return Vec::new();
        };
        let mut implied = Vec::new();
        let name_changes = &mut roster.name_changes;
        let mut set_info = |player: &mut Player, name: &[u8], clan: &[u8], country, skin: &[u8]| {
            let name = lossy(name);
            if player.name != name {
                *name_changes += 1;
                player.name.clone_from(&name);
                implied.push(GameEvent::Name { cid, name });
            }
            player.clan = lossy(clan);
            player.country = country;
            player.skin = lossy(skin);
        };
        match message {
            AnyMessage::Six(six::Message::ClStartInfo(m)) => {
                set_info(player, &m.name.0, &m.clan.0, m.country, &m.skin.0);
            }
            AnyMessage::Six(six::Message::ClChangeInfo(m)) => {
                set_info(player, &m.name.0, &m.clan.0, m.country, &m.skin.0);
            }
            AnyMessage::Seven(seven::Message::ClStartInfo(m)) => {
                let skin = &m.skin_part_names[0].0;
                set_info(player, &m.name.0, &m.clan.0, m.country, skin);
            }
            _ => {}
        }
        implied
    }
}

impl<'a, I> Iterator for GameEvents<'a, I>
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    type Item = Result<GameEventAt<'a>, SemanticError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(Ok(event));
            }
            match self.events.next()? {
                Ok(event) => {
                    let queue = &mut self.queue;
                    self.follower.follow(event, |_, e| queue.push_back(e));
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Notes semantic events handed to it one at a time in a [`GameLogBuilder`], keeping the
/// roster they need: what [`game_log`] does over a reader, for a tool that walks the file
/// itself (the export gets its tables and the log in one pass over a
/// [`TickWalk`](super::TickWalk)).
#[derive(Debug, Default)]
pub struct EventLogger {
    follower: Follower,
    builder: GameLogBuilder,
}

impl EventLogger {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows one event, in file order (every event; a tick's end changes nothing).
    #[inline]
    pub fn add(&mut self, event: &Event<'_>) {
        // Only these say anything about players or chat: positions and inputs, most of a
        // file, characters appearing and going, tick skips and ends do not.
        if !matches!(
            event.kind,
            EventKind::Join { .. }
                | EventKind::Drop { .. }
                | EventKind::NetMessage { .. }
                | EventKind::ConsoleCommand { .. }
                | EventKind::Ex(_)
        ) {
            return;
        }
        self.follow(*event);
    }

    /// The players after the events added so far (a `ticks` row's name is its player's
    /// name at that tick).
    pub fn roster(&self) -> &Roster {
        &self.follower.roster
    }

    /// How many times a player of the [`roster`](Self::roster) came, went or was renamed
    /// so far ([`Roster::name_changes`]): while it stays the same, so do the names (a
    /// caller that shows names checks them only when it moves).
    pub fn name_changes(&self) -> u64 {
        self.follower.roster.name_changes()
    }

    fn follow(&mut self, event: Event<'_>) {
        let builder = &mut self.builder;
        self.follower
            .follow(event, |roster, e| note(roster, builder, e));
    }

    /// The kind of game the file is of (from its header's `game_type`), which names its
    /// teams.
    pub fn team_game(&mut self, game: crate::model::TeamGame) {
        self.builder.team_game(game);
    }

    /// The log of the events added; `last_tick` (the file's last tick) closes the stints
    /// still open. A join, drop, name or team recorded in the last tick would show from
    /// the tick after it, which the file does not have: it is at the last tick instead
    /// ([`keep_in_play`](crate::model::keep_in_play)).
    pub fn finish(self, last_tick: i32) -> GameLog {
        let mut log = self.builder.finish(last_tick);
        crate::model::keep_in_play(&mut log, i32::MIN, last_tick);
        log
    }
}

/// Notes one game event in the log; `roster` is the players after it.
fn note(roster: &Roster, log: &mut GameLogBuilder, event: GameEventAt<'_>) {
    let tick = event.tick;
    // DDNet's server takes a tick's snapshot (and records its players' positions), then
    // reads the network: a join, a drop, a name or a team a client sent, recorded under
    // tick T, shows in the game from tick T + 1 on, where a demo of the same game sees
    // it (the game model's rule: a join is the first tick the player is in the game, a
    // leave the first tick it is gone). Messages the server sends back (chat, kills) it
    // sends at T, and a demo records them at T.
    let in_game = tick.saturating_add(1);
    let name = |cid: i32| roster.player(cid).map_or("", |p| p.name.as_str());
    let line = |kind| EventLine::new(tick, kind);
    let seen = |kind| EventLine::new(in_game, kind);
    let mut seen_at = tick;
    let cid = match &event.event {
        GameEvent::Join { cid, .. } => {
            log.join(*cid, in_game);
            log.event(seen(LineKind::Join).by(*cid, name(*cid)));
            seen_at = in_game;
            Some(*cid)
        }
        GameEvent::Drop { cid, name, reason } => {
            // In the game up to T: its stint's last tick.
            log.leave(*cid, tick);
            log.event(EventLine {
                text: Some(reason.to_string_lossy().into_owned()),
                ..seen(LineKind::Leave).by(*cid, name)
            });
            None
        }
        GameEvent::Name { cid, name } => {
            // DDNet records a join, then the player's name: the first name completes the
            // join (as a demo's join names its player), a later one is a rename.
            if !log.name_join(*cid, name) {
                log.event(seen(LineKind::Name).by(*cid, name));
            }
            seen_at = in_game;
            Some(*cid)
        }
        GameEvent::Team { cid, team } => {
            log.event(EventLine {
                team: Some(*team),
                ..seen(LineKind::Team).by(*cid, name(*cid))
            });
            seen_at = in_game;
            Some(*cid)
        }
        GameEvent::Finish { cid, time } => {
            log.event(EventLine {
                time_ms: Some(ticks_to_ms(*time)),
                ..line(LineKind::Finish).by(*cid, name(*cid))
            });
            Some(*cid)
        }
        GameEvent::TeamFinish { team, time } => {
            log.event(EventLine {
                team: Some(*team),
                time_ms: Some(ticks_to_ms(*time)),
                ..line(LineKind::TeamFinish)
            });
            None
        }
        GameEvent::Message { cid, message } if called_vote(message).is_some() => {
            log.event(EventLine {
                text: called_vote(message),
                ..line(LineKind::VoteStart).by(*cid, name(*cid))
            });
            Some(*cid)
        }
        GameEvent::ConsoleCommand { cid, cmd, args } if cmd.as_bytes() == b"say" => {
            log.chat(ChatLine {
                tick,
                client_id: *cid,
                name: String::new(),
                channel: -1,
                text: args
                    .iter()
                    .next()
                    .map(|a| a.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            });
            None
        }
        GameEvent::Message {
            cid,
            message:
                AnyMessage::Six(six::Message::ClKill(_)) | AnyMessage::Seven(seven::Message::ClKill(_)),
        } => {
            log.kill();
            // DDNet carries the request out as a kill by the self-kill weapon.
            log.event(EventLine {
                victim: Some(*cid),
                victim_name: Some(name(*cid).to_owned()),
                weapon: Some(WEAPON_SELF),
                ..line(LineKind::Kill).by(*cid, name(*cid))
            });
            Some(*cid)
        }
        GameEvent::Message { cid, .. } => Some(*cid),
        _ => None,
    };
    if let Some(p) = cid.and_then(|cid| roster.player(cid)) {
        log.player(p.cid, seen_at, &p.name, &p.clan, p.country, p.team);
    }
}

/// `WEAPON_SELF`: the weapon of a self-kill.
const WEAPON_SELF: i32 = -2;

/// Milliseconds of `ticks` server ticks (50 a second).
fn ticks_to_ms(ticks: i32) -> i64 {
    i64::from(ticks) * 20
}

/// The line of a client's `Cl_CallVote` in either protocol (`None` for other messages).
fn called_vote(message: &AnyMessage<'_>) -> Option<String> {
    match message {
        AnyMessage::Six(six::Message::ClCallVote(v)) => {
            Some(vote_text(&v.kind, &v.value, &v.reason))
        }
        AnyMessage::Seven(seven::Message::ClCallVote(v)) => {
            Some(vote_text(&v.kind, &v.value, &v.reason))
        }
        _ => None,
    }
}

/// A called vote as one line: what it is about, and why.
fn vote_text<S: AsRef<[u8]>>(kind: &NulStr<S>, value: &NulStr<S>, reason: &NulStr<S>) -> String {
    let (kind, value) = (kind.to_string_lossy(), value.to_string_lossy());
    let reason = reason.to_string_lossy();
    if reason.is_empty() {
        format!("{kind} {value}")
    } else {
        format!("{kind} {value} ({reason})")
    }
}

/// The players and the server's console chat (`say`) of a whole file, in one pass; with the
/// error that ended it early, if any (everything before it is kept). Kills are the
/// clients' `Cl_Kill` requests (DDNet records no kill messages).
pub fn game_log<'a, I>(messages: I) -> (GameLog, Option<SemanticError>)
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    let mut logger = EventLogger::new();
    let mut events = Events::new(messages);
    let mut error = None;
    for item in events.by_ref() {
        match item {
            Ok(event) => logger.add(&event),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    (logger.finish(events.tick()), error)
}

/// [`game_log`] of a file read as a stream: memory does not grow with the file. A header
/// that does not read is the error; what ended the walk early comes with the log.
pub fn game_log_reader<R: Read>(input: R) -> Result<(GameLog, Option<SemanticError>), ReadError> {
    let mut logger = EventLogger::new();
    let reader = TeehistorianReader::new(input)?;
    logger.team_game(crate::model::TeamGame::of_game_type(
        reader.header().game_type.as_deref().unwrap_or(""),
    ));
    let mut events = StreamEvents::new(reader);
    let mut error = None;
    while let Some(item) = events.next() {
        match item {
            Ok(event) => logger.add(&event),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    Ok((logger.finish(events.tick()), error))
}

/// The [`GameEvents`] of a file read as a stream, handed to `each` one at a time with the
/// roster after it (each borrows the reader's buffer, so memory does not grow with the
/// file). A header that does not read is the error; the error that ended the walk early,
/// if any, is returned after everything before it was handed out.
pub fn game_events_reader<R: Read>(
    input: R,
    mut each: impl FnMut(&Roster, GameEventAt<'_>),
) -> Result<Option<SemanticError>, ReadError> {
    let mut follower = Follower::default();
    let mut events = StreamEvents::new(TeehistorianReader::new(input)?);
    while let Some(item) = events.next() {
        match item {
            Ok(event) => follower.follow(event, &mut each),
            Err(e) => return Ok(Some(e)),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::{Header, Recorder, TeehistorianSlice, strategies};
    use proptest::prelude::*;

    /// [`EventLogger::add`] leaves out only events the follower ignores: the log is the
    /// one of a logger that follows every event.
    fn filtered_log_is_unfiltered_log(data: &[u8]) {
        let Ok(file) = TeehistorianSlice::parse(data) else {
            return;
        };
        let (mut filtered, mut every) = (EventLogger::new(), EventLogger::new());
        let mut events = Events::new(file.messages());
        while let Some(Ok(event)) = events.next() {
            filtered.add(&event);
            every.follow(event);
        }
        assert_eq!(filtered.finish(events.tick()), every.finish(events.tick()));
    }

    #[test]
    fn reference_file_log() {
        filtered_log_is_unfiltered_log(&crate::teehistorian::semantic::reference_file(
            br#"{"version":"2"}"#,
        ));
    }

    proptest! {
        #[test]
        fn recorded_games_log_the_same(ticks in strategies::server_ticks(30)) {
            let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
            for tick in &ticks {
                tick.record(&mut rec).unwrap();
            }
            filtered_log_is_unfiltered_log(&rec.finish().unwrap());
        }

        #[test]
        fn generated_files_log_the_same(data in strategies::file(24)) {
            filtered_log_is_unfiltered_log(&data);
        }
    }
}
