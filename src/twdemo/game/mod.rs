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

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod chat;
pub mod world;

pub use world::{Character, Event, GameState, Player, World};

use super::container::error::ReadError;
use super::container::reader::{ChunkSource, Chunks, DemoReader, DemoSlice, Prelude};
use super::snapshot::replay::{Changes, ReplayError, TickWalker};
use super::snapshot::{EXTENDED_TYPE_ITEM, Item, ItemTypes, OFFSET_UUID_TYPE, Snapshot};
use crate::codec::uuid::uuid_from_ints;
use crate::gamenet::summary::{ChatLine, EventKind, EventLine, GameLog, GameLogBuilder};
use crate::gamenet::{AnyMessage, AnyObject, ObjectType, Protocol, Unpacked, seven, six};
use std::io::Read;
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
            .filter_map(|(start, end)| self.bytes.get(start..end))
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
    item_types: ItemTypes,
}

impl<'r> GameTick<'r> {
    /// The snapshot's items, typed (none before the first valid snapshot).
    pub fn objects(&self) -> impl Iterator<Item = ObjectAt<'r>> + 'r {
        let types = self.types;
        let protocol = self.protocol;
        let item_types = self.item_types;
        self.snapshot
            .into_iter()
            .flat_map(|snapshot| snapshot.items())
            .map(move |item| {
                let type_id = item_types.type_of(item.key);
                ObjectAt {
                    type_id,
                    id: item.id,
                    object: types.decode(protocol, type_id, item.data),
                }
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

/// Replays a demo tick by tick with its game state; see the [module docs](self). `C` is
/// where the chunks come from: a [`DemoSlice`]'s [`Chunks`] ([`new`](GameReplay::new)) or
/// a streaming [`DemoReader`] ([`from_reader`](GameReplay::from_reader)).
pub struct GameReplay<C> {
    walker: TickWalker<C>,
    reader: SnapshotReader,
    messages: TickMessages,
    /// A spare list for the snapshot state's change log.
    spare: Vec<usize>,
}

/// Reads each tick's snapshot into the world: all of it, or only what changed since the
/// last tick where that gives the same world.
struct SnapshotReader {
    protocol: Protocol,
    world: World,
    types: ExtendedTypes,
    /// What each item of the current snapshot is to the world.
    roles: Vec<Role>,
    /// The items the world reads again every tick (events, the game's state, 0.7's
    /// players), by index.
    rereads: Vec<usize>,
    /// The items to read at the next tick (scratch).
    todo: Vec<usize>,
    /// Scratch space for merging `todo` with `rereads`.
    merged: Vec<usize>,
    /// Whether the world was [`regular`](World::regular) after the last snapshot: then a
    /// tick whose snapshot kept its items in their places reads only the items that
    /// changed and `rereads`.
    incremental: bool,
    /// Tests compare the incremental reading with full passes.
    #[cfg(test)]
    full_passes_only: bool,
    /// Snapshots read incrementally, for tests to see that they were.
    #[cfg(test)]
    incremental_reads: usize,
}

impl<'a> GameReplay<Chunks<'a>> {
    /// A replay of `demo` in the protocol its network version names.
    pub fn new(demo: &DemoSlice<'a>) -> Self {
        GameReplay::over(demo.prelude(), demo.chunks())
    }
}

impl<R: Read> GameReplay<DemoReader<R>> {
    /// A replay of the chunks `reader` has not read yet (all of them, fresh from
    /// [`DemoReader::new`]), as [`new`](GameReplay::new) replays a slice's; memory does not
    /// grow with the file.
    pub fn from_reader(reader: DemoReader<R>) -> Self {
        let prelude = *reader.prelude();
        GameReplay::over(&prelude, reader)
    }
}

impl<C: ChunkSource> GameReplay<C> {
    /// A replay of `chunks`, of a demo whose prelude is `prelude`.
    pub(crate) fn over(prelude: &Prelude, chunks: C) -> Self {
        let net_version = prelude.header.net_version.to_string_lossy();
        let protocol = Protocol::for_net_version(&net_version);
        GameReplay {
            walker: TickWalker::new(prelude, chunks),
            reader: SnapshotReader {
                protocol,
                world: World::new(protocol),
                types: ExtendedTypes::default(),
                roles: Vec::new(),
                rereads: Vec::new(),
                todo: Vec::new(),
                merged: Vec::new(),
                incremental: false,
                #[cfg(test)]
                full_passes_only: false,
                #[cfg(test)]
                incremental_reads: 0,
            },
            messages: TickMessages::default(),
            spare: Vec::new(),
        }
    }

    /// The same replay reading item types as `types` says: with
    /// [`ItemTypes::DdnetPr12563`] (DDNet PR #12563, off by default) deltas may carry item
    /// types up to 0xffff, and [`GameTick::objects`] reports them unsigned. Call it before
    /// the first [`next`](Self::next).
    pub fn with_item_types(mut self, types: ItemTypes) -> Self {
        self.walker.state.set_item_types(types);
        self
    }

    /// The protocol the demo is typed in.
    pub fn protocol(&self) -> Protocol {
        self.reader.protocol
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
        let changes = self
            .walker
            .state
            .take_changes(std::mem::take(&mut self.spare));
        let snapshot = self
            .walker
            .state
            .current
            .as_ref()
            .map(|buf| buf.as_snapshot());
        let reader = &mut self.reader;
        reader.world.begin(end.tick);
        if let Some(snapshot) = &snapshot {
            reader.read(snapshot, &changes);
        }
        if let Changes::Updated(spare) = changes {
            self.spare = spare;
        }
        for bytes in self.messages.iter() {
            reader
                .world
                .apply_message(&reader.protocol.unpack_message(bytes).message);
        }
        reader.world.finish();
        Some(Ok(GameTick {
            tick: end.tick,
            keyframe: end.keyframe,
            offset: end.offset,
            world: &reader.world,
            snapshot,
            types: &reader.types,
            messages: &self.messages,
            protocol: reader.protocol,
            item_types: self.walker.state.item_types(),
        }))
    }
}

/// What an item of the current snapshot is to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Not read (left to [`GameTick::objects`]).
    Skipped,
    /// Read again every tick.
    Reread,
    /// Remembered until it changes: its kind as [`World::remove`] takes it, and its slot
    /// (small numbers: the roles of a snapshot's items are moved about every tick).
    Remembered(u8, u8),
    /// An `EX` item, naming an extended type.
    Types,
}

impl SnapshotReader {
    /// Brings the world up to `snapshot`, which `changes` tells from the last one read.
    fn read(&mut self, snapshot: &Snapshot<'_>, changes: &Changes) {
        if !self.incremental {
            return self.full_pass(snapshot);
        }
        let done = match changes {
            Changes::All => false,
            Changes::Updated(updated) => {
                let end = snapshot.len();
                self.read_changed(snapshot, &[], end..end, updated)
            }
            Changes::Edited {
                removed,
                added,
                updated,
            } => self.read_changed(snapshot, removed, added.clone(), updated),
        };
        if !done {
            self.full_pass(snapshot);
        }
    }

    /// Reads only the items a change touched and those read every tick; `false` (with
    /// the world to be read in full) where that might not give what a full pass gives:
    /// an `EX` item changed, came or went (items may type differently), a changed item
    /// sets another client's state than its id names, or a new item sets what another
    /// one already does.
    fn read_changed(
        &mut self,
        snapshot: &Snapshot<'_>,
        removed: &[usize],
        added: std::ops::Range<usize>,
        updated: &[usize],
    ) -> bool {
        let types = |roles: &[Role], i: usize| roles.get(i).is_none_or(|&r| r == Role::Types);
        if removed.iter().any(|&i| types(&self.roles, i)) {
            return false;
        }
        let edited = !removed.is_empty() || !added.is_empty();
        if !removed.is_empty() {
            let world = &mut self.world;
            let mut removed = removed.iter().copied().peekable();
            let mut i = 0;
            self.roles.retain(|&role| {
                let gone = removed.next_if_eq(&i).is_some();
                if let (true, Role::Remembered(kind, c)) = (gone, role) {
                    world.remove(kind.into(), c.into());
                }
                i += 1;
                !gone
            });
        }
        if self.roles.len() != added.start || added.end != snapshot.len() {
            return false;
        }
        self.roles.resize(added.end, Role::Skipped);
        if edited {
            self.find_rereads();
        }
        self.todo.clear();
        for &i in updated.iter() {
            // Every updated item is in the snapshot, which `roles` now covers.
            let Some(&current) = self.roles.get(i) else {
                return false;
            };
            let role = match current {
                // A kept item that stays out of the world, or is read anyway.
                Role::Skipped | Role::Reread if i < added.start => continue,
                Role::Types => return false,
                Role::Remembered(kind, _) if usize::from(kind) != world::PLAYER_INFO => current,
                // Added items, and player infos (whose data names their client), are
                // looked at.
                _ => match snapshot.item(i) {
                    Some(item) => self.role(&item),
                    None => return false,
                },
            };
            match role {
                Role::Types => return false,
                // A new item setting what another one already does.
                Role::Remembered(kind, c)
                    if i >= added.start && self.world.has(kind.into(), c.into()) =>
                {
                    return false;
                }
                // A player info that came to name another client.
                Role::Reread if current != Role::Reread && i < added.start => return false,
                _ => {}
            }
            self.todo.push(i);
        }
        // With the items read every tick, in snapshot order as in a full pass, each once.
        // A delta lists its updates in snapshot order, so the two lists are usually
        // merged rather than sorted.
        if !self.todo.is_sorted() {
            self.todo.sort_unstable();
        }
        merge_sorted(&self.todo, &self.rereads, &mut self.merged);
        std::mem::swap(&mut self.todo, &mut self.merged);
        self.todo.dedup();
        self.world.begin_snapshot_again();
        // Taken out while the items are read (which needs `self`), then put back to keep
        // its allocation.
        let todo = std::mem::take(&mut self.todo);
        for &i in &todo {
            let Some(item) = snapshot.item(i) else {
                continue;
            };
            let Some(&role) = self.roles.get(i) else {
                continue;
            };
            match role {
                // A kept item's kind and id did not change, and only a player info's
                // role depends on its data.
                Role::Remembered(kind, _)
                    if i < added.start && usize::from(kind) != world::PLAYER_INFO =>
                {
                    self.read_typed(&item);
                }
                _ => {
                    let role = self.read_item(item);
                    if let Some(slot) = self.roles.get_mut(i) {
                        *slot = role;
                    }
                }
            }
        }
        self.todo = todo;
        self.world.end_snapshot();
        if edited {
            self.find_rereads();
        }
        self.incremental = self.world.regular();
        #[cfg(test)]
        {
            self.incremental_reads += 1;
        }
        true
    }

    /// Hands every item of `snapshot` to the world, noting what each is to it.
    fn full_pass(&mut self, snapshot: &Snapshot<'_>) {
        self.types.scan(snapshot);
        self.world.begin_snapshot();
        self.roles.clear();
        for item in snapshot.items() {
            let role = self.read_item(item);
            self.roles.push(role);
        }
        self.find_rereads();
        self.world.end_snapshot();
        self.incremental = self.world.regular();
        #[cfg(test)]
        if self.full_passes_only {
            self.incremental = false;
        }
    }

    fn find_rereads(&mut self) {
        self.rereads.clear();
        let rereads = self.roles.iter().enumerate();
        let rereads = rereads.filter(|&(_, &role)| role == Role::Reread);
        self.rereads.extend(rereads.map(|(i, _)| i));
    }

    /// What `item` is to the world.
    fn role(&self, item: &Item<'_>) -> Role {
        self.role_of(self.types.kind(self.protocol, item.type_id), item)
    }

    /// [`role`](Self::role) for an item whose kind is known.
    fn role_of(&self, kind: Option<AnyKind>, item: &Item<'_>) -> Role {
        if item.type_id == EXTENDED_TYPE_ITEM {
            return Role::Types;
        }
        let remembered = match kind {
            Some(AnyKind::Six(kind)) if World::reads_six(kind) => {
                if !World::regular_six(kind, item.id, item.data) {
                    return Role::Reread;
                }
                World::remembered(kind, item.id).ok_or(World::remembers_six(kind))
            }
            Some(AnyKind::Seven(kind)) if World::reads_seven(kind) => {
                World::remembered_seven(kind, item.id).ok_or(World::remembers_seven(kind))
            }
            _ => return Role::Skipped,
        };
        match remembered {
            // Both fit: five kinds, `MAX_CLIENTS` slots.
            Ok((kind, c)) => Role::Remembered(kind as u8, c as u8),
            // A remembered kind for no slot changes nothing: it stays out.
            Err(true) => Role::Skipped,
            Err(false) => Role::Reread,
        }
    }

    /// Hands `item` to the world, typed, if the world reads its kind: most items of a busy
    /// map are projectiles, pickups and lasers, which the world leaves to
    /// [`GameTick::objects`]. Returns what the item is to the world.
    fn read_item(&mut self, item: Item<'_>) -> Role {
        let kind = self.read_typed(&item);
        self.role_of(kind, &item)
    }

    /// Hands `item` to the world as [`read_item`](Self::read_item) does; returns its kind.
    fn read_typed(&mut self, item: &Item<'_>) -> Option<AnyKind> {
        let kind = self.types.kind(self.protocol, item.type_id);
        match kind {
            Some(AnyKind::Six(kind)) if World::reads_six(kind) => {
                self.world.read_six(kind, item.id, item.data);
            }
            Some(AnyKind::Seven(kind)) if World::reads_seven(kind) => {
                self.world.read_seven(kind, item.id, item.data);
            }
            _ => {}
        }
        kind
    }
}

/// Writes the ascending lists `a` and `b`, merged in ascending order, to `out`.
fn merge_sorted(a: &[usize], b: &[usize], out: &mut Vec<usize>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x <= y {
            out.push(x);
            i += 1;
        } else {
            out.push(y);
            j += 1;
        }
    }
    out.extend_from_slice(a.get(i..).unwrap_or_default());
    out.extend_from_slice(b.get(j..).unwrap_or_default());
}

/// The chat lines, kills and player stints of a whole demo, in one replay; with the error
/// that ended the replay early, if any (everything before it is kept).
pub fn game_log(demo: &DemoSlice<'_>) -> (GameLog, Option<ReplayError>) {
    log_replay(GameReplay::new(demo))
}

/// [`game_log`] of a demo read as a stream: memory grows with the players and the chat,
/// not with the file. Only a prelude or map that cannot be read is an `Err`.
pub fn game_log_reader<R: Read>(input: R) -> Result<(GameLog, Option<ReplayError>), ReadError> {
    Ok(log_replay(GameReplay::from_reader(DemoReader::new(input)?)))
}

fn log_replay<C: ChunkSource>(mut replay: GameReplay<C>) -> (GameLog, Option<ReplayError>) {
    let mut log = TickLogger::default();
    while let Some(tick) = replay.next() {
        match tick {
            Ok(tick) => log.tick(&tick),
            Err(e) => return (log.finish(), Some(e)),
        }
    }
    (log.finish(), None)
}

/// Notes the events and players of a demo's replayed ticks in a [`GameLogBuilder`], for
/// callers that read each tick for other things too: a join opens a stint at its tick, a
/// player who left was last there the tick before, and every player present brings its
/// stint up to date.
#[derive(Debug, Default)]
pub(crate) struct TickLogger {
    builder: GameLogBuilder,
    last_tick: i32,
    /// Whether the game info said the game has teams (`GAMEFLAG_TEAMS`).
    teams_seen: bool,
    /// Each client id's team at the last tick it was there, for team changes.
    teams: Vec<Option<i32>>,
    /// The world's [`name_changes`](World::name_changes) when the names were last handed
    /// to the builder: while it stays, the players' names are not compared again.
    names_seen: Option<u64>,
}

impl TickLogger {
    /// Takes in the events and players of the next tick.
    pub(crate) fn tick(&mut self, tick: &GameTick<'_>) {
        let world = tick.world;
        // GAMEFLAG_TEAMS, bit 0 in 0.6 and 0.7 alike.
        self.teams_seen |= world.game().is_some_and(|g| g.game_flags & 1 != 0);
        let name = |client_id: i32| world.player(client_id).map_or("", |p| p.name.as_str());
        for event in world.events() {
            let line = |kind| EventLine::new(tick.tick, kind);
            match event {
                Event::Join {
                    client_id,
                    name: joined,
                } => {
                    self.builder.join(*client_id, tick.tick);
                    self.builder
                        .event(line(EventKind::Join).by(*client_id, joined));
                }
                Event::Leave {
                    client_id,
                    name: left,
                } => {
                    self.builder.leave(*client_id, self.last_tick);
                    self.builder
                        .event(line(EventKind::Leave).by(*client_id, left));
                    if let Some(team) = usize::try_from(*client_id)
                        .ok()
                        .and_then(|c| self.teams.get_mut(c))
                    {
                        *team = None;
                    }
                }
                Event::Chat {
                    client_id,
                    team,
                    text,
                    ..
                } => self.builder.chat(ChatLine {
                    tick: tick.tick,
                    client_id: *client_id,
                    name: name(*client_id).to_owned(),
                    channel: *team,
                    text: text.clone(),
                }),
                Event::Kill {
                    killer,
                    victim,
                    weapon,
                    ..
                } => {
                    self.builder.kill();
                    self.builder.event(EventLine {
                        victim: Some(*victim),
                        victim_name: Some(name(*victim).to_owned()),
                        weapon: Some(*weapon),
                        ..line(EventKind::Kill).by(*killer, name(*killer))
                    });
                }
                Event::Death { client_id, x, y } => self.builder.event(EventLine {
                    x: Some(*x),
                    y: Some(*y),
                    ..line(EventKind::Death).by(*client_id, name(*client_id))
                }),
                Event::RaceFinish {
                    client_id, time_ms, ..
                } => self.builder.event(EventLine {
                    time_ms: Some(i64::from(*time_ms)),
                    ..line(EventKind::Finish).by(*client_id, name(*client_id))
                }),
                Event::VoteStart {
                    client_id,
                    description,
                    reason,
                    ..
                } => {
                    let mut event = line(EventKind::VoteStart);
                    if let Some(c) = client_id {
                        event = event.by(*c, name(*c));
                    }
                    event.text = Some(if reason.is_empty() {
                        description.clone()
                    } else {
                        format!("{description} ({reason})")
                    });
                    self.builder.event(event);
                }
                _ => {}
            }
        }
        for p in world.players() {
            let Ok(c) = usize::try_from(p.client_id) else {
                continue;
            };
            if self.teams.len() <= c {
                self.teams.resize(c + 1, None);
            }
            if let Some(before) = self.teams.get_mut(c).and_then(|team| team.replace(p.team))
                && before != p.team
            {
                self.builder.event(EventLine {
                    team: Some(p.team),
                    ..EventLine::new(tick.tick, EventKind::Team).by(p.client_id, &p.name)
                });
            }
        }
        if self.names_seen == Some(world.name_changes()) {
            for p in world.players() {
                self.builder
                    .player_seen(p.client_id, tick.tick, p.country, p.team);
            }
        } else {
            for p in world.players() {
                self.builder
                    .player(p.client_id, tick.tick, &p.name, &p.clan, p.country, p.team);
            }
            self.names_seen = Some(world.name_changes());
        }
        self.last_tick = tick.tick;
    }

    /// The log of the ticks taken in; players still there end at the last tick.
    pub(crate) fn finish(mut self) -> GameLog {
        // A game whose info ever said it has teams names them red and blue.
        self.builder.team_game(if self.teams_seen {
            crate::model::TeamGame::TeeworldsTeams
        } else {
            crate::model::TeamGame::TeeworldsFree
        });
        self.builder.finish(self.last_tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demos of `fixtures/` and the real recordings of the test corpus: the
    /// repository's `fixtures/shared/real-fixtures/twdemo`, or that folder of the whole
    /// corpus where `DEMOKIT_SHARED` points (required in CI).
    fn demos() -> Vec<(String, Vec<u8>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let corpus = match std::env::var_os("DEMOKIT_SHARED") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => {
                assert!(
                    std::env::var("CI").map_or(true, |v| v != "true"),
                    "CI=true but DEMOKIT_SHARED is not set"
                );
                root.join("fixtures/shared")
            }
        };
        let shared = corpus.join("real-fixtures/twdemo");
        assert!(shared.is_dir(), "{} is missing", shared.display());
        let dirs = [root.join("fixtures"), shared];
        let mut demos = Vec::new();
        for dir in dirs.iter().filter(|d| d.is_dir()) {
            for entry in std::fs::read_dir(dir).expect("readable directory") {
                let path = entry.expect("directory entry").path();
                if path.extension().is_some_and(|e| e == "demo") {
                    let data = std::fs::read(&path).expect("readable demo");
                    demos.push((path.display().to_string(), data));
                }
            }
        }
        demos
    }

    /// Replays `data` incrementally and with full passes that type every item (and decode
    /// every message payload, where the incremental side reuses the ints of a payload it
    /// decoded lately), checking that every tick's world is the same, and that the game log, whose players' names
    /// the incremental side takes only when [`World::name_changes`] moved, is the one
    /// that comparing every name at every tick gives; returns the ticks compared and how
    /// many of them were read incrementally.
    fn compare_readings(path: &str, data: &[u8]) -> (usize, usize) {
        let Ok(demo) = DemoSlice::parse(data) else {
            return (0, 0);
        };
        let mut ticks = 0;
        let mut incremental = GameReplay::new(&demo);
        let mut full = GameReplay::new(&demo);
        full.reader.full_passes_only = true;
        full.reader.world.forgetful = true;
        full.walker.recent.off = true;
        let (mut log, mut full_log) = (TickLogger::default(), TickLogger::default());
        loop {
            match (incremental.next(), full.next()) {
                (None, None) => break,
                (Some(Ok(a)), Some(Ok(b))) => {
                    assert_eq!(a.tick, b.tick, "{path}");
                    log.tick(&a);
                    full_log.names_seen = None;
                    full_log.tick(&b);
                    let (a, b) = (a.world, b.world);
                    let at = format!("{path} tick {}", a.tick());
                    let players = |w: &World| w.players().cloned().collect::<Vec<_>>();
                    assert_eq!(players(a), players(b), "{at}");
                    let characters = |w: &World| w.characters().copied().collect::<Vec<_>>();
                    assert_eq!(characters(a), characters(b), "{at}");
                    assert_eq!(a.game(), b.game(), "{at}");
                    assert_eq!(a.events(), b.events(), "{at}");
                    ticks += 1;
                }
                (Some(Err(a)), Some(Err(b))) => {
                    assert_eq!(a.offset(), b.offset(), "{path}");
                    break;
                }
                (a, b) => panic!("{path}: {:?} / {:?}", a.is_some(), b.is_some()),
            }
        }
        assert_eq!(log.finish(), full_log.finish(), "{path}");
        (ticks, incremental.reader.incremental_reads)
    }

    /// The items [`generated_demo`] draws from: (type, id, size in ints), as DDNet 0.6
    /// numbers and sizes them: player infos (one naming another client), client infos,
    /// characters, the game info and death events.
    const CANDIDATES: [(i32, i32, usize); 12] = [
        (10, 0, 5),
        (10, 1, 5),
        (10, 2, 5),
        (11, 0, 17),
        (11, 1, 17),
        (9, 0, 22),
        (9, 1, 22),
        (9, 2, 22),
        (6, 0, 8),
        (17, 0, 3),
        (17, 1, 3),
        (10, 3, 5),
    ];

    /// A tick of [`generated_demo`]: a new mask of the candidates present (or the last
    /// one), and changes (candidate, int, value) to their data.
    type GeneratedTick = (Option<u16>, Vec<(usize, usize, i32)>);

    /// A demo of ticks whose snapshots hold the `CANDIDATES` a mask names, with data that
    /// changes a few ints at a time (so most items stay the same from tick to tick).
    fn generated_demo(ticks: &[GeneratedTick]) -> Vec<u8> {
        use crate::twdemo::snapshot::SnapshotBuilder;
        use crate::twdemo::snapshot::recorder::{Recorder, RecorderConfig};
        let config = RecorderConfig::ddnet("gen", "2026-11-26_10-00-00");
        let mut rec = Recorder::start(std::io::Cursor::new(Vec::new()), &config, b"map")
            .expect("recorder starts");
        let mut data: Vec<Vec<i32>> = CANDIDATES.iter().map(|&(_, _, n)| vec![1; n]).collect();
        let mut mask = u16::MAX;
        for (tick, (new_mask, changes)) in ticks.iter().enumerate() {
            mask = new_mask.unwrap_or(mask);
            for &(item, int, value) in changes {
                let item = &mut data[item % CANDIDATES.len()];
                let len = item.len();
                item[int % len] = value;
            }
            let mut builder = SnapshotBuilder::new();
            for (i, &(type_id, id, _)) in CANDIDATES.iter().enumerate() {
                if mask & 1 << i != 0 {
                    builder.add_item(type_id, id, &data[i]).expect("item fits");
                }
            }
            let snapshot = builder.finish();
            rec.record_snapshot(tick as i32 + 1, snapshot.as_snapshot())
                .expect("recorded");
        }
        rec.finish().expect("finished").into_inner()
    }

    proptest::proptest! {
        /// Generated snapshots, irregular ones included (a player info naming another
        /// client, items coming and going): the incremental world is the full one.
        #[test]
        fn incremental_reading_holds_on_generated_snapshots(
            ticks in proptest::collection::vec(
                (
                    proptest::option::weighted(0.15, proptest::prelude::any::<u16>()),
                    proptest::collection::vec((0..12usize, 0..22usize, -1..4i32), 0..4),
                ),
                1..60,
            )
        ) {
            let data = generated_demo(&ticks);
            compare_readings("generated", &data);
        }
    }

    /// Reading only the items that changed, and typing only those whose ints changed,
    /// gives, tick by tick, the world that typing every item of every snapshot gives.
    #[test]
    fn incremental_reading_gives_the_full_passes_world() {
        let (mut ticks, mut real, mut incremental_reads) = (0, 0, 0);
        for (path, data) in demos() {
            real += usize::from(path.contains("real-fixtures"));
            let (t, i) = compare_readings(&path, &data);
            ticks += t;
            incremental_reads += i;
        }
        assert!(ticks > 1000, "{ticks}");
        assert!(
            incremental_reads > ticks / 2,
            "{incremental_reads} of {ticks}"
        );
        eprintln!(
            "{ticks} ticks of {real} real demos and the fixtures compared, \
             {incremental_reads} read incrementally"
        );
    }
}
