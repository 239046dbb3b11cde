//! The state of a game at one tick, as a demo shows it: players, characters, the game's
//! state, and what happened during the tick.
//!
//! [`GameReplay`](super::GameReplay) hands a [`World`] each tick's snapshot items (typed by
//! the demo's protocol) and messages, which bring the state up to date. Names are decoded only when their ints change,
//! and nothing else is allocated per tick except for the events of that tick.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::gamenet::{AnyMessage, IntString, Protocol, seven, six};

/// The most client ids a world tracks (DDNet's `MAX_CLIENTS`); items about other ids are
/// left out of the world (they are still in [`GameTick::objects`](super::GameTick::objects)).
pub const MAX_CLIENTS: usize = 128;

// The world keeps sets of client ids as bits of a `u128`.
const _: () = assert!(MAX_CLIENTS <= u128::BITS as usize);

/// A player: who it is and where it stands in the game.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Player {
    /// Client id.
    pub client_id: i32,
    /// Name (invalid UTF-8 replaced).
    pub name: String,
    /// Clan.
    pub clan: String,
    /// ISO 3166-1 numeric country code, -1 none.
    pub country: i32,
    /// Skin (0.7: the body part's name).
    pub skin: String,
    /// -1 spectators, 0 the game (red in team modes), 1 blue.
    pub team: i32,
    /// Score (in race modes DDNet puts the best time here, negated, or -9999 if none).
    pub score: i32,
    /// Latency in ms, as the server reported it.
    pub latency: i32,
    /// Whether it is the player whose client recorded the demo.
    pub local: bool,
    /// DDNet's player flags (`EXPLAYERFLAG_*`: AFK 1, paused 2, spectating 4), when sent.
    pub ddnet_flags: Option<i32>,
    #[cfg_attr(feature = "serde", serde(skip))]
    raw_names: RawNames,
}

impl Player {
    /// Whether the player watches rather than plays: on the spectator team, or paused or
    /// spectating in DDNet's sense.
    pub fn is_spectating(&self) -> bool {
        self.team == -1 || self.ddnet_flags.is_some_and(|f| f & 0b110 != 0)
    }
}

/// The names as their ints, to decode them only when they change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct RawNames {
    name: [i32; 4],
    clan: [i32; 3],
    skin: [i32; 6],
}

/// A character in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Character {
    /// Client id.
    pub client_id: i32,
    /// The tick of the physics state.
    pub tick: i32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Velocity × 256.
    pub vel_x: i32,
    /// Velocity × 256.
    pub vel_y: i32,
    /// Aim angle × 256 (radians).
    pub angle: i32,
    /// -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Jump state bits.
    pub jumped: i32,
    /// Client id hooked, -1 none.
    pub hooked_player: i32,
    /// Hook state (-1 retracted ... 5 grabbed).
    pub hook_state: i32,
    /// Hook position.
    pub hook_x: i32,
    /// Hook position.
    pub hook_y: i32,
    /// `WEAPON_*`, -1 none.
    pub weapon: i32,
    /// Health 0 to 10 (0 where the recording client may not see it).
    pub health: i32,
    /// Armor 0 to 10.
    pub armor: i32,
    /// Ammo, -1 infinite.
    pub ammo_count: i32,
    /// `EMOTE_*`.
    pub emote: i32,
    /// DDNet's extra state (freeze, jumps, flags), when the server sends it.
    pub ddnet: Option<six::DdnetCharacter>,
}

impl Character {
    /// The character as the game model's sample at `tick` ([`crate::model::Sample`]): its
    /// position is DDNet's physics core as last sent, so its `position_tick` is the core's
    /// tick (the snapshot's own before the first core, whose tick is 0).
    pub fn sample(&self, tick: i32) -> crate::model::Sample {
        crate::model::Sample {
            client_id: self.client_id,
            x: self.x,
            y: self.y,
            position_tick: if self.tick > 0 && self.tick <= tick {
                self.tick
            } else {
                tick
            },
            vel_x: Some(self.vel_x),
            vel_y: Some(self.vel_y),
            weapon: Some(self.weapon),
            health: Some(self.health),
            armor: Some(self.armor),
        }
    }
}

/// The game's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GameState {
    /// `GAMEFLAG_*` (teams, flags; 0.7 also survival and race).
    pub game_flags: i32,
    /// `GAMESTATEFLAG_*` (0.6: game over 1, sudden death 2, paused 4, race time 8).
    pub game_state_flags: i32,
    /// The tick the round started.
    pub round_start_tick: i32,
    /// Warmup ticks left; while the race-time flag is set, DDNet puts the negated tick the
    /// recording player's race started here (see [`race_time`](Self::race_time)).
    pub warmup_timer: i32,
    /// Rounds per map (0.7: matches).
    pub round_num: i32,
    /// This round's number.
    pub round_current: i32,
    /// Score limit.
    pub score_limit: i32,
    /// Time limit, minutes.
    pub time_limit: i32,
    /// Red team's score, in team modes.
    pub teamscore_red: Option<i32>,
    /// Blue team's score, in team modes.
    pub teamscore_blue: Option<i32>,
    /// Who carries the red flag (-1 at its stand, -2 taken, -3 missing), in flag modes.
    pub flag_carrier_red: Option<i32>,
    /// The same for the blue flag.
    pub flag_carrier_blue: Option<i32>,
    /// DDNet's game info flags (`GAMEINFOFLAG_*`), when sent.
    pub ddnet_flags: Option<i32>,
}

