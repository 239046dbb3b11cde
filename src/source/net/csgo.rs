//! CS:GO's network messages: protobuf bodies behind a varint number and a varint size.
//!
//! CS:GO (demo protocol 4, network protocol 13xxx, game directory `csgo`) keeps the demo
//! container of the other demo protocol 4 games but replaced the bit layouts of its
//! `NET_*` and `SVC_*` messages with protobuf messages (`netmessages.proto` of the
//! CS:GO engine). In a packet's data each message is its number as a varint32, the size
//! of its body in bytes as a varint32, then the body.
//!
//! A [`ProtoMessage`] keeps the body's bytes as they were: encoding writes them back
//! unchanged, so fields this crate does not describe, their order and their encoding
//! survive a round trip byte for byte, which re-serialising a typed message would not
//! promise. The typed views ([`pb`]) are decoded from those bytes on demand with
//! [`prost`], describing only the fields the layers above read; [`ProtoMessage::classic`]
//! turns the ones the shared layers consume (string tables, server info, user messages,
//! entity updates) into the same structs the bit-layout branches decode to.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::coder::{Coder, NetStr};
use super::error::{NetError, NetErrorKind};
use super::game_event::ValueType;
use super::game_event::{EventData, EventDescriptor, EventDescriptors, EventKey, EventValue};
use super::message::{self, FixedUserData, MessageKind, NetMessage};
use crate::codec::bits::Bits;
use crate::codec::string::NulStr;

/// The largest message body accepted (the engine's `NET_MAX_PAYLOAD` is 256 KiB; a
/// demo packet is at most a few hundred KiB).
const MAX_BODY: usize = 4 << 20;

/// One CS:GO message: which it is and its protobuf body, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ProtoMessage {
    /// Which message it is.
    pub kind: MessageKind,
    /// The protobuf body, as stored.
    pub body: Vec<u8>,
}

impl ProtoMessage {
    /// A message of `kind` with an empty body, for a decoder to fill.
    pub fn new(kind: MessageKind) -> Self {
        ProtoMessage {
            kind,
            body: Vec::new(),
        }
    }

    /// A message of `kind` whose body is `message` serialised.
    pub fn of<M: prost::Message>(kind: MessageKind, message: &M) -> Self {
        ProtoMessage {
            kind,
            body: message.encode_to_vec(),
        }
    }

