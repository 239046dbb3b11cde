//! The game layer of demos: what a recording shows, by name, tick by tick.
//!
//! [`GameReplay`] replays a demo's snapshots as DDNet's player does (the
//! [snapshot layer](super::snapshot)) and types every snapshot item and message chunk in the
//! demo's protocol ([`gamenet`](crate::gamenet): 0.6 / DDNet, or 0.7 when the header's
//! network version says so). Each tick it lends a [`GameTick`]: the typed items and
//! messages of the tick, and the [`World`] they add up to (players with names, characters,
//! the game's state, and the tick's events: chat, kills, race finishes, votes, joins and
//! leaves). It holds one snapshot and one tick's messages at a time, so memory does not grow
//! with the demo's length; clone the world or [`Object`](crate::gamenet::AnyObject)s with
//! `into_owned` to keep them.
//!
//! ```
//! use demokit::twdemo::DemoSlice;
//! use demokit::twdemo::game::{Event, GameReplay};
//!
//! let data = std::fs::read("fixtures/recorded_v6.demo")?;
//! let demo = DemoSlice::parse(&data)?;
//! let mut replay = GameReplay::new(&demo);
//! while let Some(tick) = replay.next() {
//!     let tick = tick?;
//!     for event in tick.world.events() {
//!         if let Event::Chat { client_id, text, .. } = event {
//!             println!("{} {client_id}: {text}", tick.tick);
//!         }
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod world;

pub use world::{Character, Event, GameState, Player, World};

use super::container::reader::DemoSlice;
use super::snapshot::replay::{ReplayError, TickWalker};
use super::snapshot::{EXTENDED_TYPE_ITEM, OFFSET_UUID_TYPE, Snapshot, uuid_from_ints};
use crate::gamenet::summary::{ChatLine, GameLog, Stints};
use crate::gamenet::{AnyMessage, AnyObject, ObjectType, Protocol, Unpacked, seven, six};
use uuid::Uuid;

/// One snapshot item, typed.
///
/// With the `serde` feature: `{"type_id": n, "id": n, "object": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ObjectAt<'a> {
    /// The item's type as stored (an internal number for extended types).
    pub type_id: i32,
    /// The item's id (for players and characters, the client id).
    pub id: i32,
    /// The typed object.
    pub object: AnyObject<'a>,
}

/// The extended item types a snapshot names, to type its items in one pass.
#[derive(Debug, Default)]
struct ExtendedTypes {
    /// Internal type, its UUID, and the kind DDNet's extension table gives it.
    types: Vec<(i32, Uuid, Option<six::ObjectKind>)>,
}

impl ExtendedTypes {
    /// Reads the `EX` items of `snapshot` as DDNet's `GetExternalItemType` does (the first
    /// item naming an internal type wins), and looks each type up once.
    fn scan(&mut self, snapshot: &Snapshot<'_>) {
        self.types.clear();
        for item in snapshot.items() {
            if item.type_id == EXTENDED_TYPE_ITEM
                && item.id >= OFFSET_UUID_TYPE
                && let Some(ints) = item.data.first_chunk::<4>()
                && !self.types.iter().any(|&(t, _, _)| t == item.id)
            {
                let uuid = uuid_from_ints(ints);
                let kind = six::ObjectKind::from_type(ObjectType::Extended(uuid));
                self.types.push((item.id, uuid, kind));
            }
        }
    }

    /// Types an item of `protocol`. Extended types are DDNet's extensions in both
    /// protocols (as in [`Protocol::decode_object`]); an internal type no item names stays
    /// a number, which no protocol defines: DDNet's client cannot type such an item either.
    fn decode<'d>(&self, protocol: Protocol, type_id: i32, data: &'d [i32]) -> AnyObject<'d> {
        match self.extended(type_id) {
            Some((_, Some(kind))) => AnyObject::Six(six::Object::decode_as(kind, data)),
            Some((uuid, None)) => protocol.decode_object(ObjectType::Extended(uuid), data),
            None => protocol.decode_object(ObjectType::Static(type_id), data),
        }
    }

    /// The kind of an item type in `protocol`, as [`decode`](Self::decode) would type it;
    /// `None` for what stays raw.
    fn kind(&self, protocol: Protocol, type_id: i32) -> Option<AnyKind> {
        match self.extended(type_id) {
            Some((_, kind)) => kind.map(AnyKind::Six),
            None if protocol == Protocol::Seven && type_id != EXTENDED_TYPE_ITEM => {
                seven::ObjectKind::from_type(ObjectType::Static(type_id)).map(AnyKind::Seven)
            }
            None => six::ObjectKind::from_type(ObjectType::Static(type_id)).map(AnyKind::Six),
        }
    }

    fn extended(&self, type_id: i32) -> Option<(Uuid, Option<six::ObjectKind>)> {
        if type_id < OFFSET_UUID_TYPE {
            return None;
        }
        self.types
            .iter()
            .find(|&&(t, _, _)| t == type_id)
            .map(|&(_, uuid, kind)| (uuid, kind))
    }
}

