//! `player_info_t`: the user data of a `userinfo` string-table entry, one per player slot.
//!
//! Three layouts exist, told apart by their size: 132 bytes little-endian (demo protocol 3
//! and Left 4 Dead 1.0.0.5), 144 bytes starting with a 64-bit XUID, whose XUID, user id
//! and friends id are big-endian (Left 4 Dead from 1.0.4.0, Left 4 Dead 2, Portal 2), and
//! CS:GO's 344 bytes: a 64-bit version, then the XUID and 128-byte names, its integers
//! big-endian too. Portal 2's mods (Aperture Tag, Portal Stories: Mel, Thinking with Time
//! Machine) write the XUID layout in 140 bytes: the same fields, the struct padded to 4
//! bytes rather than 8 (a 132-byte entry has no XUID: Left 4 Dead 1.0.0.5).

use binrw::{BinRead, binrw};
use std::io::Cursor;

/// The 132-byte layout.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone)]
struct InfoLittle {
    name: [u8; 32],
    user_id: i32,
    guid: [u8; 33],
    #[brw(pad_before = 3)]
    friends_id: u32,
    friends_name: [u8; 32],
    fake_player: u8,
    is_hltv: u8,
}

/// The 144-byte layout (140 in Portal 2's mods; little-endian where a field does not say
/// otherwise).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone)]
struct InfoXuid {
    #[brw(big)]
    xuid: u64,
    name: [u8; 32],
    #[brw(big)]
    user_id: i32,
    guid: [u8; 33],
    #[brw(big, pad_before = 3)]
    friends_id: u32,
    friends_name: [u8; 32],
    fake_player: u8,
    is_hltv: u8,
}

/// CS:GO's layout (340 bytes of fields, padded to 344; integers big-endian).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone)]
struct InfoCsgo {
    version: u64,
    xuid: u64,
    name: [u8; 128],
    user_id: i32,
    guid: [u8; 33],
    #[brw(pad_before = 3)]
    friends_id: u32,
    friends_name: [u8; 128],
    fake_player: u8,
    is_hltv: u8,
}

/// A player as its `userinfo` entry describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlayerInfo {
    /// The name.
    pub name: String,
    /// The server's user id: game events name players by it.
    pub user_id: i32,
    /// The network id: a SteamID (`STEAM_0:1:23`, `[U:1:46]`) or `BOT`.
    pub guid: String,
    /// The Steam account id (0 for bots).
    pub friends_id: u32,
    /// A bot.
    pub bot: bool,
    /// A SourceTV relay.
    pub hltv: bool,
    /// The Xbox/Steam XUID of the 144-byte layout.
    pub xuid: Option<u64>,
}

/// The text before the first NUL, invalid UTF-8 replaced.
fn text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl PlayerInfo {
    /// Reads a `userinfo` entry's user data; `None` when it is neither layout.
    pub fn parse(data: &[u8]) -> Option<PlayerInfo> {
        let mut cursor = Cursor::new(data);
        if data.len() >= 340 {
            let i = InfoCsgo::read(&mut cursor).ok()?;
            let _ = i.version;
            Some(PlayerInfo {
                name: text(&i.name),
                user_id: i.user_id,
                guid: text(&i.guid),
                friends_id: i.friends_id,
                bot: i.fake_player != 0,
                hltv: i.is_hltv != 0,
                xuid: Some(i.xuid),
            })
        } else if data.len() >= 140 {
            let i = InfoXuid::read(&mut cursor).ok()?;
            Some(PlayerInfo {
                name: text(&i.name),
                user_id: i.user_id,
                guid: text(&i.guid),
                friends_id: i.friends_id,
                bot: i.fake_player != 0,
                hltv: i.is_hltv != 0,
                xuid: Some(i.xuid),
            })
        } else if data.len() >= 110 {
            let i = InfoLittle::read(&mut cursor).ok()?;
            Some(PlayerInfo {
                name: text(&i.name),
                user_id: i.user_id,
                guid: text(&i.guid),
                friends_id: i.friends_id,
                bot: i.fake_player != 0,
                hltv: i.is_hltv != 0,
                xuid: None,
            })
        } else {
            None
        }
    }
}