    /// Decodes (or encodes) the body after the message number: its size as a varint32,
    /// then its bytes.
    pub fn code<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        let at = c.position();
        let mut size = u32::try_from(self.body.len()).map_err(|_| {
            NetError::new(
                at,
                NetErrorKind::TooLong {
                    len: self.body.len(),
                    max: u64::from(u32::MAX),
                },
            )
        })?;
        c.varint32(&mut size)?;
        if C::READING {
            let size = size as usize;
            // Check against what is left before allocating.
            if size > MAX_BODY || c.remaining().is_some_and(|bits| bits / 8 < size) {
                return Err(NetError::new(
                    c.position(),
                    NetErrorKind::Ended {
                        wanted: size.saturating_mul(8),
                    },
                ));
            }
            self.body.clear();
            self.body.resize(size, 0);
        }
        c.bytes(&mut self.body)
    }

    /// The body as the typed message `M`.
    pub fn decode<M: prost::Message + Default>(&self) -> Result<M, NetError> {
        M::decode(self.body.as_slice()).map_err(|_| invalid("a protobuf body that does not decode"))
    }

    /// The message as the struct the bit-layout branches decode it to, for the messages
    /// the shared layers read: `svc_ServerInfo`, `svc_ClassInfo`, `svc_CreateStringTable`,
    /// `svc_UpdateStringTable`, `svc_Print`, `svc_UserMessage`, `svc_PacketEntities`,
    /// `svc_TempEntities`, `svc_EntityMessage`, `net_Tick` and `net_StringCmd`. Others give
    /// `None`: their protobuf view is in [`pb`]. A field the classic struct cannot hold
    /// (a value too wide) is refused.
    pub fn classic(&self) -> Result<Option<NetMessage>, NetError> {
        Ok(Some(match self.kind {
            MessageKind::ServerInfo => {
                let m: pb::ServerInfo = self.decode()?;
                message::ServerInfo {
                    protocol: narrow(m.protocol.unwrap_or(0), "protocol")?,
                    server_count: m.server_count.unwrap_or(0) as u32,
                    is_hltv: m.is_hltv.unwrap_or(false),
                    is_dedicated: m.is_dedicated.unwrap_or(false),
                    client_crc: m.client_crc.unwrap_or(0),
                    string_table_crc: m.string_table_crc.unwrap_or(0),
                    max_classes: narrow(m.max_classes.unwrap_or(0), "max_classes")?,
                    map_hash: Bits::from_bytes(m.map_crc.unwrap_or(0).to_le_bytes().to_vec()),
                    player_slot: narrow(m.player_slot.unwrap_or(0), "player_slot")?,
                    max_players: narrow(m.max_clients.unwrap_or(0), "max_clients")?,
                    tick_interval: m.tick_interval.unwrap_or(0.0),
                    platform: narrow(m.c_os.unwrap_or(0), "c_os")?,
                    game_dir: text(m.game_dir),
                    map: text(m.map_name),
                    sky: text(m.sky_name),
                    host_name: text(m.host_name),
                    ..Default::default()
                }
                .into()
            }
            MessageKind::ClassInfo => {
                let m: pb::ClassInfo = self.decode()?;
                message::ClassInfo {
                    count: narrow(m.classes.len() as i64, "the class count")?,
                    create_on_client: m.create_on_client.unwrap_or(false),
                    classes: m
                        .classes
                        .into_iter()
                        .map(|c| {
                            Ok(message::ClassEntry {
                                id: narrow(c.class_id.unwrap_or(0), "class_id")?,
                                class_name: text(c.class_name),
                                table_name: text(c.data_table_name),
                            })
                        })
                        .collect::<Result<_, NetError>>()?,
                }
                .into()
            }
            MessageKind::CreateStringTable => {
                let m: pb::CreateStringTable = self.decode()?;
                let fixed = m.user_data_fixed_size.unwrap_or(false);
                message::CreateStringTable {
                    name: text(m.name),
                    max_entries: narrow(m.max_entries.unwrap_or(0), "max_entries")?,
                    entries: narrow(m.num_entries.unwrap_or(0), "num_entries")?,
                    fixed_user_data: if fixed {
                        Some(FixedUserData {
                            size: narrow(m.user_data_size.unwrap_or(0), "user_data_size")?,
                            bits: narrow(
                                m.user_data_size_bits.unwrap_or(0),
                                "user_data_size_bits",
                            )?,
                        })
                    } else {
                        None
                    },
                    // CS:GO's flags are the table's (bit 0: dictionary-encoded entries
                    // allowed) and its entries are never compressed: the classic view
                    // moves them up by one, past the compressed bit.
                    flags: narrow(i64::from(m.flags.unwrap_or(0)) << 1, "flags")?,
                    data: Bits::from_bytes(m.string_data.unwrap_or_default()),
                }
                .into()
            }
            MessageKind::UpdateStringTable => {
                let m: pb::UpdateStringTable = self.decode()?;
                message::UpdateStringTable {
                    table: narrow(m.table_id.unwrap_or(0), "table_id")?,
                    changed: Some(narrow(
                        m.num_changed_entries.unwrap_or(0),
                        "num_changed_entries",
                    )?),
                    data: Bits::from_bytes(m.string_data.unwrap_or_default()),
                }
                .into()
            }
            MessageKind::Print => {
                let m: pb::Print = self.decode()?;
                message::Print { text: text(m.text) }.into()
            }
            MessageKind::StringCmd => {
                let m: pb::StringCmd = self.decode()?;
                message::StringCmd {
                    command: text(m.command),
                }
                .into()
            }
            MessageKind::Tick => {
                let m: pb::Tick = self.decode()?;
                message::Tick {
                    tick: m.tick.unwrap_or(0) as i32,
                    ..Default::default()
                }
                .into()
            }
            MessageKind::UserMessage => {
                let m: pb::UserMessage = self.decode()?;
                message::UserMessage {
                    number: narrow(m.msg_type.unwrap_or(0), "msg_type")?,
                    data: Bits::from_bytes(m.msg_data.unwrap_or_default()),
                }
                .into()
            }
            MessageKind::PacketEntities => {
                let m: pb::PacketEntities = self.decode()?;
                message::PacketEntities {
                    max_entries: narrow(m.max_entries.unwrap_or(0), "max_entries")?,
                    delta_from: m
                        .is_delta
                        .unwrap_or(false)
                        .then_some(m.delta_from.unwrap_or(0)),
                    baseline: m.baseline.unwrap_or(0) != 0,
                    updated: narrow(m.updated_entries.unwrap_or(0), "updated_entries")?,
                    update_baseline: m.update_baseline.unwrap_or(false),
                    data: Bits::from_bytes(m.entity_data.unwrap_or_default()),
                }
                .into()
            }
            MessageKind::TempEntities => {
                let m: pb::TempEntities = self.decode()?;
                message::TempEntities {
                    count: narrow(m.num_entries.unwrap_or(0), "num_entries")?,
                    data: Bits::from_bytes(m.entity_data.unwrap_or_default()),
                }
                .into()
            }
            MessageKind::EntityMessage => {
                let m: pb::EntityMsg = self.decode()?;
                message::EntityMessage {
                    entity: narrow(m.ent_index.unwrap_or(0), "ent_index")?,
                    class: narrow(m.class_id.unwrap_or(0), "class_id")?,
                    data: Bits::from_bytes(m.ent_data.unwrap_or_default()),
                }
                .into()
            }
            _ => return Ok(None),
        }))
    }
}