impl GameState {
    /// The race timer DDNet's HUD shows at `tick`, in ticks (50 a second): while the
    /// race-time flag (`GAMESTATEFLAG_RACETIME`, 0.6 / DDNet) is set, the tick plus
    /// [`warmup_timer`](Self::warmup_timer).
    pub fn race_time(&self, tick: i32) -> Option<i32> {
        const GAMESTATEFLAG_RACETIME: i32 = 8;
        (self.game_state_flags & GAMESTATEFLAG_RACETIME != 0)
            .then(|| tick.wrapping_add(self.warmup_timer))
    }
}

/// Something that happened during a tick.
///
/// With the `serde` feature: the fields with `"kind"`, e.g. `{"kind": "chat", "client_id":
/// 0, "team": 0, "text": "gg"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Event {
    /// A chat line.
    Chat {
        /// Who said it, -1 the server.
        client_id: i32,
        /// 0.6: 0 all, 1 team, DDNet 2 whisper sent, 3 whisper received; 0.7: 1 all, 2 team,
        /// 3 whisper.
        team: i32,
        /// The whisper's other side (0.7), when it is one.
        target: Option<i32>,
        /// The text (invalid UTF-8 replaced).
        text: String,
    },
    /// A kill.
    Kill {
        /// Killer's client id.
        killer: i32,
        /// Victim's client id.
        victim: i32,
        /// `WEAPON_*`; -1 world (e.g. a death tile), -2 game (team change), -3 self kill.
        weapon: i32,
        /// Mode bits (flag carriers).
        mode_special: i32,
    },
    /// A race finish (DDNet's and 0.7's race message).
    RaceFinish {
        /// Who finished.
        client_id: i32,
        /// Time, milliseconds.
        time_ms: i32,
        /// Difference to the personal record, milliseconds.
        diff_ms: i32,
        /// A new personal record.
        record_personal: bool,
        /// A new server record, when the server says.
        record_server: Option<bool>,
    },
    /// A broadcast shown mid-screen.
    Broadcast {
        /// Text.
        text: String,
    },
    /// The message of the day.
    Motd {
        /// Text.
        text: String,
    },
    /// A vote started.
    VoteStart {
        /// Who called it (0.7), when known.
        client_id: Option<i32>,
        /// What is voted on.
        description: String,
        /// Why.
        reason: String,
        /// Seconds to vote.
        timeout: i32,
    },
    /// A vote ended.
    VoteEnd,
    /// The vote's count.
    VoteStatus {
        /// Yes votes.
        yes: i32,
        /// No votes.
        no: i32,
        /// Abstentions.
        pass: i32,
        /// Voters.
        total: i32,
    },
    /// An emoticon.
    Emoticon {
        /// Who.
        client_id: i32,
        /// `EMOTICON_*`.
        emoticon: i32,
    },
    /// A player appeared (its client id was not in the game at the tick before).
    Join {
        /// Client id.
        client_id: i32,
        /// Name.
        name: String,
    },
    /// A player disappeared.
    Leave {
        /// Client id.
        client_id: i32,
        /// Name it had.
        name: String,
    },
    /// A character died (the snapshot's death event).
    Death {
        /// Who.
        client_id: i32,
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
    /// A character spawned.
    Spawn {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// The client it concerns (-1 none), when the event names one: DDNet's `SpawnEx`
        /// (DDNet PR #12676).
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        client_id: Option<i32>,
    },
    /// An explosion.
    Explosion {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// The client it concerns (-1 none), when the event names one: DDNet's `ExplosionEx`
        /// (DDNet PR #12676).
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        client_id: Option<i32>,
    },
    /// A hammer hit.
    HammerHit {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// The client it concerns (-1 none), when the event names one: DDNet's `HammerHitEx`
        /// (DDNet PR #12676).
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        client_id: Option<i32>,
    },
}

impl Event {
    /// The kind's name as in JSON (`"chat"`, `"kill"`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Event::Chat { .. } => "chat",
            Event::Kill { .. } => "kill",
            Event::RaceFinish { .. } => "race_finish",
            Event::Broadcast { .. } => "broadcast",
            Event::Motd { .. } => "motd",
            Event::VoteStart { .. } => "vote_start",
            Event::VoteEnd => "vote_end",
            Event::VoteStatus { .. } => "vote_status",
            Event::Emoticon { .. } => "emoticon",
            Event::Join { .. } => "join",
            Event::Leave { .. } => "leave",
            Event::Death { .. } => "death",
            Event::Spawn { .. } => "spawn",
            Event::Explosion { .. } => "explosion",
            Event::HammerHit { .. } => "hammer_hit",
        }
    }
}

/// An event from a message or object both protocols define with the same fields.
macro_rules! same_event {
    (kill $m:expr) => {
        Event::Kill {
            killer: $m.killer,
            victim: $m.victim,
            weapon: $m.weapon,
            mode_special: $m.mode_special,
        }
    };
    (race_finish $m:expr) => {
        Event::RaceFinish {
            client_id: $m.client_id,
            time_ms: $m.time,
            diff_ms: $m.diff,
            record_personal: $m.record_personal != 0,
            record_server: $m.record_server.map(|r| r != 0),
        }
    };
    (vote_status $m:expr) => {
        Event::VoteStatus {
            yes: $m.yes,
            no: $m.no,
            pass: $m.pass,
            total: $m.total,
        }
    };
    (emoticon $m:expr) => {
        Event::Emoticon {
            client_id: $m.client_id,
            emoticon: $m.emoticon,
        }
    };
    (broadcast $m:expr) => {
        Event::Broadcast {
            text: lossy(&$m.message.0),
        }
    };
    (motd $m:expr) => {
        Event::Motd {
            text: lossy(&$m.message.0),
        }
    };
    (vote_start $m:expr, $client_id:expr) => {
        Event::VoteStart {
            client_id: $client_id,
            description: lossy(&$m.description.0),
            reason: lossy(&$m.reason.0),
            timeout: $m.timeout,
        }
    };
    (death $e:expr) => {
        Event::Death {
            client_id: $e.client_id,
            x: $e.x,
            y: $e.y,
        }
    };
}

