//! What the game layers of both formats report in the same shape: chat lines, player
//! stints and game events, for tools that list them over many recordings, and the [`GameLogBuilder`] both
//! build their [`GameLog`] with.
//!
//! How a recording's contents become joins, leaves, chat and kills is the format's: a
//! demo's replayed snapshots and messages, a teehistorian file's records. Each format's game
//! layer hands what it found to a [`GameLogBuilder`] in recording order.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// A chat line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ChatLine {
    /// The tick it was said at.
    pub tick: i32,
    /// Who said it, -1 the server.
    pub client_id: i32,
    /// The speaker's name at that time (empty for the server or an unknown client).
    pub name: String,
    /// The channel as the protocol numbers it (0.6: 0 all, 1 team, DDNet 2 and 3
    /// whispers; 0.7: 1 all, 2 team, 3 whisper; teehistorian: -1, the server's console;
    /// Source: 0 all, 1 team).
    pub channel: i32,
    /// The text (invalid UTF-8 replaced).
    pub text: String,
}

/// One player's time in the game under one client id: from joining to leaving.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerStint {
    /// Client id.
    pub client_id: i32,
    /// The last name it had.
    pub name: String,
    /// Clan.
    pub clan: String,
    /// ISO 3166-1 numeric country code, -1 none.
    pub country: i32,
    /// The last team it was in, as the game numbers it; `None` for none (a player in a
    /// Teeworlds game without teams). See [`crate::model::team`].
    pub team: Option<i32>,
    /// That team's name as the game names it.
    pub team_name: Option<String>,
    /// The country as DDNet's flag names it (ISO 3166-1 alpha-2, or a subdivision such as
    /// `GB-SCT`); `None` for none.
    pub country_code: Option<String>,
    /// The tick it appeared at.
    pub first_tick: i32,
    /// The last tick it was there.
    pub last_tick: i32,
    /// Whether it left before the recording ended.
    pub left: bool,
    /// Whether it is a camera rather than a player: a Source demo's SourceTV (GOTV)
    /// relay, which is in the game as a spectator slot with a position of its own.
    /// Pictures leave it out; tables and pages keep it, marked.
    #[cfg_attr(feature = "serde", serde(default))]
    pub camera: bool,
}

/// Open and closed stints, by client id.
#[derive(Debug, Default)]
struct Stints {
    open: Vec<Option<PlayerStint>>,
    closed: Vec<PlayerStint>,
}

impl Stints {
    /// A stint begins.
    fn open(&mut self, client_id: i32, tick: i32) -> Option<&mut PlayerStint> {
        let c = usize::try_from(client_id).ok()?;
        if self.open.len() <= c {
            self.open.resize(c + 1, None);
        }
        let slot = self.open.get_mut(c)?;
        if let Some(previous) = slot.replace(PlayerStint {
            client_id,
            name: String::new(),
            clan: String::new(),
            country: -1,
            team: Some(0),
            team_name: None,
            country_code: None,
            first_tick: tick,
            last_tick: tick,
            left: false,
            camera: false,
        }) {
            self.closed.push(previous);
        }
        slot.as_mut()
    }

    /// The open stint of a client id.
    fn get(&mut self, client_id: i32) -> Option<&mut PlayerStint> {
        self.open
            .get_mut(usize::try_from(client_id).ok()?)?
            .as_mut()
    }

    /// A stint ends at `last_tick`, or at its first tick if that is later: a stint holds
    /// at least the tick it was first seen at (a teehistorian join recorded in a file's
    /// last tick is seen at the tick after it).
    fn close(&mut self, client_id: i32, last_tick: i32) {
        if let Some(c) = usize::try_from(client_id).ok()
            && let Some(mut stint) = self.open.get_mut(c).and_then(Option::take)
        {
            stint.last_tick = last_tick.max(stint.first_tick);
            stint.left = true;
            self.closed.push(stint);
        }
    }

    /// Every stint, in the order they began; those still open end at `last_tick` (or, as
    /// in [`close`](Self::close), at their first tick).
    fn finish(mut self, last_tick: i32) -> Vec<PlayerStint> {
        for stint in self.open.into_iter().flatten() {
            self.closed.push(PlayerStint {
                last_tick: last_tick.max(stint.first_tick),
                ..stint
            });
        }
        self.closed
            .sort_by_key(|s| (s.first_tick, s.client_id, s.last_tick));
        self.closed
    }
}