impl ProtoMessage {
    /// The CS:GO message for a classic one the writers build, the other way from
    /// [`classic`](Self::classic): `net_Tick`, `svc_UpdateStringTable` (its entries as
    /// they are) and `svc_PacketEntities` (its data padded to whole bytes, as CS:GO's
    /// `entity_data` is); `None` for other messages.
    pub fn from_classic(message: &NetMessage) -> Option<ProtoMessage> {
        Some(match message {
            NetMessage::Tick(m) => ProtoMessage::of(
                MessageKind::Tick,
                &pb::Tick {
                    tick: Some(m.tick as u32),
                },
            ),
            NetMessage::UpdateStringTable(m) => ProtoMessage::of(
                MessageKind::UpdateStringTable,
                &pb::UpdateStringTable {
                    table_id: Some(i32::from(m.table)),
                    num_changed_entries: Some(i32::from(m.changed.unwrap_or(1))),
                    string_data: Some(m.data.as_bytes().to_vec()),
                },
            ),
            NetMessage::PacketEntities(m) => ProtoMessage::of(
                MessageKind::PacketEntities,
                &pb::PacketEntities {
                    max_entries: Some(i32::from(m.max_entries)),
                    updated_entries: Some(i32::from(m.updated)),
                    is_delta: Some(m.delta_from.is_some()),
                    update_baseline: Some(m.update_baseline),
                    baseline: Some(i32::from(m.baseline)),
                    delta_from: Some(m.delta_from.unwrap_or(-1)),
                    entity_data: Some(m.data.as_bytes().to_vec()),
                },
            ),
            _ => return None,
        })
    }
}

