//! The network messages (`NET_*` and `SVC_*`), each laid out once.
//!
//! Every message is a struct whose `code` method walks its fields in wire order through a
//! [`Coder`]: the same description decodes and encodes, and the conditions on the
//! [`Protocol`] say where branches differ. Lengths in front of runs of bits are not
//! fields: the encoder writes the length of the run it has. Payloads that a higher layer
//! reads (string-table entries, game events, user messages, entity deltas) stay [`Bits`]
//! here.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::branch::Protocol;
use super::coder::{Coder, Length, NetStr};
use super::csgo::ProtoMessage;
use super::error::NetError;
use crate::codec::bits::{BitReader, Bits, BitsEnded};

/// A message's layout: its fields in wire order, for both directions.
pub trait Layout: Default {
    /// Decodes (or encodes) the fields after the message number.
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError>;
}

macro_rules! messages {
    ($( $(#[$doc:meta])* $kind:ident = $name:literal ),* $(,)?) => {
        /// Which message a [`NetMessage`] is, without its fields.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        #[non_exhaustive]
        pub enum MessageKind {
            $( $(#[$doc])* $kind, )*
        }

        /// One decoded network message.
        #[derive(Debug, Clone, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        #[cfg_attr(feature = "serde", serde(tag = "message"))]
        #[non_exhaustive]
        pub enum NetMessage {
            $( $(#[$doc])* #[cfg_attr(feature = "serde", serde(rename = $name))] $kind($kind), )*
            /// A CS:GO message: its kind and its protobuf body as stored
            /// ([`ProtoMessage::classic`] and [`ProtoMessage::decode`] read it).
            #[cfg_attr(feature = "serde", serde(rename = "protobuf"))]
            Protobuf(ProtoMessage),
        }

        impl MessageKind {
            /// Every kind.
            pub const ALL: &'static [MessageKind] = &[$(MessageKind::$kind),*];

            /// The engine's name for the message, e.g. `"svc_PacketEntities"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $( MessageKind::$kind => $name, )*
                }
            }

            /// A message of this kind with every field at its default, for a decoder to fill.
            pub fn empty(self) -> NetMessage {
                match self {
                    $( MessageKind::$kind => NetMessage::$kind($kind::default()), )*
                }
            }
        }

        impl NetMessage {
            /// Which message this is.
            pub fn kind(&self) -> MessageKind {
                match self {
                    $( NetMessage::$kind(_) => MessageKind::$kind, )*
                    NetMessage::Protobuf(m) => m.kind,
                }
            }

            /// Decodes (or encodes) the message's fields after its number (for a CS:GO
            /// message, its size and protobuf body).
            pub fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
                match self {
                    $( NetMessage::$kind(m) => m.code(c, p), )*
                    NetMessage::Protobuf(m) => m.code(c),
                }
            }
        }

        $(
            impl From<$kind> for NetMessage {
                fn from(m: $kind) -> Self {
                    NetMessage::$kind(m)
                }
            }
        )*
    };
}

messages! {
    /// `net_NOP`: nothing; pads a packet.
    Nop = "net_NOP",
    /// `net_Disconnect`: the server drops the client.
    Disconnect = "net_Disconnect",
    /// `net_File`: a file transfer request or denial.
    File = "net_File",
    /// `net_SplitScreenUser`: which split-screen player the next messages are for.
    SplitScreenUser = "net_SplitScreenUser",
    /// `net_Tick`: the server's tick.
    Tick = "net_Tick",
    /// `net_StringCmd`: a console command string.
    StringCmd = "net_StringCmd",
    /// `net_SetConVar`: console variables replicated to the client.
    SetConVar = "net_SetConVar",
    /// `net_SignonState`: the connection's signon state.
    SignonState = "net_SignonState",
    /// `svc_Print`: text for the client's console.
    Print = "svc_Print",
    /// `svc_ServerInfo`: the server, map and game.
    ServerInfo = "svc_ServerInfo",
    /// `svc_SendTable`: one send table (rare in demos; the data tables frame has them).
    SendTable = "svc_SendTable",
    /// `svc_ClassInfo`: the server classes.
    ClassInfo = "svc_ClassInfo",
    /// `svc_SetPause`: the game is paused or resumed.
    SetPause = "svc_SetPause",
    /// `svc_CreateStringTable`: a new string table with its first entries.
    CreateStringTable = "svc_CreateStringTable",
    /// `svc_UpdateStringTable`: changed entries of a string table.
    UpdateStringTable = "svc_UpdateStringTable",
    /// `svc_VoiceInit`: the voice codec.
    VoiceInit = "svc_VoiceInit",
    /// `svc_VoiceData`: voice data from one client.
    VoiceData = "svc_VoiceData",
    /// `svc_Sounds`: sounds to start.
    Sounds = "svc_Sounds",
    /// `svc_SetView`: the entity the view follows.
    SetView = "svc_SetView",
    /// `svc_FixAngle`: set the view angles.
    FixAngle = "svc_FixAngle",
    /// `svc_CrosshairAngle`: set the crosshair angles.
    CrosshairAngle = "svc_CrosshairAngle",
    /// `svc_BSPDecal`: a decal on the world.
    BspDecal = "svc_BSPDecal",
    /// `svc_SplitScreen`: adds or removes a split-screen player.
    SplitScreen = "svc_SplitScreen",
    /// `svc_UserMessage`: a game's own message (chat, HUD text, ...).
    UserMessage = "svc_UserMessage",
    /// `svc_EntityMessage`: a message to one entity.
    EntityMessage = "svc_EntityMessage",
    /// `svc_GameEvent`: one game event, typed by the game event list.
    GameEvent = "svc_GameEvent",
    /// `svc_PacketEntities`: entity updates against an earlier tick.
    PacketEntities = "svc_PacketEntities",
    /// `svc_TempEntities`: short-lived effect entities.
    TempEntities = "svc_TempEntities",
    /// `svc_Prefetch`: a sound to load.
    Prefetch = "svc_Prefetch",
    /// `svc_Menu`: a plugin menu.
    Menu = "svc_Menu",
    /// `svc_GameEventList`: the descriptors of every game event.
    GameEventList = "svc_GameEventList",
    /// `svc_GetCvarValue`: the server asks for a client console variable.
    GetCvarValue = "svc_GetCvarValue",
    /// `svc_CmdKeyValues`: a key-values command.
    CmdKeyValues = "svc_CmdKeyValues",
    /// `svc_PaintmapData`: Portal 2's paint map.
    PaintmapData = "svc_PaintmapData",
    /// `svc_SetPauseTimed`: TF2's pause with an end time.
    SetPauseTimed = "svc_SetPauseTimed",
    /// `svc_EncryptedData`: CS:GO's encrypted messages (caster voice, ...).
    EncryptedData = "svc_EncryptedData",
    /// `svc_HltvReplay`: CS:GO's SourceTV replay of a kill.
    HltvReplay = "svc_HltvReplay",
    /// `svc_Broadcast_Command`: a command a CS:GO broadcast relays.
    BroadcastCommand = "svc_Broadcast_Command",
    /// `net_PlayerAvatarData`: a CS:GO player's avatar picture.
    PlayerAvatarData = "net_PlayerAvatarData",
}

/// The number of bits an entity index takes (`MAX_EDICT_BITS`).
pub const ENTITY_INDEX_BITS: u32 = 11;

/// `net_NOP`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Nop {}

impl Layout for Nop {
    fn code<C: Coder>(&mut self, _: &mut C, _: Protocol) -> Result<(), NetError> {
        Ok(())
    }
}

/// `net_Disconnect`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Disconnect {
    /// Why.
    pub reason: NetStr,
}

impl Layout for Disconnect {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.string(&mut self.reason)
    }
}

/// `net_File`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct File {
    /// The transfer's id.
    pub transfer_id: u32,
    /// The file's name.
    pub file_name: NetStr,
    /// Bit 0: requested (set) or denied; demo protocol 4 stores a second, unknown bit.
    pub flags: u8,
}

