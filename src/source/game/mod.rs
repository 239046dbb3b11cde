//! The game layer of Source demos: who played, what they said and what happened, for every
//! Source 1 game this crate decodes the messages of.
//!
//! * [`player`]: the `userinfo` entries, one per player slot.
//! * [`user_message`]: the text user messages and their numbers per game.
//!
//! [`walk_reader`] streams a demo and hands out [`Item`]s in order: players joining,
//! leaving and renaming (from the `userinfo` table), chat lines (`SayText`, `SayText2` and
//! `player_say` events), every game event typed by the demo's own descriptors, and server
//! text (`TextMsg`, `svc_Print`); with [`Walk::entities`] also the players' entities
//! (position, view angles, team, health, life state) after every packet. [`game_log_reader`]
//! gathers them into the [`GameLog`] all formats share. Memory holds one frame, the
//! client's tables and its entities, whatever the demo's length.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod localize;
pub mod player;
pub mod user_message;

pub use player::PlayerInfo;
pub use user_message::{SayText, SayText2, TextMessages, TextMsg};

use super::entity::{
    DataTables, Entity, EntityChange, EntityError, EntityState, PlayerEntity, ServerClass,
    ServerClasses, Value, players_into, update_players,
};
use super::net::game_event::{EventDescriptor, EventValue};
use super::net::state::{NetState, TableChange};
use super::net::string_table::StringTableError;
use super::net::{Decoder, MessageKind, NetError, NetMessage};
use super::{Body, ReadError, SourceReader};
use crate::gamenet::summary::{ChatLine, EventKind, EventLine, GameLog, GameLogBuilder};
use std::io::Read;

/// Why a walk over a demo's game layer stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GameError {
    /// The container could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A frame's messages could not be decoded.
    #[error("at byte {offset} (tick {tick}), in the packet's data {error}")]
    Net {
        /// The frame's offset.
        offset: u64,
        /// The frame's tick.
        tick: i32,
        /// What went wrong, at which bit of the packet data.
        error: NetError,
    },
    /// A string table could not be updated.
    #[error("at byte {offset} (tick {tick}): string table: {error}")]
    Table {
        /// The frame's offset.
        offset: u64,
        /// The frame's tick.
        tick: i32,
        /// What went wrong.
        error: StringTableError,
    },
    /// A frame's entities could not be decoded.
    #[error("at byte {offset} (tick {tick}), entities: {error}")]
    Entity {
        /// The frame's offset.
        offset: u64,
        /// The frame's tick.
        tick: i32,
        /// What went wrong.
        error: EntityError,
    },
    /// The demo's network protocol is not one this layer decodes.
    #[error(
        "network protocol {network} of demo protocol {demo} (game {game}) is not one whose \
         messages demokit decodes yet"
    )]
    Unsupported {
        /// The demo protocol.
        demo: i32,
        /// The network protocol.
        network: i32,
        /// The game directory.
        game: String,
    },
}

impl GameError {
    /// The byte offset of the frame where the walk stopped (0 for the header).
    pub fn offset(&self) -> u64 {
        match self {
            GameError::Read(e) => e.offset,
            GameError::Net { offset, .. }
            | GameError::Table { offset, .. }
            | GameError::Entity { offset, .. } => *offset,
            GameError::Unsupported { .. } => 0,
        }
    }
}

/// One chat line of a Source demo.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SourceChat {
    /// The tick.
    pub tick: i32,
    /// The speaker's player slot (entity index - 1): its client id in the game model;
    /// `None` the server.
    #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
    pub slot: Option<i32>,
    /// The speaker's name as the message gives it (or the player's name).
    pub name: String,
    /// The format token (`TF_Chat_All`, `TF_Chat_Team`, ...), or `say_text` for a plain
    /// `SayText` and `player_say` for the event.
    pub kind: String,
    /// The text.
    pub text: String,
}