/// `body` (a protobuf message) with each occurrence of its length-delimited field `field`
/// put through `edit`: a new value, or `None` to keep the old. Every other field is kept
/// byte for byte, the ones the [`pb`] structs do not name too (encoding a decoded struct
/// again would drop them). `None` when the body does not read as protobuf.
pub fn edit_bytes_field(
    body: &[u8],
    field: u32,
    mut edit: impl FnMut(&[u8]) -> Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    use prost::encoding::{WireType, decode_key, decode_varint, encode_key, encode_varint};
    let mut rest = body;
    let mut out = Vec::with_capacity(body.len());
    while !rest.is_empty() {
        let start = rest;
        let (tag, wire) = decode_key(&mut rest).ok()?;
        let value_len = match wire {
            WireType::Varint => {
                decode_varint(&mut rest).ok()?;
                0
            }
            WireType::SixtyFourBit => 8,
            WireType::ThirtyTwoBit => 4,
            WireType::LengthDelimited => usize::try_from(decode_varint(&mut rest).ok()?).ok()?,
            WireType::StartGroup | WireType::EndGroup => return None,
        };
        let (value, after) = rest.split_at_checked(value_len)?;
        rest = after;
        // `rest` is what is left of `start`: the field is what was read off it.
        let whole = start.get(..start.len() - rest.len())?;
        match (wire, tag == field) {
            (WireType::LengthDelimited, true) => match edit(value) {
                Some(new) => {
                    encode_key(tag, WireType::LengthDelimited, &mut out);
                    encode_varint(new.len() as u64, &mut out);
                    out.extend_from_slice(&new);
                }
                None => out.extend_from_slice(whole),
            },
            _ => out.extend_from_slice(whole),
        }
    }
    Some(out)
}

fn invalid(what: &'static str) -> NetError {
    NetError::new(0, NetErrorKind::Invalid { what })
}

/// A protobuf integer in a narrower field of a classic struct.
fn narrow<T: TryFrom<i64>>(v: impl Into<i64>, _field: &'static str) -> Result<T, NetError> {
    T::try_from(v.into()).map_err(|_| invalid("a protobuf field too wide for its classic field"))
}

/// A protobuf string (kept as bytes: names need not be UTF-8) as a network string (cut at a NUL, which a C string cannot hold).
fn text(s: Option<Vec<u8>>) -> NetStr {
    let mut bytes = s.unwrap_or_default();
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    NulStr(bytes)
}