impl Layout for File {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.transfer_id, 32)?;
        c.string(&mut self.file_name)?;
        c.uint(&mut self.flags, if p.is_demo4() { 2 } else { 1 })
    }
}

/// `net_SplitScreenUser`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SplitScreenUser {
    /// The split-screen slot.
    pub slot: bool,
}

impl Layout for SplitScreenUser {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.slot)
    }
}

/// `net_Tick`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tick {
    /// The server tick.
    pub tick: i32,
    /// The server's frame time in units of 1/100000 s (not in the 2004 engine).
    pub frame_time: u16,
    /// Its standard deviation, in the same units (not in the 2004 engine).
    pub frame_time_std_dev: u16,
}

impl Layout for Tick {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.int(&mut self.tick, 32)?;
        if p.tick_has_frame_time() {
            c.uint(&mut self.frame_time, 16)?;
            c.uint(&mut self.frame_time_std_dev, 16)?;
        }
        Ok(())
    }
}

/// `net_StringCmd`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StringCmd {
    /// The command line.
    pub command: NetStr,
}

impl Layout for StringCmd {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.string(&mut self.command)
    }
}

/// One console variable of a [`SetConVar`].
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ConVar {
    /// Its name.
    pub name: NetStr,
    /// Its value.
    pub value: NetStr,
}