/// A positional event (`Spawn`, `Explosion`, `HammerHit`) from an event object, with the
/// client id of DDNet's `CommonEx` events when it names one.
macro_rules! located {
    ($kind:ident $e:expr) => {
        Event::$kind {
            x: $e.x,
            y: $e.y,
            client_id: None,
        }
    };
    ($kind:ident $e:expr, $client_id:expr) => {
        Event::$kind {
            x: $e.x,
            y: $e.y,
            client_id: $client_id,
        }
    };
}

/// A world character from a protocol's `Character` object, whose fields both protocols
/// name alike.
macro_rules! character_from {
    ($id:expr, $c:expr) => {
        Character {
            client_id: $id,
            tick: $c.tick,
            x: $c.x,
            y: $c.y,
            vel_x: $c.vel_x,
            vel_y: $c.vel_y,
            angle: $c.angle,
            direction: $c.direction,
            jumped: $c.jumped,
            hooked_player: $c.hooked_player,
            hook_state: $c.hook_state,
            hook_x: $c.hook_x,
            hook_y: $c.hook_y,
            weapon: $c.weapon,
            health: $c.health,
            armor: $c.armor,
            ammo_count: $c.ammo_count,
            emote: $c.emote,
            ddnet: None,
        }
    };
}

/// The game at one tick. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct World {
    protocol: Protocol,
    tick: i32,
    players: Vec<Option<Player>>,
    /// Characters by client slot, kept from one snapshot to the next while it shows them.
    characters: Vec<Option<Character>>,
    /// The slots of `characters` that hold one, one bit each.
    live_characters: u128,
    /// Client ids the items read again every tick showed in this tick's snapshot, one
    /// bit each (the remembered items' are in `has`).
    seen: u128,
    /// Client ids with a player entry, one bit each: who can leave.
    present: u128,
    /// DDNet's character extras by client slot, joined to the characters at the end of
    /// each snapshot (the items may come in either order).
    ddnet_characters: Vec<Option<six::DdnetCharacter>>,
    /// The slots of `ddnet_characters` that hold one.
    live_ddnet: u128,
    /// The ints that last set each slot's state, by item kind.
    last: [LastInts; CACHED_KINDS],
    /// The slots an item of each remembered kind shows in the current snapshot: kept
    /// while the snapshot keeps its items (see
    /// [`begin_snapshot_again`](Self::begin_snapshot_again)).
    has: [u128; CACHED_KINDS],
    /// The slots each remembered kind set in the snapshot being read.
    written: [u128; CACHED_KINDS],
    /// Whether every remembered item read since the snapshot began was the only one
    /// setting its state (see [`regular`](Self::regular)).
    regular: bool,
    /// Tests compare remembering items with typing every item every time.
    #[cfg(test)]
    pub(crate) forgetful: bool,
    game: Option<GameState>,
    /// The game state of the snapshot being read, once one of its items is seen.
    next_game: Option<GameState>,
    events: Vec<Event>,
    /// 0.7: what `Sv_ClientInfo` said of each client (a 0.7 client learns names from it,
    /// not from the snapshot), until `Sv_ClientDrop`.
    announced: Vec<Option<Player>>,
    /// How many times a player came, went or changed name or clan ([`name_changes`](Self::name_changes)).
    name_changes: u64,
}

/// A client id as an index into the world's tables.
fn slot(client_id: i32) -> Option<usize> {
    usize::try_from(client_id).ok().filter(|&c| c < MAX_CLIENTS)
}