impl SourceChat {
    /// Whether it went to the speaker's team only (the token names a team channel; CS:GO's
    /// `Cstrike_Chat_T`, `Cstrike_Chat_CT`, `Cstrike_Chat_Spec`, ... name the team, its
    /// `Cstrike_Chat_All...` everyone).
    pub fn team_only(&self) -> bool {
        self.kind.contains("Team")
            || self.kind.contains("team")
            || (self.kind.starts_with("Cstrike_Chat_")
                && !self.kind.starts_with("Cstrike_Chat_All"))
    }
}

/// One game event with its values named by the demo's descriptor.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceEvent<'a> {
    /// The tick.
    pub tick: i32,
    /// The descriptor: the event's name and its keys.
    pub descriptor: &'a EventDescriptor,
    /// The values, in the descriptor's key order.
    pub values: &'a [EventValue],
}

impl SourceEvent<'_> {
    /// The value of key `name`.
    pub fn get(&self, name: &str) -> Option<&EventValue> {
        self.descriptor
            .keys
            .iter()
            .position(|k| k.name.as_bytes() == name.as_bytes())
            .and_then(|i| self.values.get(i))
    }

    /// The event's name.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        self.descriptor.name.to_string_lossy()
    }
}

/// `{"tick": n, "kind": name, "values": {key: value, ...}}`: the keys are the demo's own,
/// data rather than field names, so they stay inside `values`.
#[cfg(feature = "serde")]
impl serde::Serialize for SourceEvent<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Values<'e, 'a>(&'e SourceEvent<'a>);
        impl serde::Serialize for Values<'_, '_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let keys = &self.0.descriptor.keys;
                let mut map = s.serialize_map(Some(keys.len()))?;
                for (key, value) in keys.iter().zip(self.0.values) {
                    map.serialize_entry(&key.name.to_string_lossy(), value)?;
                }
                map.end()
            }
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("tick", &self.tick)?;
        map.serialize_entry("kind", &self.name())?;
        map.serialize_entry("values", &Values(self))?;
        map.end()
    }
}

/// What a walk hands out, in demo order.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "record", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Item<'a> {
    /// A player took a slot.
    Join {
        /// The tick.
        tick: i32,
        /// The slot (entity index - 1): the player's client id in the game model.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        slot: i32,
        /// The player.
        player: &'a PlayerInfo,
    },
    /// A player left a slot.
    Leave {
        /// The tick.
        tick: i32,
        /// The slot: the player's client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        slot: i32,
        /// The player as last seen.
        player: &'a PlayerInfo,
    },
    /// A player took another name.
    Rename {
        /// The tick.
        tick: i32,
        /// The slot: the player's client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        slot: i32,
        /// The name before.
        old_name: &'a str,
        /// The player, with the new name.
        player: &'a PlayerInfo,
    },
    /// A chat line.
    Chat(&'a SourceChat),
    /// A game event.
    Event(SourceEvent<'a>),
    /// The players' entities after a packet's entity updates (only when the walk follows
    /// entities, [`Walk::entities`]).
    Players {
        /// The tick.
        tick: i32,
        /// Every player entity there is, in PVS or not.
        players: &'a [PlayerEntity],
    },
    /// What one `svc_PacketEntities` did to one entity, with the props it sent by name
    /// (only when the walk hands out entities, [`Walk::objects`]).
    Entity {
        /// The tick.
        tick: i32,
        /// The entity index.
        index: usize,
        /// What the update did.
        change: EntityChange,
        /// The class name (`None` once deleted).
        class: Option<&'a str>,
        /// The props sent (all props with a value when it entered), keyed
        /// `table.prop`.
        props: EntityProps<'a>,
    },
    /// Server text: a `TextMsg` or a `svc_Print`.
    Text {
        /// The tick.
        tick: i32,
        /// `text_msg` or `print`.
        source: &'static str,
        /// The text and its parameters, joined by spaces.
        text: &'a str,
    },
}

impl Item<'_> {
    /// The tick the item happened at.
    pub fn tick(&self) -> i32 {
        match self {
            Item::Join { tick, .. }
            | Item::Leave { tick, .. }
            | Item::Rename { tick, .. }
            | Item::Players { tick, .. }
            | Item::Entity { tick, .. }
            | Item::Text { tick, .. } => *tick,
            Item::Chat(chat) => chat.tick,
            Item::Event(event) => event.tick,
        }
    }
}