/// `net_SetConVar`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SetConVar {
    /// The variables, at most 255.
    pub vars: Vec<ConVar>,
}

impl Layout for SetConVar {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        let mut count = self.vars.len() as u32;
        c.uint(&mut count, 8)?;
        c.list(&mut self.vars, count as usize, |c, var| {
            c.string(&mut var.name)?;
            c.string(&mut var.value)
        })
    }
}

/// `net_SignonState`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SignonState {
    /// The state (1 challenge, 2 connected, 3 new, 4 prespawn, 5 spawn, 6 full, 7 change level).
    pub state: u8,
    /// The server's spawn count.
    pub spawn_count: i32,
    /// Demo protocol 4: the players on the server.
    pub server_players: u32,
    /// Demo protocol 4: the players' network ids, as bytes.
    pub player_network_ids: Bits,
    /// Demo protocol 4: the map's name, as bytes with its NUL.
    pub map_name: Bits,
}

impl Layout for SignonState {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.state, 8)?;
        c.int(&mut self.spawn_count, 32)?;
        if p.is_demo4() {
            c.uint(&mut self.server_players, 32)?;
            c.bits(&mut self.player_network_ids, Length::Bytes(32))?;
            c.bits(&mut self.map_name, Length::Bytes(32))?;
        }
        Ok(())
    }
}

/// `svc_Print`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Print {
    /// The text.
    pub text: NetStr,
}

impl Layout for Print {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.string(&mut self.text)
    }
}

/// `svc_ServerInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ServerInfo {
    /// The server's network protocol.
    pub protocol: u16,
    /// The server's spawn count.
    pub server_count: u32,
    /// A SourceTV relay.
    pub is_hltv: bool,
    /// A dedicated server.
    pub is_dedicated: bool,
    /// Left 4 Dead 2 from build 2147: workshop add-ons restricted.
    pub restrict_workshop_addons: bool,
    /// CRC of the client DLL.
    pub client_crc: u32,
    /// Demo protocol 4: CRC of the string tables.
    pub string_table_crc: u32,
    /// The number of server classes.
    pub max_classes: u16,
    /// MD5 of the map (demo protocol 3 when `protocol` is above 17), or its CRC (32 bits).
    pub map_hash: Bits,
    /// The recording player's slot.
    pub player_slot: u8,
    /// The number of player slots.
    pub max_players: u8,
    /// Seconds per tick.
    pub tick_interval: f32,
    /// `'l'`, `'w'` or `'m'`: the server's operating system.
    pub platform: u8,
    /// The game directory.
    pub game_dir: NetStr,
    /// The map.
    pub map: NetStr,
    /// The sky box.
    pub sky: NetStr,
    /// The server's name.
    pub host_name: NetStr,
    /// Left 4 Dead 2 from build 2147: the campaign.
    pub mission: NetStr,
    /// Left 4 Dead 2 from build 2147: the mutation (game mode).
    pub mutation: NetStr,
    /// A replay server (demo protocol 3, network protocol 16 and above).
    pub is_replay: bool,
}

