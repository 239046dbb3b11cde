//! `player_info_t`: the user data of a `userinfo` string-table entry, one per player slot.
//!
//! Three layouts exist, told apart by their size: 132 bytes little-endian (demo protocol 3
//! and Left 4 Dead 1.0.0.5), 144 bytes starting with a 64-bit XUID, whose XUID, user id
//! and friends id are big-endian (Left 4 Dead from 1.0.4.0, Left 4 Dead 2, Portal 2), and
//! CS:GO's 344 bytes: a 64-bit version, then the XUID and 128-byte names, its integers
//! big-endian too. Portal 2's mods (Aperture Tag, Portal Stories: Mel, Thinking with Time
//! Machine) write the XUID layout in 140 bytes: the same fields, the struct padded to 4
//! bytes rather than 8 (a 132-byte entry has no XUID: Left 4 Dead 1.0.0.5).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use binrw::{BinRead, BinWrite, binrw};
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
    String::from_utf8_lossy(field_text(bytes)).into_owned()
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

/// The bytes of a fixed string field before its first NUL.
fn field_text(bytes: &[u8]) -> &[u8] {
    // `split` gives at least one piece: the whole field when it has no NUL.
    bytes.split(|&b| b == 0).next().unwrap_or(bytes)
}

/// Puts `text` into a fixed string field, cut to leave room for the NUL, the rest zeroed
/// (so no byte of the old text stays behind it).
fn set_field<const N: usize>(field: &mut [u8; N], text: &[u8]) {
    *field = [0; N];
    for (to, from) in field.iter_mut().take(N - 1).zip(text) {
        *to = *from;
    }
}

/// The network id a scrub leaves for a player: the engine's own id of a player without a
/// Steam account. Not empty: readers take an entry without a network id for an empty slot.
pub const SCRUBBED_GUID: &str = "STEAM_ID_LAN";

/// The network id a scrub leaves: `BOT` stays (it names no one), any other id becomes
/// [`SCRUBBED_GUID`].
fn scrubbed_guid<const N: usize>(guid: &mut [u8; N]) {
    if field_text(guid) != b"BOT" {
        set_field(guid, SCRUBBED_GUID.as_bytes());
    }
}

/// The fields every layout has that name or identify a player, for [`PlayerInfo::scrub`]:
/// one body for the three layouts.
macro_rules! scrub_fields {
    ($info:expr, $rename:expr) => {{
        let info = &mut $info;
        let name = $rename(field_text(&info.name));
        set_field(&mut info.name, &name);
        let friends_name = $rename(field_text(&info.friends_name));
        set_field(&mut info.friends_name, &friends_name);
        scrubbed_guid(&mut info.guid);
        info.friends_id = 0;
    }};
}

impl PlayerInfo {
    /// The names a `userinfo` entry's user data holds, in order: the player's name and
    /// its Steam friends name (empty ones left out); nothing when it is no layout.
    pub fn names(data: &[u8]) -> Vec<Vec<u8>> {
        let mut found = Vec::new();
        // The scrub's walk over the fields, renaming nothing.
        PlayerInfo::scrub(data, |name| {
            if !name.is_empty() {
                found.push(name.to_vec());
            }
            name.to_vec()
        });
        found
    }

    /// `data` (a `userinfo` entry's user data) with the name and the Steam friends name
    /// put through `rename`, and what identifies the player's account taken out: the
    /// network id (becomes [`SCRUBBED_GUID`]; a bot's `BOT` stays), the friends id, the XUID and the CRCs of the
    /// player's custom files (sprays) with their download count. The user id, the bot
    /// and SourceTV flags and the size stay. `None` when the data is no layout.
    pub fn scrub(data: &[u8], mut rename: impl FnMut(&[u8]) -> Vec<u8>) -> Option<Vec<u8>> {
        let mut out = Cursor::new(data.to_vec());
        let mut input = Cursor::new(data);
        if data.len() >= 340 {
            let mut i = InfoCsgo::read(&mut input).ok()?;
            scrub_fields!(i, rename);
            i.xuid = 0;
            i.write(&mut out).ok()?;
        } else if data.len() >= 140 {
            let mut i = InfoXuid::read(&mut input).ok()?;
            scrub_fields!(i, rename);
            i.xuid = 0;
            i.write(&mut out).ok()?;
        } else if data.len() >= 110 {
            let mut i = InfoLittle::read(&mut input).ok()?;
            scrub_fields!(i, rename);
            i.write(&mut out).ok()?;
        } else {
            return None;
        }
        // After the bot and SourceTV bytes: two bytes of padding, the four CRCs of the
        // custom files and the count of files downloaded (where the data is that long).
        let end = out.position() as usize;
        let mut bytes = out.into_inner();
        let custom = (end + 2).min(bytes.len())..(end + 2 + 17).min(bytes.len());
        if let Some(custom) = bytes.get_mut(custom) {
            custom.fill(0);
        }
        Some(bytes)
    }
}