/// What an [`EventLine`] records.
///
/// With the `serde` feature: its snake-case name (`"race_finish"` is `"finish"` here, as in
/// teehistorian files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EventKind {
    /// A player joined.
    Join,
    /// A player left (`text`: the reason, where the format records one).
    Leave,
    /// A player took another name (`name` is the new one).
    Name,
    /// A player changed teams (`team`: the new team).
    Team,
    /// A kill: `client_id` the killer, `victim` the victim, `weapon` how. Teehistorian:
    /// a client's self-kill request (`Cl_Kill`), which DDNet carries out with the
    /// self-kill weapon; DDNet records no other kills there.
    Kill,
    /// A character died at `x`, `y` (demos: the death effect).
    Death,
    /// A player finished the race in `time_ms`.
    Finish,
    /// A team finished the race in `time_ms`.
    TeamFinish,
    /// A vote was called (`text`: what it is about, and why).
    VoteStart,
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: &'static [EventKind] = &[
        EventKind::Join,
        EventKind::Leave,
        EventKind::Name,
        EventKind::Team,
        EventKind::Kill,
        EventKind::Death,
        EventKind::Finish,
        EventKind::TeamFinish,
        EventKind::VoteStart,
    ];

    /// The kind's name, as serde writes it.
    pub const fn name(self) -> &'static str {
        match self {
            EventKind::Join => "join",
            EventKind::Leave => "leave",
            EventKind::Name => "name",
            EventKind::Team => "team",
            EventKind::Kill => "kill",
            EventKind::Death => "death",
            EventKind::Finish => "finish",
            EventKind::TeamFinish => "team_finish",
            EventKind::VoteStart => "vote_start",
        }
    }
}

/// A game event both formats can record, in one shape for tables: who did what to whom,
/// with the fields that kind has set and the others `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EventLine {
    /// The tick it happened at.
    pub tick: i32,
    /// What happened.
    pub kind: EventKind,
    /// The player it is about (the killer of a kill).
    pub client_id: Option<i32>,
    /// That player's name then (empty if unknown).
    pub name: String,
    /// A kill's victim.
    pub victim: Option<i32>,
    /// The victim's name then (`None` without a victim).
    pub victim_name: Option<String>,
    /// A kill's weapon, as the protocol numbers it.
    pub weapon: Option<i32>,
    /// The weapon's name: Teeworlds' `hammer` .. `ninja`, and `world`, `self`, `game` for
    /// deaths by the map, self-kills and team changes
    /// ([`weapon_name`](super::names::weapon_name)); a Source kill's weapon as its game
    /// names it.
    pub weapon_name: Option<String>,
    /// The team of a team change or a team's finish (teehistorian: DDNet's race team).
    pub team: Option<i32>,
    /// That team's name, as [`PlayerStint::team_name`].
    pub team_name: Option<String>,
    /// A finish's time in milliseconds.
    pub time_ms: Option<i64>,
    /// Where a death happened, in world units (a tile is 32).
    pub x: Option<i32>,
    /// Where a death happened.
    pub y: Option<i32>,
    /// A leave's reason or a vote's subject and reason.
    pub text: Option<String>,
}

impl EventLine {
    /// An event of `kind` at `tick` with no other field set.
    pub fn new(tick: i32, kind: EventKind) -> Self {
        EventLine {
            tick,
            kind,
            client_id: None,
            name: String::new(),
            victim: None,
            victim_name: None,
            weapon: None,
            weapon_name: None,
            team: None,
            team_name: None,
            time_ms: None,
            x: None,
            y: None,
            text: None,
        }
    }

    /// The event about the player `client_id` named `name`.
    pub fn by(mut self, client_id: i32, name: &str) -> Self {
        self.client_id = Some(client_id);
        self.name = name.to_owned();
        self
    }
}