/// The walk's state between frames.
struct WalkState {
    state: NetState,
    messages: TextMessages,
    players: Vec<Option<PlayerInfo>>,
    userinfo: Option<usize>,
}

impl WalkState {
    /// The slot of a user id.
    fn slot_of(&self, user_id: i64) -> Option<usize> {
        self.players
            .iter()
            .position(|p| p.as_ref().is_some_and(|p| i64::from(p.user_id) == user_id))
    }

    /// Compares the `userinfo` entries at `indexes` with the players known and hands out
    /// the joins, leaves and renames.
    fn players_changed(&mut self, tick: i32, indexes: &[usize], each: &mut impl FnMut(Item<'_>)) {
        let Some(table) = self.userinfo.and_then(|t| self.state.tables.get(t)) else {
            return;
        };
        for &slot in indexes {
            let now = table
                .entries
                .get(slot)
                .and_then(|e| e.user_data.as_ref())
                .and_then(|d| PlayerInfo::parse(d.as_bytes()));
            if self.players.len() <= slot {
                self.players.resize(slot + 1, None);
            }
            let before = self.players.get_mut(slot).and_then(Option::take);
            let s = slot as i32;
            match (&before, &now) {
                (Some(b), Some(n)) if b.user_id == n.user_id => {
                    if b.name != n.name {
                        each(Item::Rename {
                            tick,
                            slot: s,
                            old_name: &b.name,
                            player: n,
                        });
                    }
                }
                _ => {
                    if let Some(b) = &before {
                        each(Item::Leave {
                            tick,
                            slot: s,
                            player: b,
                        });
                    }
                    if let Some(n) = &now {
                        each(Item::Join {
                            tick,
                            slot: s,
                            player: n,
                        });
                    }
                }
            }
            if let Some(entry) = self.players.get_mut(slot) {
                *entry = now;
            }
        }
    }

    /// Whether the player in `slot` is a SourceTV relay.
    fn is_hltv(&self, slot: i32) -> bool {
        usize::try_from(slot)
            .ok()
            .and_then(|s| self.players.get(s))
            .and_then(|p| p.as_ref())
            .is_some_and(|p| p.hltv)
    }

    fn name_of_slot(&self, slot: i32) -> String {
        usize::try_from(slot)
            .ok()
            .and_then(|s| self.players.get(s))
            .and_then(|p| p.as_ref())
            .map(|p| p.name.clone())
            .unwrap_or_default()
    }

    /// A text user message as chat or server text.
    fn user_message(
        &self,
        tick: i32,
        number: u8,
        data: &crate::codec::bits::Bits,
        each: &mut impl FnMut(Item<'_>),
    ) {
        let m = self.messages;
        let csgo = self.state.protocol.is_protobuf();
        if number == m.say_text {
            let say = if csgo {
                SayText::from_csgo(data.as_bytes())
            } else {
                let mut say = SayText::default();
                say.code(&mut Decoder::new(data.reader()))
                    .ok()
                    .map(|()| say)
            };
            if let Some(say) = say {
                let slot = (say.client > 0).then(|| i32::from(say.client) - 1);
                let chat = SourceChat {
                    tick,
                    slot,
                    name: slot.map(|s| self.name_of_slot(s)).unwrap_or_default(),
                    kind: "say_text".into(),
                    text: clean(&say.text.to_string_lossy()),
                };
                each(Item::Chat(&chat));
            }
        } else if Some(number) == m.say_text2 {
            let say = if csgo {
                SayText2::from_csgo(data.as_bytes())
            } else {
                let mut say = SayText2::default();
                say.code(&mut Decoder::new(data.reader()))
                    .ok()
                    .map(|()| say)
            };
            if let Some(say) = say {
                let mut slot = (say.client > 0).then(|| i32::from(say.client) - 1);
                let param = |i: usize| {
                    say.params
                        .get(i)
                        .map(|p| p.to_string_lossy().into_owned())
                        .unwrap_or_default()
                };
                let token = say.message.to_string_lossy().into_owned();
                if token.contains("Name_Change") {
                    // A rename: the `userinfo` entry says it too, as a `Rename`.
                    return;
                }
                // A plugin's raw text (it starts with a colour byte, or has no
                // parameters): the token is the text.
                let (kind, name, text) = if say.params.is_empty() || token.starts_with('\u{1}') {
                    // Sent in the name of SourceTV (a plugin's notice: "dax is joining the
                    // server."): nobody's words, the server's.
                    if slot.is_some_and(|s| self.is_hltv(s)) {
                        slot = None;
                    }
                    let text = clean(&token);
                    let text = localize::readable(&text, &[]).unwrap_or(text);
                    ("raw".to_owned(), String::new(), text)
                } else {
                    (token, param(0), clean(&param(1)))
                };
                let name = if name.is_empty() {
                    slot.map(|s| self.name_of_slot(s)).unwrap_or_default()
                } else {
                    name
                };
                let chat = SourceChat {
                    tick,
                    slot,
                    name,
                    kind,
                    text,
                };
                each(Item::Chat(&chat));
            }
        } else if number == m.text_msg {
            let msg = if csgo {
                TextMsg::from_csgo(data.as_bytes())
            } else {
                let mut msg = TextMsg::default();
                msg.code(&mut Decoder::new(data.reader()))
                    .ok()
                    .map(|()| msg)
            };
            if let Some(msg) = msg {
                let token = clean(&msg.message.to_string_lossy());
                let params: Vec<String> = msg
                    .params
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| clean(&p.to_string_lossy()))
                    .collect();
                // A localisation token reads as its text; an unknown one is kept, its
                // parameters after it.
                let text = localize::readable(&token, &params).unwrap_or_else(|| {
                    std::iter::once(token.as_str())
                        .chain(params.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" ")
                });
                if msg.destination == HUD_PRINT_TALK {
                    // Shown in the chat, from no player.
                    let chat = SourceChat {
                        tick,
                        slot: None,
                        name: String::new(),
                        kind: "text_msg".into(),
                        text,
                    };
                    each(Item::Chat(&chat));
                } else {
                    each(Item::Text {
                        tick,
                        source: "text_msg",
                        text: &text,
                    });
                }
            }
        }
    }
}

/// `TextMsg`'s destination for the chat (`HUD_PRINTTALK`).
const HUD_PRINT_TALK: u8 = 3;

/// Text without the colour codes games put in chat (bytes 0x01 to 0x06, 0x07 and six hex
/// digits, 0x08 and eight) and without a trailing newline.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\u{1}'..='\u{6}' => {}
            '\u{7}' => {
                chars.nth(5);
            }
            '\u{8}' => {
                chars.nth(7);
            }
            c => out.push(c),
        }
    }
    out.trim_end_matches('\n').to_owned()
}