impl Layout for ServerInfo {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.protocol, 16)?;
        c.uint(&mut self.server_count, 32)?;
        c.bool(&mut self.is_hltv)?;
        c.bool(&mut self.is_dedicated)?;
        if p.server_info_has_mission() {
            c.bool(&mut self.restrict_workshop_addons)?;
        }
        c.uint(&mut self.client_crc, 32)?;
        if p.is_demo4() {
            c.uint(&mut self.string_table_crc, 32)?;
        }
        c.uint(&mut self.max_classes, 16)?;
        // The message's own protocol number decides, as in the engine.
        let hash_bits = if self.protocol > 17 && !p.is_demo4() {
            128
        } else {
            32
        };
        c.bits(&mut self.map_hash, Length::Given(hash_bits))?;
        c.uint(&mut self.player_slot, 8)?;
        c.uint(&mut self.max_players, 8)?;
        c.f32(&mut self.tick_interval)?;
        c.uint(&mut self.platform, 8)?;
        c.string(&mut self.game_dir)?;
        c.string(&mut self.map)?;
        c.string(&mut self.sky)?;
        c.string(&mut self.host_name)?;
        if p.server_info_has_mission() {
            c.string(&mut self.mission)?;
            c.string(&mut self.mutation)?;
        }
        if !p.is_demo4() && p.network >= 16 {
            c.bool(&mut self.is_replay)?;
        }
        Ok(())
    }
}

/// `svc_SendTable`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SendTable {
    /// The client needs a decoder for it.
    pub needs_decoder: bool,
    /// The table, as the data tables frame lays one out.
    pub data: Bits,
}

impl Layout for SendTable {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.needs_decoder)?;
        c.bits(&mut self.data, Length::Bits(16))
    }
}

/// One server class of a [`ClassInfo`].
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassEntry {
    /// The class id.
    pub id: u16,
    /// The class name.
    pub class_name: NetStr,
    /// Its send table's name.
    pub table_name: NetStr,
}

/// `svc_ClassInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassInfo {
    /// The number of server classes.
    pub count: u16,
    /// The client builds the list itself from the data tables (then `classes` is empty).
    pub create_on_client: bool,
    /// The classes, when the server sends them.
    pub classes: Vec<ClassEntry>,
}

impl Layout for ClassInfo {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.count, 16)?;
        c.bool(&mut self.create_on_client)?;
        if !self.create_on_client {
            let bits = log2(u32::from(self.count)) + 1;
            c.list(&mut self.classes, usize::from(self.count), |c, class| {
                c.uint(&mut class.id, bits)?;
                c.string(&mut class.class_name)?;
                c.string(&mut class.table_name)
            })?;
        }
        Ok(())
    }
}

/// `Q_log2`: the index of the highest set bit (0 for 0 and 1).
pub const fn log2(n: u32) -> u32 {
    if n == 0 { 0 } else { 31 - n.leading_zeros() }
}

/// `svc_SetPause`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SetPause {
    /// Paused.
    pub paused: bool,
}

impl Layout for SetPause {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.paused)
    }
}

/// Fixed-size user data of a string table's entries.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FixedUserData {
    /// Its size in bytes.
    pub size: u16,
    /// Its size in bits.
    pub bits: u8,
}