/// The chat, the players and the game events of a whole recording.
///
/// With the `serde` feature: `{"chat": [...], "players": [...], "events": [...], "kills": n}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GameLog {
    /// Every chat line, in order.
    pub chat: Vec<ChatLine>,
    /// Every player stint, in the order they began.
    pub players: Vec<PlayerStint>,
    /// Every game event, in order (chat is in [`chat`](Self::chat)).
    pub events: Vec<EventLine>,
    /// Kills reported (demos: the server's kill messages).
    pub kills: usize,
    /// The kind of game, which names its teams ([`crate::model::team`]), where the
    /// format says.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub team_game: Option<crate::model::TeamGame>,
}

impl Stints {
    /// Brings the open stint of `client_id` up to date, reusing its strings.
    fn update(
        &mut self,
        client_id: i32,
        tick: i32,
        name: &str,
        clan: &str,
        country: i32,
        team: i32,
    ) {
        if let Some(s) = self.get(client_id) {
            if s.name != name {
                s.name.clear();
                s.name.push_str(name);
            }
            if s.clan != clan {
                s.clan.clear();
                s.clan.push_str(clan);
            }
            s.country = country;
            s.team = Some(team);
            // Never before its join (a format may record what a joining player sent
            // in the tick before the one it joins at).
            s.last_tick = s.last_tick.max(tick);
        }
    }

    /// Brings the open stint of `client_id` up to date, its names as they were.
    fn touch(&mut self, client_id: i32, tick: i32, country: i32, team: i32) {
        if let Some(s) = self.get(client_id) {
            s.country = country;
            s.team = Some(team);
            // Never before its join (a format may record what a joining player sent
            // in the tick before the one it joins at).
            s.last_tick = s.last_tick.max(tick);
        }
    }
}

/// Builds a [`GameLog`] from what a format's game layer finds, handed to it in recording
/// order: players joining, leaving and changing, chat lines and kills.
///
/// A player's time under one client id is a [`PlayerStint`]: it opens at
/// [`join`](Self::join), follows the player's name, clan, country and team through
/// [`player`](Self::player) and closes at [`leave`](Self::leave); the stints still open
/// close at [`finish`](Self::finish).
#[derive(Debug, Default)]
pub struct GameLogBuilder {
    log: GameLog,
    stints: Stints,
}

