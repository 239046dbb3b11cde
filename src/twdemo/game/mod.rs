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

use super::container::format::ChunkKind;
use super::container::payload::PayloadDecoder;
use super::container::reader::{Chunk, Chunks, DemoSlice};
use super::snapshot::delta::ItemSizes;
use super::snapshot::replay::{ReplayError, SnapshotOrder, SnapshotState};
use super::snapshot::{EXTENDED_TYPE_ITEM, OFFSET_UUID_TYPE, Snapshot, uuid_from_ints};
use crate::gamenet::summary::{ChatLine, GameLog, Stints};
use crate::gamenet::{AnyMessage, AnyObject, ObjectType, Protocol, Unpacked};
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
    types: Vec<(i32, Uuid)>,
}

impl ExtendedTypes {
    /// Reads the `EX` items of `snapshot` as DDNet's `GetExternalItemType` does (the first
    /// item naming an internal type wins).
    fn scan(&mut self, snapshot: &Snapshot<'_>) {
        self.types.clear();
        for item in snapshot.items() {
            if item.type_id == EXTENDED_TYPE_ITEM
                && item.id >= OFFSET_UUID_TYPE
                && let Some(ints) = item.data.first_chunk::<4>()
                && !self.types.iter().any(|&(t, _)| t == item.id)
            {
                self.types.push((item.id, uuid_from_ints(ints)));
            }
        }
    }

    fn object_type(&self, type_id: i32) -> ObjectType {
        if type_id >= OFFSET_UUID_TYPE
            && let Some(&(_, uuid)) = self.types.iter().find(|&&(t, _)| t == type_id)
        {
            return ObjectType::Extended(uuid);
        }
        // An internal type no item names stays a number, which no protocol defines: DDNet's
        // client cannot type such an item either.
        ObjectType::Static(type_id)
    }
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
                object: protocol.decode_object(types.object_type(item.type_id), item.data),
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

/// The tick whose chunks are being read.
#[derive(Debug, Clone, Copy)]
struct Pending {
    tick: i32,
    keyframe: bool,
    offset: u64,
}

/// Replays a demo tick by tick with its game state; see the [module docs](self).
pub struct GameReplay<'a> {
    chunks: Chunks<'a>,
    decoder: PayloadDecoder,
    state: SnapshotState,
    protocol: Protocol,
    world: World,
    types: ExtendedTypes,
    messages: TickMessages,
    pending: Option<Pending>,
    /// Whether the pending tick's messages are still to be read (they stay in `messages`
    /// until the tick after it begins).
    fresh: bool,
    done: bool,
}

impl<'a> GameReplay<'a> {
    /// A replay of `demo` in the protocol its network version names.
    pub fn new(demo: &DemoSlice<'a>) -> Self {
        let prelude = demo.prelude();
        let net_version = prelude.header.net_version.to_string_lossy();
        let protocol = Protocol::for_net_version(&net_version);
        GameReplay {
            chunks: demo.chunks(),
            decoder: PayloadDecoder::new(),
            state: SnapshotState::new(
                ItemSizes::for_net_version(&net_version),
                SnapshotOrder::for_prelude(prelude),
            ),
            protocol,
            world: World::new(protocol),
            types: ExtendedTypes::default(),
            messages: TickMessages::default(),
            pending: None,
            fresh: false,
            done: false,
        }
    }

    /// The protocol the demo is typed in.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Snapshots and deltas skipped so far because they were invalid or did not apply
    /// (DDNet's player skips them too).
    pub fn skipped(&self) -> usize {
        self.state.skipped
    }