/// How a walk ended.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct WalkEnd {
    /// The highest tick of a frame read (signon frames counted at 0).
    pub last_tick: i32,
    /// The ticks of play of the frames read, as `info` counts them.
    pub play: crate::source::summary::PlayTicks,
    /// The header's game directory (`tf`, `cstrike`, ...): the game, which names the teams.
    pub game_dir: String,
    /// The error that ended the walk early; everything before it was handed out.
    pub error: Option<GameError>,
}

/// What a walk reads beyond the messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Walk {
    /// Follow the entities and hand out [`Item::Players`] after every packet with entity
    /// updates (costs the entity decoding).
    pub entities: bool,
    /// Follow the entities and hand out an [`Item::Entity`] for each entity every update
    /// touches, with its props by name (`demokit dump --objects`).
    pub objects: bool,
}

/// The props one update sent for one entity, handed out by name: serialized as a map
/// from `table.prop` to the value.
#[derive(Clone, Copy)]
pub struct EntityProps<'a> {
    classes: Option<&'a ServerClasses>,
    class: Option<&'a ServerClass>,
    entity: Option<&'a Entity>,
    /// The update number the props were sent in; `None`: every prop with a value.
    sent_in: Option<u32>,
}

impl std::fmt::Debug for EntityProps<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> EntityProps<'a> {
    /// No props (an entity that left or was deleted).
    fn none() -> Self {
        EntityProps {
            classes: None,
            class: None,
            entity: None,
            sent_in: None,
        }
    }

    /// Each prop as `(table.prop, value)`, in flat order.
    pub fn iter(&self) -> impl Iterator<Item = (String, &'a Value)> + '_ {
        let (Some(classes), Some(class), Some(entity)) = (self.classes, self.class, self.entity)
        else {
            return None.into_iter().flatten();
        };
        let sent_in = self.sent_in;
        Some(class.props.iter().enumerate().filter_map(move |(i, p)| {
            let value = entity.values.get(i)?.as_ref()?;
            if sent_in.is_some_and(|n| entity.changed.get(i) != Some(&n)) {
                return None;
            }
            let name = format!(
                "{}.{}",
                String::from_utf8_lossy(classes.table_name(p)?),
                classes.send_prop(p)?.name.to_string_lossy()
            );
            Some((name, value))
        }))
        .into_iter()
        .flatten()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for EntityProps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl Walk {
    /// A walk that follows the entities too.
    pub fn entities() -> Walk {
        Walk {
            entities: true,
            objects: false,
        }
    }

    /// A walk that hands out every entity update too.
    pub fn objects() -> Walk {
        Walk {
            entities: true,
            objects: true,
        }
    }
}

/// Streams a demo's game layer to `each`, in order. An error reading the header or an
/// unsupported protocol fails the walk; a later one ends it early ([`WalkEnd::error`]).
pub fn walk_reader<R: Read>(reader: R, each: impl FnMut(Item<'_>)) -> Result<WalkEnd, GameError> {
    walk_reader_with(reader, Walk::default(), each)
}

/// [`walk_reader`] reading what `options` asks for.
pub fn walk_reader_with<R: Read>(
    reader: R,
    options: Walk,
    mut each: impl FnMut(Item<'_>),
) -> Result<WalkEnd, GameError> {
    let mut reader = SourceReader::new(reader)?;
    let header = *reader.header();
    let Some(mut state) = NetState::of_header(&header) else {
        return Err(GameError::Unsupported {
            demo: header.demo_protocol,
            network: header.network_protocol,
            game: header.game_dir.to_string_lossy(),
        });
    };
    // The players and the entities' baselines are all the walk reads of the tables.
    state.follow_tables(&["userinfo", "instancebaseline"]);
    let game_dir = header.game_dir.to_string_lossy();
    let mut walk = WalkState {
        messages: TextMessages::of(state.protocol, &game_dir),
        state,
        players: Vec::new(),
        userinfo: None,
    };
    let mut decoded = Vec::new();
    let mut end = WalkEnd {
        game_dir: game_dir.clone(),
        ..WalkEnd::default()
    };
    let mut classes: Option<ServerClasses> = None;
    let mut entities = EntityState::new();
    let mut player_list: Vec<PlayerEntity> = Vec::new();
    // The server's player slots, once its `svc_ServerInfo` says (player entities are
    // 1..=slots); until then, every index a player can have.
    let mut slots = crate::source::entity::player::MAX_PLAYER_INDEX;
    // Whether `player_list` is the players of `entities` as of the last update, and the
    // player indexes a packet's updates touch.
    let mut players_known = false;
    let mut touched: Vec<usize> = Vec::new();
    while let Some(frame) = reader.next() {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                end.error = Some(e.into());
                return Ok(end);
            }
        };
        // Signon frames carry the client's own clock, not the demo's, whose ticks start at
        // the first sync tick: what the signon says is known at the demo's first tick.
        let tick = match frame.frame.body {
            Body::Signon(_) => 0,
            _ => frame.frame.tick,
        };
        let offset = frame.offset;
        end.last_tick = end.last_tick.max(tick);
        end.play.add(frame.frame.command(), frame.frame.tick);
        match &frame.frame.body {
            Body::DataTables(data) if options.entities || options.objects => {
                let read = DataTables::decode(data, walk.state.protocol)
                    .map_err(|error| GameError::Net {
                        offset,
                        tick,
                        error,
                    })
                    .and_then(|tables| {
                        ServerClasses::new(tables, walk.state.protocol).map_err(|error| {
                            GameError::Entity {
                                offset,
                                tick,
                                error,
                            }
                        })
                    });
                match read {
                    Ok(read) => {
                        classes = Some(read);
                        players_known = false;
                    }
                    Err(e) => {
                        end.error = Some(e);
                        return Ok(end);
                    }
                }
            }
            Body::StringTables(data) => {
                if let Err(error) = walk.state.apply_string_tables_frame(data) {
                    end.error = Some(GameError::Net {
                        offset,
                        tick,
                        error,
                    });
                    return Ok(end);
                }
                if let Some(t) = walk.userinfo {
                    let entries = walk.state.tables.get(t).map_or(0, |t| t.entries.len());
                    let all: Vec<usize> = (0..entries.max(walk.players.len())).collect();
                    walk.players_changed(tick, &all, &mut each);
                }
            }
            Body::Signon(packet) | Body::Packet(packet) => {
                decoded.clear();
                let mut messages = walk.state.messages(packet.data);
                for m in messages.by_ref() {
                    match m {
                        Ok(m) => decoded.push(m.message),
                        Err(error) => {
                            end.error = Some(GameError::Net {
                                offset,
                                tick,
                                error,
                            });
                            return Ok(end);
                        }
                    }
                }
                walk.state.learned(&messages);
                let mut updated = false;
                // The player indexes this packet's updates touched; all of them after a
                // full update (which drops the entities it does not send, untouched).
                touched.clear();
                let mut all_players = !players_known;
                for message in &decoded {
                    if let NetMessage::ServerInfo(info) = message {
                        slots = usize::from(info.max_players).max(1);
                        players_known = false;
                    }
                    if let Some(stop) = walk.message(offset, tick, message, &mut each) {
                        end.error = Some(stop);
                        return Ok(end);
                    }
                    // CS:GO's protobuf updates read as the other branches'.
                    let classic;
                    let message = match message {
                        NetMessage::Protobuf(p)
                            if classes.is_some() && p.kind == MessageKind::PacketEntities =>
                        {
                            match p.classic() {
                                Ok(Some(c)) => {
                                    classic = c;
                                    &classic
                                }
                                Ok(None) => message,
                                Err(error) => {
                                    end.error = Some(GameError::Net {
                                        offset,
                                        tick,
                                        error,
                                    });
                                    return Ok(end);
                                }
                            }
                        }
                        m => m,
                    };
                    if let (NetMessage::PacketEntities(update), Some(classes)) = (message, &classes)
                    {
                        let baselines = walk
                            .state
                            .table_index("instancebaseline")
                            .and_then(|t| walk.state.tables.get(t));
                        if let Err(error) = entities.apply(update, classes, baselines) {
                            end.error = Some(GameError::Entity {
                                offset,
                                tick,
                                error,
                            });
                            return Ok(end);
                        }
                        updated = true;
                        if update.delta_from.is_none() {
                            all_players = true;
                        } else {
                            touched.extend(
                                entities
                                    .touched()
                                    .iter()
                                    .map(|&(i, _)| i)
                                    .filter(|&i| (1..=slots).contains(&i)),
                            );
                        }
                        if options.objects {
                            hand_out_entities(tick, &entities, classes, &mut each);
                        }
                    }
                }
                if let (true, true, Some(classes)) = (updated, options.entities, &classes) {
                    if all_players {
                        players_into(&entities, classes, slots, &mut player_list);
                        players_known = true;
                    } else {
                        // Only the players an update touched can have changed.
                        update_players(&entities, classes, &touched, &mut player_list);
                        debug_assert!(
                            player_list
                                == crate::source::entity::player::players_of(
                                    &entities, classes, slots
                                ),
                            "the players kept up to date are the players listed afresh"
                        );
                    }
                    each(Item::Players {
                        tick,
                        players: &player_list,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(end)
}

/// An [`Item::Entity`] for each entity the last update touched.
fn hand_out_entities(
    tick: i32,
    entities: &EntityState,
    classes: &ServerClasses,
    each: &mut impl FnMut(Item<'_>),
) {
    for &(index, change) in entities.touched() {
        let entity = entities.entity(index);
        let class = entity.and_then(|e| classes.by_id(e.class));
        let props = match (change, entity, class) {
            (EntityChange::Entered | EntityChange::Changed, Some(e), Some(c)) => EntityProps {
                classes: Some(classes),
                class: Some(c),
                entity: Some(e),
                sent_in: (change == EntityChange::Changed).then_some(entities.updates()),
            },
            _ => EntityProps::none(),
        };
        each(Item::Entity {
            tick,
            index,
            change,
            class: class.map(|c| &*c.name),
            props,
        });
    }
}

impl WalkState {
    /// Applies one message and hands out what it says; an error ends the walk.
    fn message(
        &mut self,
        offset: u64,
        tick: i32,
        message: &NetMessage,
        each: &mut impl FnMut(Item<'_>),
    ) -> Option<GameError> {
        match self.state.apply(message) {
            Err(error) => {
                return Some(GameError::Table {
                    offset,
                    tick,
                    error,
                });
            }
            Ok(Some(TableChange::Created { table, entries })) => {
                let name = self.state.tables.get(table).map(|t| t.name.as_bytes());
                if name == Some(b"userinfo") {
                    self.userinfo = Some(table);
                    self.players_changed(tick, &entries, each);
                }
            }
            Ok(Some(TableChange::Updated { table, entries })) if Some(table) == self.userinfo => {
                self.players_changed(tick, &entries, each);
            }
            Ok(_) => {}
        }
        if let Some(event) = self.state.event_of(message) {
            match event {
                Ok((descriptor, data)) => {
                    let event = SourceEvent {
                        tick,
                        descriptor,
                        values: &data.values,
                    };
                    if descriptor.name.as_bytes() == b"player_say" {
                        let slot = event
                            .get("userid")
                            .and_then(EventValue::as_i64)
                            .and_then(|id| self.slot_of(id))
                            .map(|s| s as i32);
                        let chat = SourceChat {
                            tick,
                            slot,
                            name: slot.map(|s| self.name_of_slot(s)).unwrap_or_default(),
                            kind: "player_say".into(),
                            text: event
                                .get("text")
                                .and_then(EventValue::as_str)
                                .map(|t| clean(&t.to_string_lossy()))
                                .unwrap_or_default(),
                        };
                        each(Item::Chat(&chat));
                    }
                    each(Item::Event(event));
                }
                Err(error) => {
                    return Some(GameError::Net {
                        offset,
                        tick,
                        error,
                    });
                }
            }
            return None;
        }
        // CS:GO's protobuf messages read as the structs of the other branches.
        let classic;
        let message = match message {
            NetMessage::Protobuf(p) => match p.classic() {
                Ok(Some(c)) => {
                    classic = c;
                    &classic
                }
                Ok(None) => return None,
                Err(error) => {
                    return Some(GameError::Net {
                        offset,
                        tick,
                        error,
                    });
                }
            },
            m => m,
        };
        match message {
            NetMessage::UserMessage(m) => self.user_message(tick, m.number, &m.data, each),
            NetMessage::Print(p) => {
                let text = clean(&p.text.to_string_lossy());
                each(Item::Text {
                    tick,
                    source: "print",
                    text: &text,
                });
            }
            _ => {}
        }
        None
    }
}

/// The players, chat and events of a demo in the shape every format shares, and the error
/// that ended the walk early. A player's `client_id` is its slot (entity index - 1); the
/// chat's `team` is 0 for everyone and 1 for a team channel; kills carry the weapon's
/// name in `text`.
pub fn game_log_reader<R: Read>(reader: R) -> Result<(GameLog, Option<GameError>), GameError> {
    game_log_reader_with(reader, Walk::default(), |_| {})
}

/// [`game_log_reader`] that reads what `options` asks for and also hands every item to
/// `each`, for a reader that wants the log, the typed events and the players' entities of
/// one walk.
pub fn game_log_reader_with<R: Read>(
    reader: R,
    options: Walk,
    mut each: impl FnMut(&Item<'_>),
) -> Result<(GameLog, Option<GameError>), GameError> {
    let mut log = GameLogBuilder::new();
    // User ids to slots and names, for events, which name players by user id.
    let mut users: Vec<(i64, i32, String)> = Vec::new();
    let end = walk_reader_with(reader, options, |item| {
        each(&item);
        log_item(&mut log, &mut users, item)
    })?;
    log.team_game(crate::model::TeamGame::Source(
        crate::model::SourceGame::of_game_dir(&end.game_dir),
    ));
    let mut log = log.finish(end.play.last.unwrap_or(end.last_tick));
    // What the signon said (the players there before the demo began) is in the game from
    // its first tick of play; nothing is after its last.
    if let (Some(first), Some(last)) = (end.play.first, end.play.last) {
        crate::model::keep_in_play(&mut log, first, last);
    }
    Ok((log, end.error))
}

/// Adds what one item says to the log; `users` maps user ids to slots and names.
fn log_item(log: &mut GameLogBuilder, users: &mut Vec<(i64, i32, String)>, item: Item<'_>) {
    match item {
        Item::Join { tick, slot, player } => {
            log.join(slot, tick);
            if player.hltv {
                log.camera(slot);
            }
            // The team is not the join's to say: a `player_team` event or the entity does.
            log.player_name(slot, tick, &player.name);
            users.retain(|u| u.1 != slot);
            users.push((i64::from(player.user_id), slot, player.name.clone()));
            log.event(EventLine::new(tick, EventKind::Join).by(slot, &player.name));
        }
        Item::Leave { tick, slot, player } => {
            log.leave(slot, tick);
            log.event(EventLine::new(tick, EventKind::Leave).by(slot, &player.name));
        }
        Item::Rename {
            tick, slot, player, ..
        } => {
            log.player_name(slot, tick, &player.name);
            if let Some(u) = users.iter_mut().find(|u| u.1 == slot) {
                u.2.clone_from(&player.name);
            }
            log.event(EventLine::new(tick, EventKind::Name).by(slot, &player.name));
        }
        Item::Chat(chat) => {
            log.chat(ChatLine {
                tick: chat.tick,
                client_id: chat.slot.unwrap_or(-1),
                name: chat.name.clone(),
                channel: i32::from(chat.team_only()),
                text: chat.text.clone(),
            });
        }
        Item::Event(event) => {
            let user = |key: &str| {
                let id = event.get(key).and_then(EventValue::as_i64)?;
                users.iter().find(|u| u.0 == id).map(|u| (u.1, u.2.clone()))
            };
            match &*event.name() {
                "player_death" => {
                    let mut line = EventLine::new(event.tick, EventKind::Kill);
                    if let Some((slot, name)) = user("attacker") {
                        line = line.by(slot, &name);
                    }
                    if let Some((slot, name)) = user("userid") {
                        line.victim = Some(slot);
                        line.victim_name = Some(name);
                    }
                    line.weapon_name = event
                        .get("weapon")
                        .and_then(EventValue::as_str)
                        .map(|w| w.to_string_lossy().into_owned());
                    log.event(line);
                    log.kill();
                }
                "player_team" => {
                    if let (Some((slot, name)), Some(team)) = (
                        user("userid"),
                        event.get("team").and_then(EventValue::as_i64),
                    ) {
                        let mut line = EventLine::new(event.tick, EventKind::Team).by(slot, &name);
                        line.team = Some(team as i32);
                        log.event(line);
                        log.player_team(slot, event.tick, team as i32);
                    }
                }
                _ => {}
            }
        }
        // The entities know every player's team, also where no `player_team` event said it
        // (SourceTV, players there before the recording began).
        Item::Players { tick, players } => {
            for p in players {
                if let Some(team) = p.team {
                    log.player_team(p.index as i32 - 1, tick, team as i32);
                }
            }
        }
        Item::Text { .. } | Item::Entity { .. } => {}
    }
}