/// `svc_CreateStringTable`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CreateStringTable {
    /// The table's name (`userinfo`, `instancebaseline`, ...).
    pub name: NetStr,
    /// The most entries it can hold (a power of two).
    pub max_entries: u16,
    /// The number of entries in `data`.
    pub entries: u16,
    /// Every entry's user data has this size.
    pub fixed_user_data: Option<FixedUserData>,
    /// Flags (none before network protocol 15): bit 0 says `data` is compressed; demo
    /// protocol 4's bit 1 allows dictionary-encoded entries.
    pub flags: u8,
    /// The entries, as the string-table layer reads them.
    pub data: Bits,
}

impl Layout for CreateStringTable {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.string(&mut self.name)?;
        c.uint(&mut self.max_entries, 16)?;
        let entry_bits = log2(u32::from(self.max_entries)) + 1;
        c.uint(&mut self.entries, entry_bits)?;
        let mut length = self.data.len() as u32;
        if p.varint_lengths() {
            c.varint32(&mut length)?;
        } else {
            c.uint(&mut length, p.create_table_length_bits())?;
        }
        c.opt(&mut self.fixed_user_data, |c, fixed| {
            c.uint(&mut fixed.size, 12)?;
            c.uint(&mut fixed.bits, 4)
        })?;
        c.uint(&mut self.flags, p.create_table_flag_bits())?;
        c.bits(&mut self.data, Length::Given(length as usize))
    }
}

/// `svc_UpdateStringTable`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UpdateStringTable {
    /// The table's index, in creation order.
    pub table: u8,
    /// The number of changed entries when it is not one.
    pub changed: Option<u16>,
    /// The entries, as the string-table layer reads them.
    pub data: Bits,
}

impl Layout for UpdateStringTable {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.table, u32::from(p.table_index_bits))?;
        c.opt(&mut self.changed, |c, n| c.uint(n, 16))?;
        c.bits(&mut self.data, Length::Bits(p.update_table_length_bits()))
    }
}

/// `svc_VoiceInit`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VoiceInit {
    /// The codec's name.
    pub codec: NetStr,
    /// Its quality; 255 means a sample rate follows.
    pub quality: u8,
    /// When `quality` is 255: the sample rate, 16 bits in demo protocol 3, 32 in demo
    /// protocol 4 (where it may be a float; no known demo has it).
    pub sample_rate: u32,
}

impl Layout for VoiceInit {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.string(&mut self.codec)?;
        c.uint(&mut self.quality, 8)?;
        if self.quality == 255 {
            c.uint(&mut self.sample_rate, if p.is_demo4() { 32 } else { 16 })?;
        }
        Ok(())
    }
}

/// `svc_VoiceData`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VoiceData {
    /// The speaking client.
    pub client: u8,
    /// Heard by proximity.
    pub proximity: u8,
    /// The voice data.
    pub data: Bits,
}

impl Layout for VoiceData {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.client, 8)?;
        c.uint(&mut self.proximity, 8)?;
        c.bits(&mut self.data, Length::Bits(16))
    }
}

/// `svc_Sounds`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Sounds {
    /// One reliable sound (then `count` is 1 and not stored).
    pub reliable: bool,
    /// The number of sounds.
    pub count: u8,
    /// The sounds, delta-coded.
    pub data: Bits,
}

impl Layout for Sounds {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.reliable)?;
        if self.reliable {
            self.count = 1;
            c.bits(&mut self.data, Length::Bits(8))
        } else {
            c.uint(&mut self.count, 8)?;
            c.bits(&mut self.data, Length::Bits(16))
        }
    }
}

/// `svc_SetView`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SetView {
    /// The entity.
    pub entity: u16,
}

impl Layout for SetView {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.entity, ENTITY_INDEX_BITS)
    }
}

/// `svc_FixAngle`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FixAngle {
    /// Relative to the current angles.
    pub relative: bool,
    /// Pitch, yaw and roll in 1/65536 turns.
    pub angles: [u16; 3],
}

impl Layout for FixAngle {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.relative)?;
        for a in &mut self.angles {
            c.uint(a, 16)?;
        }
        Ok(())
    }
}

/// `svc_CrosshairAngle`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CrosshairAngle {
    /// Pitch, yaw and roll in 1/65536 turns.
    pub angles: [u16; 3],
}