fn text<const N: usize>(ints: [i32; N]) -> String {
    IntString(ints).to_string_lossy()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl World {
    /// An empty world for a demo of `protocol`.
    pub fn new(protocol: Protocol) -> Self {
        World {
            protocol,
            tick: 0,
            players: vec![None; MAX_CLIENTS],
            characters: vec![None; MAX_CLIENTS],
            live_characters: 0,
            seen: 0,
            present: 0,
            ddnet_characters: vec![None; MAX_CLIENTS],
            live_ddnet: 0,
            last: Default::default(),
            has: [0; CACHED_KINDS],
            written: [0; CACHED_KINDS],
            regular: true,
            #[cfg(test)]
            forgetful: false,
            game: None,
            next_game: None,
            events: Vec::new(),
            announced: vec![None; MAX_CLIENTS],
            name_changes: 0,
        }
    }

    /// The protocol the demo speaks.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The tick.
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// The players in the game, by client id.
    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.players.iter().flatten()
    }

    /// How many times a player came, went or changed name or clan since the world began:
    /// while it stays the same, every [`Player`]'s `name` and `clan` do, so a caller
    /// following the names compares this count rather than the strings.
    pub fn name_changes(&self) -> u64 {
        self.name_changes
    }

    /// The player with `client_id`, if it is in the game.
    pub fn player(&self, client_id: i32) -> Option<&Player> {
        self.players.get(slot(client_id)?)?.as_ref()
    }

    /// The characters in the world, by client id.
    pub fn characters(&self) -> impl Iterator<Item = &Character> {
        self.characters.iter().flatten()
    }

    /// The character of `client_id`, if it has one.
    pub fn character(&self, client_id: i32) -> Option<&Character> {
        self.characters.get(slot(client_id)?)?.as_ref()
    }

    /// The game's state, once the demo has shown it.
    pub fn game(&self) -> Option<&GameState> {
        self.game.as_ref()
    }

    /// What happened during the tick.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Starts `tick`: forgets the last tick's events.
    pub(crate) fn begin(&mut self, tick: i32) {
        self.tick = tick;
        self.events.clear();
    }

    /// Starts reading the tick's snapshot: the items follow through
    /// [`apply_six`](Self::apply_six) and [`apply_seven`](Self::apply_seven), then
    /// [`end_snapshot`](Self::end_snapshot).
    pub(crate) fn begin_snapshot(&mut self) {
        self.has = [0; CACHED_KINDS];
        self.begin_snapshot_again();
    }

    /// Starts reading a snapshot made from the last one by changing, removing or adding
    /// items: the removed ones are announced with [`remove`](Self::remove), then only the
    /// changed and added ones and the items the world reads every tick (those
    /// [`remembers_six`](Self::remembers_six) and [`remembers_seven`](Self::remembers_seven)
    /// leave out) follow, in snapshot order, then [`end_snapshot`](Self::end_snapshot).
    /// The remembered items left out still show their clients.
    pub(crate) fn begin_snapshot_again(&mut self) {
        self.seen = 0;
        self.next_game = None;
        self.written = [0; CACHED_KINDS];
        self.regular = true;
    }

    /// A remembered item of kind `cached` (see [`remembered`](Self::remembered)) for
    /// slot `c` left the snapshot.
    pub(crate) fn remove(&mut self, cached: usize, c: usize) {
        self.show(cached, c, false);
    }

    /// Whether the current snapshot has a remembered item of kind `cached` for slot `c`.
    pub(crate) fn has(&self, cached: usize, c: usize) -> bool {
        self.has.get(cached).is_some_and(|has| has & 1 << c != 0)
    }

    /// Notes whether the current snapshot shows slot `c` with an item of kind `cached`.
    fn show(&mut self, cached: usize, c: usize, shown: bool) {
        if let Some(has) = self.has.get_mut(cached) {
            if shown {
                *has |= 1 << c;
            } else {
                *has &= !(1 << c);
            }
        }
    }

    /// Forgets the ints the kinds kept in a player entry last set slot `c` with.
    fn forget_player_ints(&mut self, c: usize) {
        for kind in PLAYER_KINDS {
            if let Some(last) = self.last.get_mut(kind) {
                last.forget(c);
            }
        }
    }

    /// The remembered kind (an index for [`remove`](Self::remove)) and the slot of an item
    /// of a 0.6 / DDNet `kind` with `id`, if the world remembers such an item.
    pub(crate) fn remembered(kind: six::ObjectKind, id: i32) -> Option<(usize, usize)> {
        use six::ObjectKind as K;
        let cached = match kind {
            K::PlayerInfo => PLAYER_INFO,
            K::ClientInfo => CLIENT_INFO,
            K::DdnetPlayer => DDNET_PLAYER,
            K::Character => CHARACTER,
            K::DdnetCharacter => DDNET_CHARACTER,
            _ => return None,
        };
        Some((cached, slot(id)?))
    }

    /// The same for a 0.7 `kind`.
    pub(crate) fn remembered_seven(kind: seven::ObjectKind, id: i32) -> Option<(usize, usize)> {
        (kind == seven::ObjectKind::Character)
            .then(|| slot(id).map(|c| (CHARACTER, c)))
            .flatten()
    }

    /// Whether reading the snapshot just ended again with only its changed items (see
    /// [`begin_snapshot_again`](Self::begin_snapshot_again)) gives what reading all of it
    /// gives: each remembered item was the only one of its kind for its client, and named
    /// its client by its id. Otherwise an item left out could have set the state last.
    pub(crate) fn regular(&self) -> bool {
        self.regular
    }

    /// Ends the tick's snapshot: joins DDNet's character extras to the characters and
    /// records who left.
    pub(crate) fn end_snapshot(&mut self) {
        if let Some(game) = self.next_game.take() {
            self.game = Some(game);
        }
        // Bit sets rather than passes over every slot: this runs every tick.
        let shown = self.has[CHARACTER];
        for c in slots(self.live_characters & !shown) {
            if let Some(character) = self.characters.get_mut(c) {
                *character = None;
            }
            self.last[CHARACTER].forget(c);
        }
        self.live_characters = shown;
        let shown = self.has[DDNET_CHARACTER];
        for c in slots(self.live_ddnet & !shown) {
            if let Some(extra) = self.ddnet_characters.get_mut(c) {
                *extra = None;
            }
            self.last[DDNET_CHARACTER].forget(c);
        }
        self.live_ddnet = shown;
        for c in slots(self.live_characters) {
            if let Some(Some(character)) = self.characters.get_mut(c) {
                character.ddnet = self.ddnet_characters.get(c).copied().flatten();
            }
        }
        let seen = PLAYER_KINDS
            .iter()
            .filter_map(|&kind| self.has.get(kind))
            .fold(self.seen, |seen, has| seen | has);
        let left = self.present & !seen;
        self.present &= seen;
        for client in slots(left) {
            self.forget_player_ints(client);
            if let Some(player) = self.players.get_mut(client).and_then(Option::take) {
                self.name_changes += 1;
                self.events.push(Event::Leave {
                    client_id: player.client_id,
                    name: player.name,
                });
            }
        }
    }

    /// The game state the snapshot being read builds.
    fn next_game(&mut self) -> &mut GameState {
        self.next_game.get_or_insert_with(GameState::default)
    }

    /// The player entry of `client_id`, made (with a join event to follow) if new.
    fn player_mut(&mut self, client_id: i32) -> Option<&mut Player> {
        let c = slot(client_id)?;
        self.seen |= 1 << c;
        self.present |= 1 << c;
        if self.players.get(c).is_some_and(Option::is_none) {
            self.forget_player_ints(c);
            let announced = self.announced.get(c).cloned().flatten();
            self.name_changes += 1;
            if let Some(entry) = self.players.get_mut(c) {
                *entry = Some(announced.unwrap_or(Player {
                    client_id,
                    country: -1,
                    ..Player::default()
                }));
            }
            // The name is known only once the rest of the snapshot is read: the join event
            // takes it at the end of the tick (see `finish`).
            self.events.push(Event::Join {
                client_id,
                name: String::new(),
            });
        }
        self.players.get_mut(c)?.as_mut()
    }

    /// Whether [`apply_six`](Self::apply_six) reads objects of `kind`: the replay types
    /// only these items (the world is kept each tick, typing the rest would be wasted).
    pub(crate) fn reads_six(kind: six::ObjectKind) -> bool {
        use six::ObjectKind as K;
        matches!(
            kind,
            K::PlayerInfo
                | K::ClientInfo
                | K::DdnetPlayer
                | K::Character
                | K::DdnetCharacter
                | K::GameInfo
                | K::GameData
                | K::GameInfoEx
                | K::Death
                | K::Spawn
                | K::Explosion
                | K::HammerHit
                | K::SpawnEx
                | K::ExplosionEx
                | K::HammerHitEx
        )
    }

    /// Whether [`apply_seven`](Self::apply_seven) reads objects of `kind` (see
    /// [`reads_six`](Self::reads_six)).
    pub(crate) fn reads_seven(kind: seven::ObjectKind) -> bool {
        use seven::ObjectKind as K;
        matches!(
            kind,
            K::PlayerInfo
                | K::DeClientInfo
                | K::Character
                | K::GameData
                | K::GameDataTeam
                | K::GameDataFlag
                | K::DeGameInfo
                | K::Death
                | K::Spawn
                | K::Explosion
                | K::HammerHit
        )
    }

    /// Whether the world remembers what an item of `kind` set until the item changes
    /// (through [`read_six`](Self::read_six)), rather than reading it every tick.
    pub(crate) fn remembers_six(kind: six::ObjectKind) -> bool {
        use six::ObjectKind as K;
        matches!(
            kind,
            K::PlayerInfo | K::ClientInfo | K::DdnetPlayer | K::Character | K::DdnetCharacter
        )
    }

    /// The same for 0.7 (through [`read_seven`](Self::read_seven)): only characters, as
    /// 0.7's player items share their fields with messages.
    pub(crate) fn remembers_seven(kind: seven::ObjectKind) -> bool {
        kind == seven::ObjectKind::Character
    }

    /// Whether an item of `kind` sets only the state of the client its id names (or none):
    /// false for a player info naming another client in its data.
    pub(crate) fn regular_six(kind: six::ObjectKind, id: i32, data: &[i32]) -> bool {
        kind != six::ObjectKind::PlayerInfo || (data.get(1) == Some(&id) && slot(id).is_some())
    }

    /// Notes that a remembered item of kind `cached` sets slot `c`.
    fn written(&mut self, cached: usize, c: usize) {
        if let Some(written) = self.written.get_mut(cached) {
            if *written & 1 << c != 0 {
                self.regular = false;
            }
            *written |= 1 << c;
        }
    }

    /// Reads one item of a 0.6 / DDNet snapshot (or one of DDNet's extensions in 0.7).
    pub(crate) fn apply_six(&mut self, id: i32, object: six::Object<'_>) {
        use six::Object as O;
        match object {
            O::PlayerInfo(info) => {
                if let Some(p) = self.player_mut(info.client_id) {
                    p.team = info.team;
                    p.score = info.score;
                    p.latency = info.latency;
                    p.local = info.local != 0;
                }
            }
            O::ClientInfo(info) => {
                if let Some(p) = self.player_mut(id) {
                    let renamed = set_names(p, info.name.0, info.clan.0, info.skin.0);
                    p.country = info.country;
                    self.name_changes += u64::from(renamed);
                }
            }
            O::DdnetPlayer(info) => {
                if let Some(p) = self.player_mut(id) {
                    p.ddnet_flags = Some(info.flags);
                }
            }
            O::Character(c) => self.set_character(id, character_from!(id, c)),
            O::DdnetCharacter(extra) => {
                if let Some(c) = slot(id) {
                    if let Some(slot) = self.ddnet_characters.get_mut(c) {
                        *slot = Some(extra.known);
                    }
                    self.has[DDNET_CHARACTER] |= 1 << c;
                }
            }
            O::GameInfo(info) => {
                let game = self.next_game();
                game.game_flags = info.game_flags;
                game.game_state_flags = info.game_state_flags;
                game.round_start_tick = info.round_start_tick;
                game.warmup_timer = info.warmup_timer;
                game.score_limit = info.score_limit;
                game.time_limit = info.time_limit;
                game.round_num = info.round_num;
                game.round_current = info.round_current;
            }
            O::GameData(data) => {
                let game = self.next_game();
                game.teamscore_red = Some(data.teamscore_red);
                game.teamscore_blue = Some(data.teamscore_blue);
                game.flag_carrier_red = Some(data.flag_carrier_red);
                game.flag_carrier_blue = Some(data.flag_carrier_blue);
            }
            O::GameInfoEx(info) => {
                let game = self.next_game();
                game.ddnet_flags = info.flags;
            }
            O::Death(e) => self.events.push(same_event!(death e)),
            O::Spawn(e) => self.events.push(located!(Spawn e)),
            O::Explosion(e) => self.events.push(located!(Explosion e)),
            O::HammerHit(e) => self.events.push(located!(HammerHit e)),
            // DDNet PR #12676's events that name a client, as their plain counterparts.
            O::SpawnEx(e) => self.events.push(located!(Spawn e, e.client_id)),
            O::ExplosionEx(e) => self.events.push(located!(Explosion e, e.client_id)),
            O::HammerHitEx(e) => self.events.push(located!(HammerHit e, e.client_id)),
            _ => {}
        }
    }

    /// Reads one item of a 0.7 snapshot.
    pub(crate) fn apply_seven(&mut self, id: i32, object: seven::Object<'_>) {
        use seven::Object as O;
        match object {
            O::PlayerInfo(info) => {
                if let Some(p) = self.player_mut(id) {
                    p.score = info.score;
                    p.latency = info.latency;
                }
            }
            O::DeClientInfo(info) => {
                if let Some(p) = self.player_mut(id) {
                    let renamed = set_names(p, info.name.0, info.clan.0, info.skin_part_names[0].0);
                    p.country = info.country;
                    p.team = info.team;
                    p.local = info.local != 0;
                    self.name_changes += u64::from(renamed);
                }
            }
            O::Character(c) => self.set_character(id, character_from!(id, c)),
            O::GameData(data) => {
                let game = self.next_game();
                game.round_start_tick = data.game_start_tick;
                game.game_state_flags = data.game_state_flags;
            }
            O::GameDataTeam(data) => {
                let game = self.next_game();
                game.teamscore_red = Some(data.teamscore_red);
                game.teamscore_blue = Some(data.teamscore_blue);
            }
            O::GameDataFlag(data) => {
                let game = self.next_game();
                game.flag_carrier_red = Some(data.flag_carrier_red);
                game.flag_carrier_blue = Some(data.flag_carrier_blue);
            }
            O::DeGameInfo(info) => {
                let game = self.next_game();
                game.game_flags = info.game_flags;
                game.score_limit = info.score_limit;
                game.time_limit = info.time_limit;
                game.round_num = info.match_num;
                game.round_current = info.match_current;
            }
            O::Death(e) => self.events.push(same_event!(death e)),
            O::Spawn(e) => self.events.push(located!(Spawn e)),
            O::Explosion(e) => self.events.push(located!(Explosion e)),
            O::HammerHit(e) => self.events.push(located!(HammerHit e)),
            _ => {}
        }
    }

    fn set_character(&mut self, id: i32, character: Character) {
        if let Some(c) = slot(id) {
            if let Some(slot) = self.characters.get_mut(c) {
                *slot = Some(character);
            }
            self.has[CHARACTER] |= 1 << c;
        }
    }

    /// Reads one item of a 0.6 / DDNet snapshot (or one of DDNet's extensions in 0.7) of
    /// `kind`, as [`apply_six`](Self::apply_six) reads it typed; an item whose ints are
    /// those that last set its client's state is not typed again (from one tick to the
    /// next, most of a snapshot's items do not change).
    pub(crate) fn read_six(&mut self, kind: six::ObjectKind, id: i32, data: &[i32]) {
        #[cfg(test)]
        if self.forgetful {
            return self.apply_six(id, six::Object::decode_as(kind, data));
        }
        // A player's info names its client in its data (the second int): only the usual
        // item, whose id is that client, is remembered; another one changes its client's
        // state, which the remembered ints then no longer describe.
        if !Self::regular_six(kind, id, data) {
            if let Some(target) = data.get(1).and_then(|&t| slot(t)) {
                self.last[PLAYER_INFO].forget(target);
            }
            self.regular = false;
            return self.apply_six(id, six::Object::decode_as(kind, data));
        }
        // Kinds not remembered, and ids outside the world's slots (which change nothing).
        let Some((cached, c)) = Self::remembered(kind, id) else {
            return self.apply_six(id, six::Object::decode_as(kind, data));
        };
        if cached == CHARACTER {
            // Typed as the object itself rather than through `six::Object`, which
            // `apply_six` would only unwrap again.
            self.written(cached, c);
            let character = six::Character::from_ints(data);
            if let Some(character) = &character {
                self.set_character(id, character_from!(id, character));
            }
            return self.typed_again(cached, c, character.is_some());
        }
        if self.unchanged(cached, c, data) {
            return;
        }
        let object = six::Object::decode_as(kind, data);
        let typed = !matches!(object, six::Object::Raw(_));
        self.apply_six(id, object);
        // Remembered after applying: a new player entry forgets its slot's ints.
        self.remember(cached, c, data, typed);
    }

    /// Whether a remembered item of kind `cached` for slot `c` holds the ints that last
    /// set the slot's state; then it is only noted as showing the slot, which is all that
    /// typing it again would add to writing the same values (the entry is there: a
    /// player's ints are forgotten when it goes).
    fn unchanged(&mut self, cached: usize, c: usize, data: &[i32]) -> bool {
        self.written(cached, c);
        let same = self.last.get(cached).is_some_and(|last| last.same(c, data));
        if same {
            self.show(cached, c, true);
        }
        same
    }

    /// Notes that an item of kind `cached` for slot `c` was typed without its ints being
    /// kept: characters change nearly every tick, so comparing and keeping their ints
    /// costs more than typing them again (their slots' ints are never valid). One that
    /// did not type changes nothing, and the snapshot does not show the slot.
    fn typed_again(&mut self, cached: usize, c: usize, typed: bool) {
        self.show(cached, c, typed);
    }

    /// Notes what a remembered item of kind `cached` for slot `c` gave: its ints and that
    /// the snapshot shows the slot, if it `typed`; neither if it did not (such an item
    /// changes nothing).
    fn remember(&mut self, cached: usize, c: usize, data: &[i32], typed: bool) {
        if let Some(last) = self.last.get_mut(cached) {
            if typed {
                last.store(c, data);
            } else {
                last.forget(c);
            }
        }
        self.show(cached, c, typed);
    }

    /// Reads one item of a 0.7 snapshot of `kind`, as [`read_six`](Self::read_six) does
    /// (only characters are remembered: 0.7's player items share their fields with
    /// messages).
    pub(crate) fn read_seven(&mut self, kind: seven::ObjectKind, id: i32, data: &[i32]) {
        #[cfg(test)]
        if self.forgetful {
            return self.apply_seven(id, seven::Object::decode_as(kind, data));
        }
        let Some((cached, c)) = Self::remembered_seven(kind, id) else {
            return self.apply_seven(id, seven::Object::decode_as(kind, data));
        };
        if cached == CHARACTER {
            self.written(cached, c);
            let character = seven::Character::from_ints(data);
            if let Some(character) = &character {
                self.set_character(id, character_from!(id, character));
            }
            return self.typed_again(cached, c, character.is_some());
        }
        if self.unchanged(cached, c, data) {
            return;
        }
        let object = seven::Object::decode_as(kind, data);
        let typed = !matches!(object, seven::Object::Raw(_));
        self.apply_seven(id, object);
        self.remember(cached, c, data, typed);
    }

    /// Turns the tick's messages into events (and, in 0.7, player info).
    pub(crate) fn apply_message(&mut self, message: &AnyMessage<'_>) {
        match message {
            AnyMessage::Six(m) => self.apply_six_message(m),
            AnyMessage::Seven(m) => self.apply_seven_message(m),
        }
    }

    fn apply_six_message(&mut self, message: &six::Message<'_>) {
        use six::Message as M;
        let event = match message {
            M::SvChat(m) => Event::Chat {
                client_id: m.client_id,
                team: m.team,
                target: None,
                text: lossy(&m.message.0),
            },
            M::SvKillMsg(m) => same_event!(kill m),
            M::SvRaceFinish(m) => same_event!(race_finish m),
            M::SvBroadcast(m) => same_event!(broadcast m),
            M::SvMotd(m) => same_event!(motd m),
            M::SvVoteSet(m) if m.timeout == 0 => Event::VoteEnd,
            M::SvVoteSet(m) => same_event!(vote_start m, None),
            M::SvVoteStatus(m) => same_event!(vote_status m),
            M::SvEmoticon(m) => same_event!(emoticon m),
            _ => return,
        };
        self.events.push(event);
    }

    fn apply_seven_message(&mut self, message: &seven::Message<'_>) {
        use seven::Message as M;
        let event = match message {
            M::SvChat(m) => Event::Chat {
                client_id: m.client_id,
                team: m.mode,
                target: (m.target_id >= 0).then_some(m.target_id),
                text: lossy(&m.message.0),
            },
            M::SvKillMsg(m) => same_event!(kill m),
            M::SvRaceFinish(m) => same_event!(race_finish m),
            M::SvBroadcast(m) => same_event!(broadcast m),
            M::SvMotd(m) => same_event!(motd m),
            M::SvVoteSet(m) if m.timeout == 0 => Event::VoteEnd,
            M::SvVoteSet(m) => same_event!(vote_start m, (m.client_id >= 0).then_some(m.client_id)),
            M::SvVoteStatus(m) => same_event!(vote_status m),
            M::SvEmoticon(m) => same_event!(emoticon m),
            M::SvClientInfo(m) => {
                if let Some(c) = slot(m.client_id) {
                    let info = Player {
                        client_id: m.client_id,
                        name: lossy(&m.name.0),
                        clan: lossy(&m.clan.0),
                        country: m.country,
                        skin: lossy(&m.skin_part_names[0].0),
                        team: m.team,
                        local: m.local != 0,
                        ..Player::default()
                    };
                    if let Some(Some(player)) = self.players.get_mut(c) {
                        self.name_changes += 1;
                        player.name.clone_from(&info.name);
                        player.clan.clone_from(&info.clan);
                        player.skin.clone_from(&info.skin);
                        player.country = info.country;
                        player.team = info.team;
                        player.local = info.local;
                    }
                    if let Some(announced) = self.announced.get_mut(c) {
                        *announced = Some(info);
                    }
                }
                return;
            }
            M::SvClientDrop(m) => {
                if let Some(announced) = slot(m.client_id).and_then(|c| self.announced.get_mut(c)) {
                    *announced = None;
                }
                return;
            }
            M::SvTeam(m) => {
                if let Some(player) =
                    slot(m.client_id).and_then(|c| self.players.get_mut(c)?.as_mut())
                {
                    player.team = m.team;
                }
                return;
            }
            _ => return,
        };
        self.events.push(event);
    }

    /// Ends the tick: join events take the names the snapshot gave.
    pub(crate) fn finish(&mut self) {
        for event in &mut self.events {
            if let Event::Join { client_id, name } = event
                && let Some(player) = slot(*client_id).and_then(|c| self.players.get(c)?.as_ref())
            {
                name.clone_from(&player.name);
            }
        }
    }
}