    /// The next tick; `None` at the end of the demo or after an error. Messages before the
    /// first tick marker belong to the first tick.
    #[allow(clippy::should_implement_trait)] // A lending iterator: ticks borrow the replay.
    pub fn next(&mut self) -> Option<Result<GameTick<'_>, ReplayError>> {
        if self.done {
            return None;
        }
        if self.fresh {
            // The last tick's messages were handed out: start collecting the next one's.
            self.messages.clear();
            self.fresh = false;
        }
        loop {
            let Some(item) = self.chunks.next() else {
                self.done = true;
                return self.pending.take().map(|p| Ok(self.finish_tick(p)));
            };
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    self.done = true;
                    return Some(Err(ReplayError::Read(e)));
                }
            };
            match item.chunk {
                Chunk::Tick(marker) => {
                    let next = Pending {
                        tick: marker.tick,
                        keyframe: marker.keyframe,
                        offset: item.offset,
                    };
                    if let Some(previous) = self.pending.replace(next) {
                        return Some(Ok(self.finish_tick(previous)));
                    }
                }
                Chunk::Data(chunk) => {
                    let kind = chunk.kind;
                    if !matches!(
                        kind,
                        ChunkKind::Snapshot | ChunkKind::SnapshotDelta | ChunkKind::Message
                    ) {
                        continue;
                    }
                    if let Err(e) = self.decoder.decode(chunk.payload) {
                        self.done = true;
                        return Some(Err(ReplayError::Payload {
                            offset: item.offset,
                            error: e,
                        }));
                    }
                    let ints = self.decoder.last_ints();
                    match kind {
                        ChunkKind::Snapshot => self.state.keyframe(ints),
                        ChunkKind::SnapshotDelta => {
                            if self.state.delta(ints).is_err() {
                                self.done = true;
                                return Some(Err(ReplayError::DeltaBeforeSnapshot {
                                    offset: item.offset,
                                }));
                            }
                        }
                        _ => self.messages.push(ints),
                    }
                }
            }
        }
    }

    /// Brings the world up to the pending tick (whose chunks are all read) and lends it.
    fn finish_tick(&mut self, p: Pending) -> GameTick<'_> {
        // The next tick's chunks have not been read yet, except when the next marker is
        // what ended this one: its messages are collected from the next call on.
        self.fresh = true;
        let snapshot = self.state.current.as_ref().map(|buf| buf.as_snapshot());
        self.world.begin(p.tick);
        if let Some(snapshot) = &snapshot {
            self.types.scan(snapshot);
            let types = &self.types;
            let protocol = self.protocol;
            self.world.apply_snapshot(snapshot.items().map(|item| {
                let ty = types.object_type(item.type_id);
                (item.id, protocol.decode_object(ty, item.data))
            }));
        }
        for bytes in self.messages.iter() {
            self.world
                .apply_message(&self.protocol.unpack_message(bytes).message);
        }
        self.world.finish();
        GameTick {
            tick: p.tick,
            keyframe: p.keyframe,
            offset: p.offset,
            world: &self.world,
            snapshot,
            types: &self.types,
            messages: &self.messages,
            protocol: self.protocol,
        }
    }
}

/// The chat lines, kills and player stints of a whole demo, in one replay; with the error
/// that ended the replay early, if any (everything before it is kept).
pub fn game_log(demo: &DemoSlice<'_>) -> (GameLog, Option<ReplayError>) {
    let mut log = GameLog::default();
    let mut stints = Stints::default();
    let mut replay = GameReplay::new(demo);
    let mut last_tick = 0;
    let mut error = None;
    while let Some(tick) = replay.next() {
        let tick = match tick {
            Ok(tick) => tick,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        let world = tick.world;
        for event in world.events() {
            match event {
                Event::Join { client_id, .. } => {
                    stints.open(*client_id, tick.tick);
                }
                Event::Leave { client_id, .. } => stints.close(*client_id, last_tick),
                Event::Chat {
                    client_id,
                    team,
                    text,
                    ..
                } => log.chat.push(ChatLine {
                    tick: tick.tick,
                    client_id: *client_id,
                    name: world
                        .player(*client_id)
                        .map(|p| p.name.clone())
                        .unwrap_or_default(),
                    team: *team,
                    text: text.clone(),
                }),
                Event::Kill { .. } => log.kills += 1,
                _ => {}
            }
        }
        for p in world.players() {
            stints.update(p.client_id, tick.tick, &p.name, &p.clan, p.country, p.team);
        }
        last_tick = tick.tick;
    }
    log.players = stints.finish(last_tick);
    (log, error)
}
