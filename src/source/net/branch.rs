//! Engine branches: which network messages a build has, under which numbers, and the
//! widths its layouts use.
//!
//! Source 1 forked its network code several times. The header's demo protocol, network
//! protocol and game directory say which fork wrote a demo ([`Protocol::of_header`]);
//! two details are learned from the data itself ([`Protocol::learn`]). Every layout
//! decision of the message layer asks the [`Protocol`], never the game. The rules were
//! checked on real demos of every branch (the corpus's `real-fixtures/source` and the sample
//! demos of UntitledParser); `docs/source-net.md` lists them with their evidence.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::message::{MessageKind, NetMessage};
use crate::source::format::Header;

/// A fork of the engine's network code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Branch {
    /// Demo protocol 3 and older: Half-Life 2's 2004 engine (network protocol 7), Portal 1's
    /// early builds (14, 15), the Orange Box (15 to 23) and Source 2013 / Steampipe (24:
    /// TF2, HL2, HL2DM, CS:S, DoD:S, Portal 1). Within it, layouts follow the network
    /// protocol number.
    Classic,
    /// Left 4 Dead (demo protocol 4, network protocol 37 and 1030 to 1050).
    Left4Dead,
    /// Left 4 Dead 2 (demo protocol 4, game directory `left4dead2`).
    Left4Dead2,
    /// Portal 2 and the mods built on it (demo protocol 4, network protocol 2001), and
    /// Portal Reloaded (1000).
    Portal2,
    /// Counter-Strike: Global Offensive (demo protocol 4, network protocol 13000 to 13999,
    /// game directory `csgo`): protobuf messages behind a varint number and size
    /// ([`super::csgo`]); string-table entries and entity data keep Portal 2's bits.
    CsGo,
}

impl Branch {
    /// The branch's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Branch::Classic => "the Half-Life 2 / Orange Box engine",
            Branch::Left4Dead => "the Left 4 Dead engine",
            Branch::Left4Dead2 => "the Left 4 Dead 2 engine",
            Branch::Portal2 => "the Portal 2 engine",
            Branch::CsGo => "the CS:GO engine",
        }
    }
}

/// The network protocol of one demo: its branch, the build's protocol number and what
/// the data has told about the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Protocol {
    /// The fork of the engine.
    pub branch: Branch,
    /// The header's network protocol number.
    pub network: i32,
    /// Left 4 Dead 2's build (2000 to 2220) as the layouts tell them apart; the network
    /// protocol elsewhere. Network protocol 2042 covers builds whose layouts differ, told
    /// apart by the server's first `svc_Print`.
    pub build: i32,
    /// Bits of `svc_UpdateStringTable`'s table index: 5, except some builds of the 2004
    /// engine that use 4 ([`Messages`](super::Messages) tells them apart on the first
    /// update).
    pub table_index_bits: u8,
    /// Whether `table_index_bits` is known yet.
    pub table_index_bits_known: bool,
}

impl Protocol {
    /// The protocol a header names, or `None` for one whose messages this layer does not
    /// decode.
    pub fn of_header(header: &Header) -> Option<Protocol> {
        let network = header.network_protocol;
        let game_dir = header.game_dir.text_bytes();
        let branch = match header.demo_protocol {
            2 | 3 if (1..=24).contains(&network) => Branch::Classic,
            4 if game_dir.starts_with(b"left4dead2") && (2000..=2220).contains(&network) => {
                Branch::Left4Dead2
            }
            4 if game_dir.starts_with(b"left4dead")
                && (network == 37 || (1030..=1050).contains(&network)) =>
            {
                Branch::Left4Dead
            }
            4 if network == 2001 => Branch::Portal2,
            // Portal Reloaded, a game of its own on Portal 2's engine, numbers its protocol
            // apart; its messages are Portal 2's. (Portal Revolution's 13703 is not: it
            // sends a message 62 Portal 2 does not have.)
            4 if network == 1000 && game_dir.eq_ignore_ascii_case(b"portalreloaded") => {
                Branch::Portal2
            }
            4 if game_dir.eq_ignore_ascii_case(b"csgo") && (13000..=13999).contains(&network) => {
                Branch::CsGo
            }
            _ => return None,
        };
        let build = match (branch, network) {
            (Branch::Left4Dead2, 2100..) => 2203,
            _ => network,
        };
        Some(Protocol {
            branch,
            network,
            build,
            table_index_bits: 5,
            // Only the 2004 engine has builds with 4-bit indexes.
            table_index_bits_known: !(branch == Branch::Classic && network <= 7),
        })
    }

    /// Learns what a message tells about the build: Left 4 Dead 2's server prints its build
    /// number before `svc_ServerInfo`, and network protocol 2042 covers builds with
    /// different layouts.
    pub fn learn(&mut self, message: &NetMessage) {
        if let NetMessage::Print(print) = message
            && self.branch == Branch::Left4Dead2
            && self.network == 2042
            && self.build == 2042
            && let Some(build) = print_build(print.text.as_bytes())
        {
            self.build = match build {
                6403.. => 2147,
                4710.. => 2091,
                _ => 2042,
            };
        }
    }