/// An object kind of either protocol.
#[derive(Debug, Clone, Copy)]
enum AnyKind {
    Six(six::ObjectKind),
    Seven(seven::ObjectKind),
}

/// The decoded message chunks of one tick.
#[derive(Debug, Default)]
struct TickMessages {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl TickMessages {
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    fn push(&mut self, ints: &[i32]) {
        for int in ints {
            self.bytes.extend_from_slice(&int.to_le_bytes());
        }
        self.ends.push(self.bytes.len());
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| &self.bytes[start..end])
    }
}

/// One tick of a [`GameReplay`], borrowing the replay.
///
/// With the `serde` feature: `{"tick", "keyframe", "offset", "players", "characters",
/// "game", "events"}` (the world; the typed items and messages are in
/// [`objects`](Self::objects) and [`messages`](Self::messages)).
#[derive(Debug, Clone, Copy)]
pub struct GameTick<'r> {
    /// The tick.
    pub tick: i32,
    /// Whether its tick marker has the keyframe bit.
    pub keyframe: bool,
    /// Offset of its tick marker.
    pub offset: u64,
    /// The world after the tick.
    pub world: &'r World,
    snapshot: Option<Snapshot<'r>>,
    types: &'r ExtendedTypes,
    messages: &'r TickMessages,
    protocol: Protocol,
}

impl<'r> GameTick<'r> {
    /// The snapshot's items, typed (none before the first valid snapshot).
    pub fn objects(&self) -> impl Iterator<Item = ObjectAt<'r>> + 'r {
        let types = self.types;
        let protocol = self.protocol;
        self.snapshot
            .into_iter()
            .flat_map(|snapshot| snapshot.items())
            .map(move |item| ObjectAt {
                type_id: item.type_id,
                id: item.id,
                object: types.decode(protocol, item.type_id, item.data),
            })
    }

    /// The tick's message chunks, typed; a message's `trailing` bytes are its chunk's zero
    /// padding to whole ints.
    pub fn messages(&self) -> impl Iterator<Item = Unpacked<'r, AnyMessage<'r>>> + 'r {
        let protocol = self.protocol;
        self.messages
            .iter()
            .map(move |bytes| protocol.unpack_message(bytes))
    }

    /// The full snapshot of the tick, untyped.
    pub fn snapshot(&self) -> Option<Snapshot<'r>> {
        self.snapshot
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for GameTick<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("GameTick", 7)?;
        s.serialize_field("tick", &self.tick)?;
        s.serialize_field("keyframe", &self.keyframe)?;
        s.serialize_field("offset", &self.offset)?;
        s.serialize_field("players", &self.world.players().collect::<Vec<_>>())?;
        s.serialize_field("characters", &self.world.characters().collect::<Vec<_>>())?;
        s.serialize_field("game", &self.world.game())?;
        s.serialize_field("events", self.world.events())?;
        s.end()
    }
}

/// Replays a demo tick by tick with its game state; see the [module docs](self).
pub struct GameReplay<'a> {
    walker: TickWalker<'a>,
    protocol: Protocol,
    world: World,
    types: ExtendedTypes,
    messages: TickMessages,
}

impl<'a> GameReplay<'a> {
    /// A replay of `demo` in the protocol its network version names.
    pub fn new(demo: &DemoSlice<'a>) -> Self {
        let net_version = demo.prelude().header.net_version.to_string_lossy();
        let protocol = Protocol::for_net_version(&net_version);
        GameReplay {
            walker: TickWalker::new(demo),
            protocol,
            world: World::new(protocol),
            types: ExtendedTypes::default(),
            messages: TickMessages::default(),
        }
    }