/// The set bits of `set`, lowest first.
fn slots(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let c = set.trailing_zeros() as usize;
        set &= set.wrapping_sub(1);
        (c < u128::BITS as usize).then_some(c)
    })
}

/// The item kinds whose last ints [`World`] remembers per client slot, as indices into
/// `World::last`.
pub(crate) const PLAYER_INFO: usize = 0;
const CLIENT_INFO: usize = 1;
const DDNET_PLAYER: usize = 2;
const CHARACTER: usize = 3;
const DDNET_CHARACTER: usize = 4;
const CACHED_KINDS: usize = 5;
/// The kinds whose state lives in a player entry: forgotten when the entry goes or comes.
const PLAYER_KINDS: [usize; 3] = [PLAYER_INFO, CLIENT_INFO, DDNET_PLAYER];

/// The ints an item of one kind last set each client slot's state with. Valid only while
/// nothing else has written the fields that item sets: the world forgets a slot when its
/// player or character goes or comes.
#[derive(Clone, Default)]
struct LastInts {
    /// `LAST_INTS` ints per slot, allocated on first use.
    ints: Vec<i32>,
    lens: Vec<u8>,
    /// The slots holding ints, one bit each.
    valid: u128,
}

/// The most ints remembered per item (DDNet's character has 22; longer items are typed
/// every time).
const LAST_INTS: usize = 32;