    /// Demo protocol 4's branches.
    pub const fn is_demo4(self) -> bool {
        !matches!(self.branch, Branch::Classic)
    }

    /// Whether messages are protobuf bodies behind a varint number and size (CS:GO).
    pub const fn is_protobuf(self) -> bool {
        matches!(self.branch, Branch::CsGo)
    }

    /// How many bits a message number takes (CS:GO: a varint32 of at least 8 bits).
    pub const fn type_bits(self) -> u32 {
        match self.branch {
            Branch::CsGo => 8,
            Branch::Classic if self.network <= 14 => 5,
            Branch::Left4Dead if self.network <= 37 => 5,
            _ => 6,
        }
    }

    /// Whether `net_Tick` carries the frame time and its deviation (not the 2004 engine).
    pub const fn tick_has_frame_time(self) -> bool {
        self.network >= 11
    }

    /// Whether lengths of string-table and temporary-entity data are varint32s (Source
    /// 2013 / Steampipe).
    pub const fn varint_lengths(self) -> bool {
        matches!(self.branch, Branch::Classic) && self.network >= 24
    }

    /// Bits of the data length of `svc_CreateStringTable` when it is not a varint.
    pub const fn create_table_length_bits(self) -> u32 {
        match self.branch {
            Branch::Left4Dead2 => 21,
            _ => 20,
        }
    }

    /// Bits of `svc_CreateStringTable`'s flags: none, a compressed bit, or the compressed
    /// bit and demo protocol 4's dictionary bit.
    pub const fn create_table_flag_bits(self) -> u32 {
        match self.branch {
            Branch::Classic if self.network <= 14 => 0,
            Branch::Classic => 1,
            _ => 2,
        }
    }

    /// Bits of `svc_UpdateStringTable`'s data length.
    pub const fn update_table_length_bits(self) -> u32 {
        if self.network <= 7 { 16 } else { 20 }
    }

    /// Bits of a variable-size string-table user data length in bytes.
    pub const fn user_data_length_bits(self) -> u32 {
        if self.network <= 7 { 12 } else { 14 }
    }

    /// Bits of `svc_UserMessage`'s data length.
    pub const fn user_message_length_bits(self) -> u32 {
        match self.branch {
            Branch::Portal2 => 12,
            _ => 11,
        }
    }

    /// Bits of `svc_TempEntities`'s data length when it is not a varint.
    pub const fn temp_entities_length_bits(self) -> u32 {
        match self.branch {
            Branch::Left4Dead2 => 18,
            _ => 17,
        }
    }

    /// Bits of a sound index (`svc_Prefetch`, sounds).
    pub const fn sound_index_bits(self) -> u32 {
        match self.branch {
            Branch::Classic if self.network > 22 => 14,
            Branch::Left4Dead2 if self.build >= 2091 => 15,
            Branch::Left4Dead2 => 14,
            _ => 13,
        }
    }

    /// Bits of a model index (`SP_MODEL_INDEX_BITS`).
    pub const fn model_index_bits(self) -> u32 {
        match self.branch {
            Branch::Classic if self.network >= 24 => 13,
            Branch::Left4Dead2 if self.build >= 2203 => 12,
            _ => 11,
        }
    }

    /// Whether `svc_ServerInfo` has Left 4 Dead 2's later fields (a workshop bit, the
    /// mission and the mutation).
    pub const fn server_info_has_mission(self) -> bool {
        matches!(self.branch, Branch::Left4Dead2) && self.build >= 2147
    }

    /// The message stored as `number`.
    pub fn kind(self, number: u32) -> Option<MessageKind> {
        if self.is_protobuf() && number == CSGO_PLAYER_AVATAR_DATA {
            return Some(K::PlayerAvatarData);
        }
        self.table().get(number as usize).copied().flatten()
    }

    /// The number `kind` is stored as, if the branch has it.
    pub fn number(self, kind: MessageKind) -> Option<u32> {
        if self.is_protobuf() && kind == K::PlayerAvatarData {
            return Some(CSGO_PLAYER_AVATAR_DATA);
        }
        self.table()
            .iter()
            .position(|k| *k == Some(kind))
            .map(|n| n as u32)
    }

    fn table(self) -> &'static [Option<MessageKind>] {
        let table: &[_] = match self.branch {
            Branch::CsGo => return &CSGO,
            Branch::Classic => &OLD,
            _ => &NEW,
        };
        // A message number must fit the type bits: five bits end the table at 31.
        let fits = table.len().min(1 << self.type_bits());
        table.get(..fits).unwrap_or(table)
    }
}