    /// The protocol the demo is typed in.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Snapshots and deltas skipped so far because they were invalid or did not apply
    /// (DDNet's player skips them too).
    pub fn skipped(&self) -> usize {
        self.walker.state.skipped
    }

    /// The next tick; `None` at the end of the demo or after an error. Messages before the
    /// first tick marker belong to the first tick.
    #[allow(clippy::should_implement_trait)] // A lending iterator: ticks borrow the replay.
    pub fn next(&mut self) -> Option<Result<GameTick<'_>, ReplayError>> {
        self.messages.clear();
        let messages = &mut self.messages;
        let end = match self.walker.next(|ints, _| messages.push(ints))? {
            Ok(end) => end,
            Err(e) => return Some(Err(e)),
        };
        let snapshot = self
            .walker
            .state
            .current
            .as_ref()
            .map(|buf| buf.as_snapshot());
        self.world.begin(end.tick);
        if let Some(snapshot) = &snapshot {
            self.types.scan(snapshot);
            self.world.begin_snapshot();
            // Only the kinds the world reads are typed: most items of a busy map are
            // projectiles, pickups and lasers, which the world leaves to `objects`.
            for item in snapshot.items() {
                match self.types.kind(self.protocol, item.type_id) {
                    Some(AnyKind::Six(kind)) if World::reads_six(kind) => self
                        .world
                        .apply_six(item.id, six::Object::decode_as(kind, item.data)),
                    Some(AnyKind::Seven(kind)) if World::reads_seven(kind) => self
                        .world
                        .apply_seven(item.id, seven::Object::decode_as(kind, item.data)),
                    _ => {}
                }
            }
            self.world.end_snapshot();
        }
        for bytes in self.messages.iter() {
            self.world
                .apply_message(&self.protocol.unpack_message(bytes).message);
        }
        self.world.finish();
        Some(Ok(GameTick {
            tick: end.tick,
            keyframe: end.keyframe,
            offset: end.offset,
            world: &self.world,
            snapshot,
            types: &self.types,
            messages: &self.messages,
            protocol: self.protocol,
        }))
    }
}

/// The chat lines, kills and player stints of a whole demo, in one replay; with the error
/// that ended the replay early, if any (everything before it is kept).
pub fn game_log(demo: &DemoSlice<'_>) -> (GameLog, Option<ReplayError>) {
    let mut log = LogCollector::default();
    let mut replay = GameReplay::new(demo);
    while let Some(tick) = replay.next() {
        match tick {
            Ok(tick) => log.tick(&tick),
            Err(e) => return (log.finish(), Some(e)),
        }
    }
    (log.finish(), None)
}

/// Builds a [`GameLog`] from the ticks of a replay, for callers that read each tick for
/// other things too.
#[derive(Debug, Default)]
pub(crate) struct LogCollector {
    log: GameLog,
    stints: Stints,
    last_tick: i32,
}

impl LogCollector {
    /// Takes in the events and players of the next tick.
    pub(crate) fn tick(&mut self, tick: &GameTick<'_>) {
        let world = tick.world;
        for event in world.events() {
            match event {
                Event::Join { client_id, .. } => {
                    self.stints.open(*client_id, tick.tick);
                }
                Event::Leave { client_id, .. } => self.stints.close(*client_id, self.last_tick),
                Event::Chat {
                    client_id,
                    team,
                    text,
                    ..
                } => self.log.chat.push(ChatLine {
                    tick: tick.tick,
                    client_id: *client_id,
                    name: world
                        .player(*client_id)
                        .map(|p| p.name.clone())
                        .unwrap_or_default(),
                    team: *team,
                    text: text.clone(),
                }),
                Event::Kill { .. } => self.log.kills += 1,
                _ => {}
            }
        }
        for p in world.players() {
            self.stints
                .update(p.client_id, tick.tick, &p.name, &p.clan, p.country, p.team);
        }
        self.last_tick = tick.tick;
    }

    /// The log of the ticks taken in.
    pub(crate) fn finish(mut self) -> GameLog {
        self.log.players = self.stints.finish(self.last_tick);
        self.log
    }
}
