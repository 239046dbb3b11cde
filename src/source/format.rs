//! The byte layouts of a Source engine demo (`HL2DEMO`), as declarative binrw structs.
//!
//! Everything is little-endian. These types only describe bytes; which command numbers,
//! how many view-info blocks and whether a player-slot byte a file uses is the
//! [`Profile`](super::profile::Profile)'s business, and the reader and writer connect the two.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::string::FixedStr;
use binrw::binrw;

/// The eight bytes every Source demo starts with.
pub const MAGIC: [u8; 8] = *b"HL2DEMO\0";
/// GoldSrc (Half-Life 1) demos start with this: a different format.
pub const GOLDSRC_MAGIC: [u8; 8] = *b"HLDEMO\0\0";
/// Source 2 (CS2, Dota 2) demos start with this: a protobuf-based format.
pub const SOURCE2_MAGIC: [u8; 8] = *b"PBDEMS2\0";

/// Size of [`Header`]: where the first frame starts.
pub const HEADER_SIZE: usize = 1072;
/// Size of one [`ViewInfo`] block (`democmdinfo_t` for one split screen).
pub const VIEW_INFO_SIZE: usize = 76;
/// Offset of the `playback_time` field; `ticks`, `frames` and `signon_length` follow.
pub const PLAYBACK_TIME_OFFSET: usize = 1056;

/// The 1072-byte file header.
///
/// The engine writes it twice: zeroed-out counts when recording starts, the real
/// `playback_time`, `ticks`, `frames` and `signon_length` when it stops. A recorder that
/// crashed leaves the first form behind.
///
/// With the `serde` feature the fields keep their names: `magic` in hex, the strings as
/// [`FixedStr`] writes them, `playback_time` a number (the shortest decimal that reads back
/// as the same `f32`; a NaN or infinity as its bits, `"0x7fc00000"`).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Header {
    /// `"HL2DEMO\0"` in a valid file; kept raw so the reader can say what it found instead.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_array"))]
    pub magic: [u8; 8],
    /// Demo protocol: 3 (Source 2007/2013: TF2, HL2, Portal) or 4 (L4D, Portal 2, CS:GO).
    pub demo_protocol: i32,
    /// Network protocol of the game build, e.g. 24 (TF2), 2001 (Portal 2), 13775 (CS:GO).
    pub network_protocol: i32,
    /// Server name or address (`"localhost:27015"` for a local recording).
    pub server: FixedStr<260>,
    /// Name of the recording client (or SourceTV).
    pub client: FixedStr<260>,
    /// Map name.
    pub map: FixedStr<260>,
    /// Game directory, e.g. `"tf"`, `"portal2"`, `"left4dead2"`.
    pub game_dir: FixedStr<260>,
    /// Length in seconds: `ticks` times the tick interval, as a 32-bit float.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float"))]
    pub playback_time: f32,
    /// The tick of the stop command.
    pub ticks: i32,
    /// How many `dem_packet` frames the file holds.
    pub frames: i32,
    /// Bytes from the end of the header to the first `dem_synctick` frame.
    pub signon_length: i32,
}

impl Header {
    /// A header for a new recording, counts zeroed; strings longer than 259 bytes are cut.
    pub fn new(
        demo_protocol: i32,
        network_protocol: i32,
        server: &str,
        client: &str,
        map: &str,
        game_dir: &str,
    ) -> Self {
        Header {
            magic: MAGIC,
            demo_protocol,
            network_protocol,
            server: fixed(server),
            client: fixed(client),
            map: fixed(map),
            game_dir: fixed(game_dir),
            playback_time: 0.0,
            ticks: 0,
            frames: 0,
            signon_length: 0,
        }
    }
}

/// A zero-filled 260-byte field holding `text` cut to 259 bytes (NULs end it early).
fn fixed(text: &str) -> FixedStr<260> {
    let mut raw = [0u8; 260];
    let bytes = text.as_bytes();
    for (to, from) in raw.iter_mut().take(259).zip(bytes) {
        *to = *from;
    }
    FixedStr::from_raw(raw)
}

/// One split screen's view: `democmdinfo_t`'s `Split_t`, 76 bytes.
///
/// Floats are read and written by their bits, so NaNs and negative zeros come back as they
/// were.
///
/// With the `serde` feature the fields keep their names; each float is a number, or its
/// bits (`"0x7fc00000"`) when it is a NaN or infinity.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ViewInfo {
    /// `FDEMO_NORMAL` 0, `USE_ORIGIN2` 1, `USE_ANGLES2` 2, `NOINTERP` 4.
    pub flags: i32,
    /// View origin.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub view_origin: [f32; 3],
    /// View angles.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub view_angles: [f32; 3],
    /// Local view angles.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub local_view_angles: [f32; 3],
    /// Second view origin (used with `USE_ORIGIN2`).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub view_origin2: [f32; 3],
    /// Second view angles (used with `USE_ANGLES2`).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub view_angles2: [f32; 3],
    /// Second local view angles.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::float_array"))]
    pub local_view_angles2: [f32; 3],
}

/// The head of every frame but the stop: the command byte, the tick, and the player-slot
/// byte in profiles that have one (the reader passes the profile's `slot_byte`). The stop
/// command's tick is not read through this: real files cut it short.
#[binrw]
#[brw(little)]
#[br(import(slot_byte: bool))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FrameHead {
    /// Command number (its meaning depends on the profile's command table).
    pub command: u8,
    /// Tick; signed, and not monotonic.
    pub tick: i32,
    /// The player slot (written when present: the writer checks it against the profile).
    #[br(if(slot_byte))]
    pub slot: Option<u8>,
}

/// What follows the view-info blocks of a `dem_signon` or `dem_packet` frame.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PacketTrailer {
    /// Incoming sequence number.
    pub seq_in: i32,
    /// Outgoing sequence number.
    pub seq_out: i32,
    /// Length of the network data that follows.
    pub length: i32,
}

/// The prefix of a `dem_usercmd` frame's body.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UserCmdPrefix {
    /// The user command's outgoing sequence number.
    pub sequence: i32,
    /// Length of the bit-packed command that follows (at most 255 in the engine).
    pub length: i32,
}

/// The prefix of a `dem_customdata` frame's body (demo protocol 4).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CustomDataPrefix {
    /// Index of the registered callback; -1 is the table of callback names itself.
    pub callback: i32,
    /// Length of the data that follows.
    pub length: i32,
}

/// A length-prefixed blob (`dem_consolecmd`, `dem_datatables`, `dem_stringtables`).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LengthPrefix {
    /// Length of the data that follows.
    pub length: i32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::{BinRead, BinWrite};
    use std::io::Cursor;

    #[test]
    fn sizes() {
        let header = Header::new(3, 24, "localhost:27015", "me", "cp_foo", "tf");
        let mut out = Cursor::new(Vec::new());
        header.write(&mut out).unwrap();
        assert_eq!(out.get_ref().len(), HEADER_SIZE);
        assert_eq!(&out.get_ref()[PLAYBACK_TIME_OFFSET..][..4], &[0; 4]);
        let back = Header::read(&mut Cursor::new(out.get_ref())).unwrap();
        assert_eq!(back, header);
        let mut out = Cursor::new(Vec::new());
        ViewInfo::default().write(&mut out).unwrap();
        assert_eq!(out.get_ref().len(), VIEW_INFO_SIZE);
    }
}