/// The build number in Left 4 Dead 2's first `svc_Print` ("... Build: 4710 ...").
fn print_build(text: &[u8]) -> Option<i32> {
    let at = text.windows(7).position(|w| w == b"Build: ")? + 7;
    let rest = text.get(at..)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(rest.get(..digits)?).ok()?.parse().ok()
}

use MessageKind as K;

/// Each message's number in the three numberings: demo protocol 3 and older (`OLD`:
/// `netmessages.h`, `NET_*` and `SVC_*`), demo protocol 4 (`NEW`: Left 4 Dead 1 and 2,
/// Portal 2) and CS:GO (`CSGO`: `NET_Messages` and `SVC_Messages` of its
/// `netmessages.proto`); `-` where the numbering has no such message.
///
/// Demo protocol 4 adds `net_SplitScreenUser` as 3 and moves `svc_Print` to 16; in the old
/// numbering 16 (`svc_HLTV`) and 22 (`svc_TerrainMod`) never occur in demos. CS:GO keeps
/// demo protocol 4's numbers up to 31, then has `svc_PaintmapData` 33 and
/// `svc_CmdKeyValues` 34 (32 is unused), its own 35, 36 and 38, and `net_PlayerAvatarData`
/// 100 (outside the table: [`CSGO_PLAYER_AVATAR_DATA`]).
const NUMBERS: &[(MessageKind, [Option<u8>; 3])] = message_numbers! {
    // kind            OLD NEW CSGO
    Nop                 0   0   0
    Disconnect          1   1   1
    File                2   2   2
    SplitScreenUser     -   3   3
    Tick                3   4   4
    StringCmd           4   5   5
    SetConVar           5   6   6
    SignonState         6   7   7
    Print               7  16  16
    ServerInfo          8   8   8
    SendTable           9   9   9
    ClassInfo          10  10  10
    SetPause           11  11  11
    CreateStringTable  12  12  12
    UpdateStringTable  13  13  13
    VoiceInit          14  14  14
    VoiceData          15  15  15
    Sounds             17  17  17
    SetView            18  18  18
    FixAngle           19  19  19
    CrosshairAngle     20  20  20
    BspDecal           21  21  21
    SplitScreen         -  22  22
    UserMessage        23  23  23
    EntityMessage      24  24  24
    GameEvent          25  25  25
    PacketEntities     26  26  26
    TempEntities       27  27  27
    Prefetch           28  28  28
    Menu               29  29  29
    GameEventList      30  30  30
    GetCvarValue       31  31  31
    CmdKeyValues       32  32  34
    SetPauseTimed      33   -   -
    PaintmapData        -  33  33
    EncryptedData       -   -  35
    HltvReplay          -   -  36
    BroadcastCommand    -   -  38
};

/// The rows of [`NUMBERS`]: a kind and its three numbers, `-` for none.
macro_rules! message_numbers {
    ($( $kind:ident $old:tt $new:tt $csgo:tt )*) => {
        &[$( (K::$kind, [message_number!($old), message_number!($new), message_number!($csgo)]), )*]
    };
}
use message_numbers;

/// One number of a [`NUMBERS`] row.
macro_rules! message_number {
    (-) => {
        None
    };
    ($n:literal) => {
        Some($n)
    };
}
use message_number;

/// The kinds by number in numbering `column` of [`NUMBERS`], for an index lookup.
const fn numbered<const N: usize>(column: usize) -> [Option<MessageKind>; N] {
    let mut table = [None; N];
    let mut rows = NUMBERS;
    while let [(kind, numbers), rest @ ..] = rows {
        // `N` is `numbering_len(column)`: every number of the column has its slot.
        if let Some((_, [Some(n), ..])) = numbers.split_at_checked(column)
            && let Some((_, [slot, ..])) = table.split_at_mut_checked(*n as usize)
        {
            assert!(slot.is_none(), "two kinds under one number");
            *slot = Some(*kind);
        }
        rows = rest;
    }
    table
}

/// The table of numbering `column`: up to its highest number.
const fn numbering_len(column: usize) -> usize {
    let mut len = 0;
    let mut rows = NUMBERS;
    while let [(_, numbers), rest @ ..] = rows {
        if let Some((_, [Some(n), ..])) = numbers.split_at_checked(column)
            && *n as usize >= len
        {
            len = *n as usize + 1;
        }
        rows = rest;
    }
    len
}

/// Demo protocol 3 and older.
const OLD: [Option<MessageKind>; numbering_len(0)] = numbered(0);
/// Demo protocol 4.
const NEW: [Option<MessageKind>; numbering_len(1)] = numbered(1);
/// CS:GO.
const CSGO: [Option<MessageKind>; numbering_len(2)] = numbered(2);

/// CS:GO's `net_PlayerAvatarData`, the one number past the table.
const CSGO_PLAYER_AVATAR_DATA: u32 = 100;