/// The descriptors of a CS:GO `svc_GameEventList`.
pub fn event_descriptors(list: &ProtoMessage) -> Result<EventDescriptors, NetError> {
    let m: pb::GameEventList = list.decode()?;
    let descriptors = m
        .descriptors
        .into_iter()
        .map(|d| {
            Ok(EventDescriptor {
                id: narrow(d.eventid.unwrap_or(0), "eventid")?,
                name: text(d.name),
                keys: d
                    .keys
                    .into_iter()
                    .map(|k| {
                        Ok(EventKey {
                            ty: value_type(k.r#type.unwrap_or(0))?,
                            name: text(k.name),
                        })
                    })
                    .collect::<Result<_, NetError>>()?,
            })
        })
        .collect::<Result<_, NetError>>()?;
    Ok(EventDescriptors { descriptors })
}

/// A key type of CS:GO's event list: the bit-layout types 1 to 7, and 8, a wide string,
/// read as a string.
fn value_type(ty: i32) -> Result<ValueType, NetError> {
    Ok(match ty {
        1 | 8 => ValueType::String,
        2 => ValueType::Float,
        3 => ValueType::Long,
        4 => ValueType::Short,
        5 => ValueType::Byte,
        6 => ValueType::Bool,
        7 => ValueType::Uint64,
        _ => return Err(invalid("an event key type above 8")),
    })
}

/// A CS:GO `svc_GameEvent` typed by the demo's descriptors: its values in the
/// descriptor's key order, each taken from the protobuf field of its key's type.
pub fn event_data(event: &ProtoMessage, list: &EventDescriptors) -> Result<EventData, NetError> {
    let m: pb::GameEvent = event.decode()?;
    let id: u16 = narrow(m.eventid.unwrap_or(0), "eventid")?;
    let descriptor = list
        .get(id)
        .ok_or(invalid("an event id the game event list does not declare"))?;
    if m.keys.len() != descriptor.keys.len() {
        return Err(invalid(
            "an event with another number of keys than its descriptor",
        ));
    }
    let values = m
        .keys
        .into_iter()
        .zip(&descriptor.keys)
        .map(|(k, d)| {
            Ok(match d.ty {
                ValueType::String => EventValue::String(match k.val_wstring {
                    Some(w) if k.r#type == Some(8) => NulStr(w),
                    _ => text(k.val_string),
                }),
                ValueType::Float => EventValue::Float(k.val_float.unwrap_or(0.0)),
                ValueType::Long => EventValue::Long(k.val_long.unwrap_or(0)),
                ValueType::Short => EventValue::Short(k.val_short.unwrap_or(0) as i16),
                ValueType::Byte => EventValue::Byte(k.val_byte.unwrap_or(0) as u8),
                ValueType::Bool => EventValue::Bool(k.val_bool.unwrap_or(false)),
                ValueType::Uint64 => EventValue::Uint64(k.val_uint64.unwrap_or(0)),
            })
        })
        .collect::<Result<_, NetError>>()?;
    Ok(EventData { id, values })
}

/// The typed views of CS:GO's protobuf messages: only the fields this crate reads, with
/// the field numbers of the CS:GO engine's `netmessages.proto` and
/// `cstrike15_usermessages.proto` (proto2, every field optional). Decoding skips the
/// fields not described; the wire form is the [`ProtoMessage`]'s bytes.
pub mod pb {
    /// `CNETMsg_Tick`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tick {
        /// The server tick.
        #[prost(uint32, optional, tag = "1")]
        pub tick: Option<u32>,
    }

    /// `CNETMsg_StringCmd`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StringCmd {
        /// The command.
        #[prost(bytes = "vec", optional, tag = "1")]
        pub command: Option<Vec<u8>>,
    }

    /// `CNETMsg_SignonState`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SignonState {
        /// The signon state.
        #[prost(uint32, optional, tag = "1")]
        pub signon_state: Option<u32>,
        /// The spawn count.
        #[prost(uint32, optional, tag = "2")]
        pub spawn_count: Option<u32>,
        /// The number of players on the server.
        #[prost(uint32, optional, tag = "3")]
        pub num_server_players: Option<u32>,
        /// The map.
        #[prost(bytes = "vec", optional, tag = "5")]
        pub map_name: Option<Vec<u8>>,
    }

    /// `CSVCMsg_ServerInfo`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ServerInfo {
        /// The server's network protocol.
        #[prost(int32, optional, tag = "1")]
        pub protocol: Option<i32>,
        /// The server's spawn count.
        #[prost(int32, optional, tag = "2")]
        pub server_count: Option<i32>,
        /// A dedicated server.
        #[prost(bool, optional, tag = "3")]
        pub is_dedicated: Option<bool>,
        /// A SourceTV relay.
        #[prost(bool, optional, tag = "5")]
        pub is_hltv: Option<bool>,
        /// The server's operating system (`'l'`, `'w'`).
        #[prost(int32, optional, tag = "7")]
        pub c_os: Option<i32>,
        /// CRC of the map.
        #[prost(fixed32, optional, tag = "8")]
        pub map_crc: Option<u32>,
        /// CRC of the client DLL.
        #[prost(fixed32, optional, tag = "9")]
        pub client_crc: Option<u32>,
        /// CRC of the string tables.
        #[prost(fixed32, optional, tag = "10")]
        pub string_table_crc: Option<u32>,
        /// The number of player slots.
        #[prost(int32, optional, tag = "11")]
        pub max_clients: Option<i32>,
        /// The number of server classes.
        #[prost(int32, optional, tag = "12")]
        pub max_classes: Option<i32>,
        /// The recording player's slot.
        #[prost(int32, optional, tag = "13")]
        pub player_slot: Option<i32>,
        /// Seconds per tick.
        #[prost(float, optional, tag = "14")]
        pub tick_interval: Option<f32>,
        /// The game directory.
        #[prost(bytes = "vec", optional, tag = "15")]
        pub game_dir: Option<Vec<u8>>,
        /// The map.
        #[prost(bytes = "vec", optional, tag = "16")]
        pub map_name: Option<Vec<u8>>,
        /// The map group.
        #[prost(bytes = "vec", optional, tag = "17")]
        pub map_group_name: Option<Vec<u8>>,
        /// The sky box.
        #[prost(bytes = "vec", optional, tag = "18")]
        pub sky_name: Option<Vec<u8>>,
        /// The server's name.
        #[prost(bytes = "vec", optional, tag = "19")]
        pub host_name: Option<Vec<u8>>,
    }

    /// One class of `CSVCMsg_ClassInfo`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Class {
        /// The class id.
        #[prost(int32, optional, tag = "1")]
        pub class_id: Option<i32>,
        /// Its send table's name.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub data_table_name: Option<Vec<u8>>,
        /// The class name.
        #[prost(bytes = "vec", optional, tag = "3")]
        pub class_name: Option<Vec<u8>>,
    }

    /// `CSVCMsg_ClassInfo`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ClassInfo {
        /// The client builds the classes from the data tables.
        #[prost(bool, optional, tag = "1")]
        pub create_on_client: Option<bool>,
        /// The classes, when the server sends them.
        #[prost(message, repeated, tag = "2")]
        pub classes: Vec<Class>,
    }

    /// One prop of `CSVCMsg_SendTable`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SendProp {
        /// Its type (`DPT_*`).
        #[prost(int32, optional, tag = "1")]
        pub r#type: Option<i32>,
        /// Its name.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub var_name: Option<Vec<u8>>,
        /// Its flags (`SPROP_*`).
        #[prost(int32, optional, tag = "3")]
        pub flags: Option<i32>,
        /// Its priority.
        #[prost(int32, optional, tag = "4")]
        pub priority: Option<i32>,
        /// The send table it links to (data table props).
        #[prost(bytes = "vec", optional, tag = "5")]
        pub dt_name: Option<Vec<u8>>,
        /// The number of elements (arrays).
        #[prost(int32, optional, tag = "6")]
        pub num_elements: Option<i32>,
        /// The lowest value (floats).
        #[prost(float, optional, tag = "7")]
        pub low_value: Option<f32>,
        /// The highest value (floats).
        #[prost(float, optional, tag = "8")]
        pub high_value: Option<f32>,
        /// The number of bits.
        #[prost(int32, optional, tag = "9")]
        pub num_bits: Option<i32>,
    }

    /// `CSVCMsg_SendTable`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SendTable {
        /// The end of the list of tables (an empty table).
        #[prost(bool, optional, tag = "1")]
        pub is_end: Option<bool>,
        /// The table's name.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub net_table_name: Option<Vec<u8>>,
        /// The client needs a decoder for it.
        #[prost(bool, optional, tag = "3")]
        pub needs_decoder: Option<bool>,
        /// The props.
        #[prost(message, repeated, tag = "4")]
        pub props: Vec<SendProp>,
    }

    /// `CSVCMsg_CreateStringTable`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct CreateStringTable {
        /// The table's name.
        #[prost(bytes = "vec", optional, tag = "1")]
        pub name: Option<Vec<u8>>,
        /// The most entries it can hold.
        #[prost(int32, optional, tag = "2")]
        pub max_entries: Option<i32>,
        /// The number of entries in `string_data`.
        #[prost(int32, optional, tag = "3")]
        pub num_entries: Option<i32>,
        /// Every entry's user data has the same size.
        #[prost(bool, optional, tag = "4")]
        pub user_data_fixed_size: Option<bool>,
        /// That size in bytes.
        #[prost(int32, optional, tag = "5")]
        pub user_data_size: Option<i32>,
        /// That size in bits.
        #[prost(int32, optional, tag = "6")]
        pub user_data_size_bits: Option<i32>,
        /// The table's flags (bit 0: dictionary-encoded entries allowed); unlike the bit
        /// layouts', none says `string_data` is compressed.
        #[prost(int32, optional, tag = "7")]
        pub flags: Option<i32>,
        /// The entries, a bit stream.
        #[prost(bytes = "vec", optional, tag = "8")]
        pub string_data: Option<Vec<u8>>,
    }

    /// `CSVCMsg_UpdateStringTable`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct UpdateStringTable {
        /// The table, by creation order.
        #[prost(int32, optional, tag = "1")]
        pub table_id: Option<i32>,
        /// The number of entries in `string_data`.
        #[prost(int32, optional, tag = "2")]
        pub num_changed_entries: Option<i32>,
        /// The entries, a bit stream.
        #[prost(bytes = "vec", optional, tag = "3")]
        pub string_data: Option<Vec<u8>>,
    }

    /// `CSVCMsg_Print`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Print {
        /// The text.
        #[prost(bytes = "vec", optional, tag = "1")]
        pub text: Option<Vec<u8>>,
    }

    /// `CSVCMsg_UserMessage`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct UserMessage {
        /// The game's message number (`ECstrike15UserMessages`).
        #[prost(int32, optional, tag = "1")]
        pub msg_type: Option<i32>,
        /// The user message, itself a protobuf message.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub msg_data: Option<Vec<u8>>,
    }

    /// `CSVCMsg_EntityMsg`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EntityMsg {
        /// The entity.
        #[prost(int32, optional, tag = "1")]
        pub ent_index: Option<i32>,
        /// Its server class.
        #[prost(int32, optional, tag = "2")]
        pub class_id: Option<i32>,
        /// The message, a bit stream.
        #[prost(bytes = "vec", optional, tag = "3")]
        pub ent_data: Option<Vec<u8>>,
    }

    /// One key of a `CSVCMsg_GameEventList` descriptor.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DescriptorKey {
        /// Its type (1 string ... 7 uint64, 8 wide string).
        #[prost(int32, optional, tag = "1")]
        pub r#type: Option<i32>,
        /// Its name.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub name: Option<Vec<u8>>,
    }

    /// One descriptor of `CSVCMsg_GameEventList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Descriptor {
        /// The event's id.
        #[prost(int32, optional, tag = "1")]
        pub eventid: Option<i32>,
        /// Its name.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub name: Option<Vec<u8>>,
        /// Its keys.
        #[prost(message, repeated, tag = "3")]
        pub keys: Vec<DescriptorKey>,
    }

    /// `CSVCMsg_GameEventList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GameEventList {
        /// The descriptors.
        #[prost(message, repeated, tag = "1")]
        pub descriptors: Vec<Descriptor>,
    }

    /// One value of `CSVCMsg_GameEvent`: its type and the field of that type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EventKey {
        /// Its type, as in the descriptor.
        #[prost(int32, optional, tag = "1")]
        pub r#type: Option<i32>,
        /// A string.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub val_string: Option<Vec<u8>>,
        /// A float.
        #[prost(float, optional, tag = "3")]
        pub val_float: Option<f32>,
        /// A long.
        #[prost(int32, optional, tag = "4")]
        pub val_long: Option<i32>,
        /// A short.
        #[prost(int32, optional, tag = "5")]
        pub val_short: Option<i32>,
        /// A byte.
        #[prost(int32, optional, tag = "6")]
        pub val_byte: Option<i32>,
        /// A bool.
        #[prost(bool, optional, tag = "7")]
        pub val_bool: Option<bool>,
        /// A 64-bit value.
        #[prost(uint64, optional, tag = "8")]
        pub val_uint64: Option<u64>,
        /// A wide string, as bytes.
        #[prost(bytes = "vec", optional, tag = "9")]
        pub val_wstring: Option<Vec<u8>>,
    }

    /// `CSVCMsg_GameEvent`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GameEvent {
        /// The event's name (unset in demos: the id names it).
        #[prost(bytes = "vec", optional, tag = "1")]
        pub event_name: Option<Vec<u8>>,
        /// The descriptor's id.
        #[prost(int32, optional, tag = "2")]
        pub eventid: Option<i32>,
        /// The values, in the descriptor's key order.
        #[prost(message, repeated, tag = "3")]
        pub keys: Vec<EventKey>,
    }

    /// `CNETMsg_SetConVar`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SetConVar {
        /// The variables.
        #[prost(message, optional, tag = "1")]
        pub convars: Option<ConVars>,
    }

    /// `CMsg_CVars`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ConVars {
        /// Each variable.
        #[prost(message, repeated, tag = "1")]
        pub cvars: Vec<ConVar>,
    }

    /// `CMsg_CVars.CVar`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ConVar {
        /// Its name (unset when `dictionary_name` names it).
        #[prost(bytes = "vec", optional, tag = "1")]
        pub name: Option<Vec<u8>>,
        /// Its value.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub value: Option<Vec<u8>>,
        /// Its name as an index into the engine's dictionary of names.
        #[prost(uint32, optional, tag = "3")]
        pub dictionary_name: Option<u32>,
    }

    /// `CSVCMsg_PacketEntities`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct PacketEntities {
        /// The highest entity index plus one.
        #[prost(int32, optional, tag = "1")]
        pub max_entries: Option<i32>,
        /// The number of entities updated.
        #[prost(int32, optional, tag = "2")]
        pub updated_entries: Option<i32>,
        /// A delta from `delta_from`.
        #[prost(bool, optional, tag = "3")]
        pub is_delta: Option<bool>,
        /// Store the entered entities as the new baseline.
        #[prost(bool, optional, tag = "4")]
        pub update_baseline: Option<bool>,
        /// Which of the two baselines to use.
        #[prost(int32, optional, tag = "5")]
        pub baseline: Option<i32>,
        /// The tick this update is a delta from.
        #[prost(int32, optional, tag = "6")]
        pub delta_from: Option<i32>,
        /// The entity updates, a bit stream.
        #[prost(bytes = "vec", optional, tag = "7")]
        pub entity_data: Option<Vec<u8>>,
    }

    /// `CSVCMsg_TempEntities`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TempEntities {
        /// Reliable.
        #[prost(bool, optional, tag = "1")]
        pub reliable: Option<bool>,
        /// The number of temporary entities.
        #[prost(int32, optional, tag = "2")]
        pub num_entries: Option<i32>,
        /// The entities, a bit stream.
        #[prost(bytes = "vec", optional, tag = "3")]
        pub entity_data: Option<Vec<u8>>,
    }

    /// `CCSUsrMsg_SayText` (user message 5).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SayText {
        /// The speaker's entity index (player slot + 1), 0 the server.
        #[prost(int32, optional, tag = "1")]
        pub ent_idx: Option<i32>,
        /// The text.
        #[prost(bytes = "vec", optional, tag = "2")]
        pub text: Option<Vec<u8>>,
        /// Shown in the chat.
        #[prost(bool, optional, tag = "3")]
        pub chat: Option<bool>,
        /// Shown in everyone's chat.
        #[prost(bool, optional, tag = "4")]
        pub textallchat: Option<bool>,
    }

    /// `CCSUsrMsg_SayText2` (user message 6).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SayText2 {
        /// The speaker's entity index (player slot + 1), 0 the server.
        #[prost(int32, optional, tag = "1")]
        pub ent_idx: Option<i32>,
        /// Shown in the chat.
        #[prost(bool, optional, tag = "2")]
        pub chat: Option<bool>,
        /// The format token (`Cstrike_Chat_All`, ...).
        #[prost(bytes = "vec", optional, tag = "3")]
        pub msg_name: Option<Vec<u8>>,
        /// The parameters: the speaker's name, the text, ...
        #[prost(bytes = "vec", repeated, tag = "4")]
        pub params: Vec<Vec<u8>>,
        /// Shown in everyone's chat.
        #[prost(bool, optional, tag = "5")]
        pub textallchat: Option<bool>,
    }

    /// `CCSUsrMsg_TextMsg` (user message 7).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TextMsg {
        /// Where it shows: 1 notify, 2 console, 3 chat, 4 centre.
        #[prost(int32, optional, tag = "1")]
        pub msg_dst: Option<i32>,
        /// The text or its token, then its parameters.
        #[prost(bytes = "vec", repeated, tag = "3")]
        pub params: Vec<Vec<u8>>,
    }
}