impl Layout for CrosshairAngle {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        for a in &mut self.angles {
            c.uint(a, 16)?;
        }
        Ok(())
    }
}

/// `svc_BSPDecal`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BspDecal {
    /// Where, as a bit-coded vector (kept as its bits).
    pub position: Bits,
    /// The decal texture.
    pub texture: u16,
    /// The entity and model it sticks to.
    pub entity: Option<(u16, u16)>,
    /// Low priority.
    pub low_priority: bool,
}

impl Layout for BspDecal {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        code_vec_coord(c, &mut self.position)?;
        c.uint(&mut self.texture, 9)?;
        c.opt(&mut self.entity, |c, (entity, model)| {
            c.uint(entity, ENTITY_INDEX_BITS)?;
            c.uint(model, p.model_index_bits())
        })?;
        c.bool(&mut self.low_priority)
    }
}

/// A bit-coded vector (`bf_read::ReadBitVec3Coord`), kept as its bits: three presence bits,
/// then each present coordinate.
fn code_vec_coord<C: Coder>(c: &mut C, bits: &mut Bits) -> Result<(), NetError> {
    c.bits(bits, Length::Measured(vec_coord_len))
}

/// `COORD_INTEGER_BITS` and `COORD_FRACTIONAL_BITS`.
const COORD_BITS: (u32, u32) = (14, 5);

/// How many bits the bit-coded vector at the reader's position takes.
fn vec_coord_len(mut r: BitReader<'_>) -> Result<usize, BitsEnded> {
    let start = r.position();
    let present = [r.read_bool()?, r.read_bool()?, r.read_bool()?];
    for _ in present.iter().filter(|p| **p) {
        let has_int = r.read_bool()?;
        let has_frac = r.read_bool()?;
        if has_int || has_frac {
            r.skip(1)?;
        }
        if has_int {
            r.skip(COORD_BITS.0 as usize)?;
        }
        if has_frac {
            r.skip(COORD_BITS.1 as usize)?;
        }
    }
    Ok(r.position() - start)
}

/// `svc_SplitScreen` (no known demo holds one; the layout is UntitledParser's reading of
/// Portal 2's engine).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SplitScreen {
    /// Remove the player (set) or add one.
    pub remove: bool,
    /// The slot.
    pub slot: bool,
    /// The player's entity.
    pub player: u16,
}

impl Layout for SplitScreen {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.remove)?;
        c.bool(&mut self.slot)?;
        c.uint(&mut self.player, ENTITY_INDEX_BITS)
    }
}

/// `svc_UserMessage`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UserMessage {
    /// The game's message number.
    pub number: u8,
    /// The message, as the game lays it out.
    pub data: Bits,
}

impl Layout for UserMessage {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.number, 8)?;
        c.bits(&mut self.data, Length::Bits(p.user_message_length_bits()))
    }
}

/// `svc_EntityMessage`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EntityMessage {
    /// The entity.
    pub entity: u16,
    /// Its server class.
    pub class: u16,
    /// The message.
    pub data: Bits,
}

impl Layout for EntityMessage {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.entity, ENTITY_INDEX_BITS)?;
        c.uint(&mut self.class, 9)?;
        c.bits(&mut self.data, Length::Bits(11))
    }
}

/// `svc_GameEvent`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GameEvent {
    /// The event, typed by the game event list.
    pub data: Bits,
}

impl Layout for GameEvent {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bits(&mut self.data, Length::Bits(11))
    }
}

/// `svc_PacketEntities`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PacketEntities {
    /// The highest entity index plus one.
    pub max_entries: u16,
    /// The tick this update is a delta from, if any.
    pub delta_from: Option<i32>,
    /// Which of the two baselines to use.
    pub baseline: bool,
    /// The number of entities updated.
    pub updated: u16,
    /// Store the entered entities as the new baseline.
    pub update_baseline: bool,
    /// The entity updates.
    pub data: Bits,
}