impl LastInts {
    fn same(&self, c: usize, data: &[i32]) -> bool {
        self.valid & (1 << c) != 0
            && self
                .lens
                .get(c)
                .is_some_and(|&len| usize::from(len) == data.len())
            && self.slot_ints(c, data.len()) == Some(data)
    }

    fn store(&mut self, c: usize, data: &[i32]) {
        if data.len() > LAST_INTS {
            return self.forget(c);
        }
        if self.ints.is_empty() {
            self.ints = vec![0; MAX_CLIENTS * LAST_INTS];
            self.lens = vec![0; MAX_CLIENTS];
        }
        let ints = self
            .ints
            .get_mut(c * LAST_INTS..)
            .and_then(|ints| ints.get_mut(..data.len()));
        let Some((ints, len)) = ints.zip(self.lens.get_mut(c)) else {
            return self.forget(c);
        };
        ints.copy_from_slice(data);
        *len = data.len() as u8;
        self.valid |= 1 << c;
    }

    /// The first `len` ints kept for slot `c`.
    fn slot_ints(&self, c: usize, len: usize) -> Option<&[i32]> {
        self.ints.get(c * LAST_INTS..)?.get(..len)
    }

    fn forget(&mut self, c: usize) {
        self.valid &= !(1 << c);
    }
}