impl GameLogBuilder {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A player joined as `client_id` at `tick`: a stint opens (one still open under that
    /// client id is kept as it stands, not marked as left). A negative client id is ignored.
    pub fn join(&mut self, client_id: i32, tick: i32) {
        self.stints.open(client_id, tick);
    }

    /// The player of `client_id` left; `last_tick` is the last tick it was there. Nothing
    /// happens without an open stint.
    pub fn leave(&mut self, client_id: i32, last_tick: i32) {
        self.stints.close(client_id, last_tick);
    }

    /// The player of `client_id` was there at `tick` with this name, clan, country and team:
    /// its open stint is brought up to date (nothing happens without one).
    pub fn player(
        &mut self,
        client_id: i32,
        tick: i32,
        name: &str,
        clan: &str,
        country: i32,
        team: i32,
    ) {
        self.stints
            .update(client_id, tick, name, clan, country, team);
    }

    /// [`player`](Self::player) for a caller that knows the player's name and clan are
    /// still the ones it gave last: it saves comparing them, which a game layer calling
    /// this for every player at every tick would otherwise spend much of its time on.
    pub fn player_seen(&mut self, client_id: i32, tick: i32, country: i32, team: i32) {
        self.stints.touch(client_id, tick, country, team);
    }

    /// The player of `client_id` is named `name` at `tick`, its other facts unknown or as
    /// they were (a format that names a player apart from its team: Source's `userinfo`).
    pub fn player_name(&mut self, client_id: i32, tick: i32, name: &str) {
        if let Some(s) = self.stints.get(client_id) {
            if s.name != name {
                s.name.clear();
                s.name.push_str(name);
            }
            s.last_tick = s.last_tick.max(tick);
        }
    }

    /// The player of `client_id` is a camera (a SourceTV relay): see
    /// [`PlayerStint::camera`].
    pub fn camera(&mut self, client_id: i32) {
        if let Some(s) = self.stints.get(client_id) {
            s.camera = true;
        }
    }

    /// The player of `client_id` is in team `team` at `tick`, its other facts as they were
    /// (Source: a `player_team` event, or the player entity's `m_iTeamNum`).
    pub fn player_team(&mut self, client_id: i32, tick: i32, team: i32) {
        if let Some(s) = self.stints.get(client_id) {
            s.team = Some(team);
            s.last_tick = s.last_tick.max(tick);
        }
    }

    /// A chat line was said.
    pub fn chat(&mut self, line: ChatLine) {
        self.log.chat.push(line);
    }

    /// A game event happened.
    pub fn event(&mut self, event: EventLine) {
        self.log.events.push(event);
    }

    /// `client_id` is named `name`: whether that is no rename to log. Its first name
    /// since it joined goes to its join event (a format that records the join before the
    /// name, as teehistorian does, names the joining player as a demo does), and a name
    /// the player has already (recorded twice, by two messages) is no change: `true`,
    /// the log holding the name. `false`: a rename, which the caller logs.
    pub fn name_join(&mut self, client_id: i32, name: &str) -> bool {
        let last = self.log.events.iter_mut().rev().find(|e| {
            e.client_id == Some(client_id)
                && matches!(e.kind, EventKind::Join | EventKind::Leave | EventKind::Name)
        });
        match last {
            Some(join) if join.kind == EventKind::Join && join.name.is_empty() => {
                join.name = name.to_owned();
                true
            }
            Some(same) if same.kind != EventKind::Leave && same.name == name => true,
            _ => false,
        }
    }

    /// The kind of game the recording is of, which names its teams.
    pub fn team_game(&mut self, game: crate::model::TeamGame) {
        self.log.team_game = Some(game);
    }

    /// A kill happened.
    pub fn kill(&mut self) {
        self.log.kills += 1;
    }

    /// The log; the stints still open end at `last_tick`.
    pub fn finish(mut self, last_tick: i32) -> GameLog {
        self.log.players = self.stints.finish(last_tick);
        let team_game = self
            .log
            .team_game
            .unwrap_or(crate::model::TeamGame::TeeworldsFree);
        for p in &mut self.log.players {
            let team = p.team.and_then(|code| crate::model::team(team_game, code));
            p.team = team.as_ref().map(|t| t.0);
            p.team_name = team.map(|t| t.1.into_owned());
            p.country_code = super::names::country_code(p.country).map(str::to_owned);
        }
        // The game model names every actor: an event whose player the recording had not
        // named yet at that tick (a client demo can see a character die before it sees
        // the player's info) takes the name of the player's stint around it.
        let players = &self.log.players;
        let stint_name = |client_id: i32, tick: i32| {
            players
                .iter()
                .filter(|p| p.client_id == client_id && !p.name.is_empty())
                .min_by_key(|p| {
                    if (p.first_tick..=p.last_tick).contains(&tick) {
                        0
                    } else {
                        i64::from(p.first_tick)
                            .abs_diff(i64::from(tick))
                            .min(i64::from(p.last_tick).abs_diff(i64::from(tick)))
                            .saturating_add(1)
                    }
                })
                .map(|p| p.name.clone())
        };
        for event in &mut self.log.events {
            if let Some(id) = event.client_id.filter(|&id| id >= 0)
                && event.name.is_empty()
                && let Some(name) = stint_name(id, event.tick)
            {
                event.name = name;
            }
            if let Some(id) = event.victim.filter(|&id| id >= 0)
                && event.victim_name.as_deref().is_none_or(str::is_empty)
                && let Some(name) = stint_name(id, event.tick)
            {
                event.victim_name = Some(name);
            }
            // Teams and weapons by the game's names, the codes beside them.
            if let Some(code) = event.team {
                let team = crate::model::team(team_game, code);
                event.team = team.as_ref().map(|t| t.0);
                event.team_name = team.map(|t| t.1.into_owned());
            }
            if event.weapon_name.is_none()
                && !matches!(team_game, crate::model::TeamGame::Source(_))
            {
                event.weapon_name = event
                    .weapon
                    .and_then(super::names::weapon_name)
                    .map(str::to_owned);
            }
        }
        for line in &mut self.log.chat {
            if line.client_id >= 0
                && line.name.is_empty()
                && let Some(name) = stint_name(line.client_id, line.tick)
            {
                line.name = name;
            }
        }
        self.log
    }
}