impl Layout for PacketEntities {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.max_entries, ENTITY_INDEX_BITS)?;
        c.opt(&mut self.delta_from, |c, tick| c.int(tick, 32))?;
        c.bool(&mut self.baseline)?;
        c.uint(&mut self.updated, ENTITY_INDEX_BITS)?;
        let mut length = self.data.len() as u32;
        c.uint(&mut length, 20)?;
        c.bool(&mut self.update_baseline)?;
        c.bits(&mut self.data, Length::Given(length as usize))
    }
}

/// `svc_TempEntities`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TempEntities {
    /// The number of temporary entities.
    pub count: u8,
    /// The entities.
    pub data: Bits,
}

impl Layout for TempEntities {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.count, 8)?;
        if p.varint_lengths() {
            c.bits(&mut self.data, Length::VarBits)
        } else {
            c.bits(&mut self.data, Length::Bits(p.temp_entities_length_bits()))
        }
    }
}

/// `svc_Prefetch`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Prefetch {
    /// The sound's index.
    pub sound: u16,
}

impl Layout for Prefetch {
    fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.sound, p.sound_index_bits())
    }
}

/// `svc_Menu`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Menu {
    /// The dialog type.
    pub kind: u16,
    /// Its key values, as bytes.
    pub data: Bits,
}

impl Layout for Menu {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.kind, 16)?;
        c.bits(&mut self.data, Length::Bytes(16))
    }
}

/// `svc_GameEventList`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GameEventList {
    /// The number of descriptors.
    pub count: u16,
    /// The descriptors, as the game-event layer reads them.
    pub data: Bits,
}

impl Layout for GameEventList {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.uint(&mut self.count, 9)?;
        c.bits(&mut self.data, Length::Bits(20))
    }
}

/// `svc_GetCvarValue`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GetCvarValue {
    /// The cookie to answer with.
    pub cookie: i32,
    /// The variable's name.
    pub name: NetStr,
}

impl Layout for GetCvarValue {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.int(&mut self.cookie, 32)?;
        c.string(&mut self.name)
    }
}

/// `svc_CmdKeyValues`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CmdKeyValues {
    /// The key values, as bytes.
    pub data: Bits,
}

impl Layout for CmdKeyValues {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bits(&mut self.data, Length::Bytes(32))
    }
}

/// `svc_SetPauseTimed` (TF2).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SetPauseTimed {
    /// Paused.
    pub paused: bool,
    /// When the pause ends.
    pub expire_time: f32,
}

impl Layout for SetPauseTimed {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bool(&mut self.paused)?;
        c.f32(&mut self.expire_time)
    }
}

/// `svc_PaintmapData`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PaintmapData {
    /// The paint map.
    pub data: Bits,
}

impl Layout for PaintmapData {
    fn code<C: Coder>(&mut self, c: &mut C, _: Protocol) -> Result<(), NetError> {
        c.bits(&mut self.data, Length::Bits(32))
    }
}

macro_rules! protobuf_only {
    ($( $(#[$doc:meta])* $kind:ident ),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        pub struct $kind {}

        impl Layout for $kind {
            fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
                Err(NetError::new(
                    c.position(),
                    super::error::NetErrorKind::NotOnBranch {
                        message: MessageKind::$kind.name(),
                        branch: p.branch.name(),
                    },
                ))
            }
        }
    )*};
}

protobuf_only! {
    /// `svc_EncryptedData`: only CS:GO has it, as a protobuf message ([`NetMessage::Protobuf`]).
    EncryptedData,
    /// `svc_HltvReplay`: only CS:GO has it, as a protobuf message ([`NetMessage::Protobuf`]).
    HltvReplay,
    /// `svc_Broadcast_Command`: only CS:GO has it, as a protobuf message
    /// ([`NetMessage::Protobuf`]).
    BroadcastCommand,
    /// `net_PlayerAvatarData`: only CS:GO has it, as a protobuf message
    /// ([`NetMessage::Protobuf`]).
    PlayerAvatarData,
}