impl std::fmt::Debug for LastInts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastInts")
            .field("valid", &format_args!("{:#x}", self.valid))
            .finish()
    }
}

/// Updates a player's names from their ints, decoding only what changed; returns whether
/// the name or the clan changed.
fn set_names<const S: usize>(
    player: &mut Player,
    name: [i32; 4],
    clan: [i32; 3],
    skin: [i32; S],
) -> bool {
    let mut skin6 = [0; 6];
    for (to, from) in skin6.iter_mut().zip(skin) {
        *to = from;
    }
    let mut changed = false;
    if player.raw_names.name != name || player.name.is_empty() {
        let decoded = text(name);
        changed |= decoded != player.name;
        player.name = decoded;
        player.raw_names.name = name;
    }
    if player.raw_names.clan != clan {
        let decoded = text(clan);
        changed |= decoded != player.clan;
        player.clan = decoded;
        player.raw_names.clan = clan;
    }
    if player.raw_names.skin != skin6 {
        player.skin = text(skin6);
        player.raw_names.skin = skin6;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Some ints that type as `decode` types them, trying each size up to 64 (every ones:
    /// client id 1, which is a valid slot).
    fn typed<T>(decode: impl Fn(&[i32]) -> Option<T>) -> T {
        (0..=64)
            .find_map(|n| decode(&vec![1; n]))
            .expect("some size types")
    }

    /// The replay types only the kinds `reads_six` / `reads_seven` name; every other kind
    /// must leave the world as it is, or the filter would lose state.
    #[test]
    fn kinds_the_world_skips_change_nothing() {
        let mut skipped = 0;
        for &kind in six::ObjectKind::ALL {
            let object = typed(|ints| match six::Object::decode_as(kind, ints) {
                six::Object::Raw(_) => None,
                object => Some(object.into_owned()),
            });
            let mut world = World::new(Protocol::Six);
            world.begin(1);
            world.begin_snapshot();
            let before = format!("{world:?}");
            world.apply_six(1, object);
            if !World::reads_six(kind) {
                assert_eq!(format!("{world:?}"), before, "{}", kind.name());
                skipped += 1;
            } else {
                assert_ne!(format!("{world:?}"), before, "{}", kind.name());
            }
        }
        for &kind in seven::ObjectKind::ALL {
            let object = typed(|ints| match seven::Object::decode_as(kind, ints) {
                seven::Object::Raw(_) => None,
                object => Some(object.into_owned()),
            });
            let mut world = World::new(Protocol::Seven);
            world.begin(1);
            world.begin_snapshot();
            let before = format!("{world:?}");
            world.apply_seven(1, object);
            if !World::reads_seven(kind) {
                assert_eq!(format!("{world:?}"), before, "{}", kind.name());
                skipped += 1;
            } else {
                assert_ne!(format!("{world:?}"), before, "{}", kind.name());
            }
        }
        assert!(skipped > 20, "{skipped}");
    }
}
