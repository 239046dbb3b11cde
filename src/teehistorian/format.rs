//! The frame of a teehistorian file: its constants, message ids, the Teeworlds
//! variable-width int as a binrw `parse_with`/`write_with` pair, and the EX frame.
//!
//! A file is the 16-byte [`FILE_UUID`], a NUL-terminated JSON header, then messages. Each
//! message starts with one variable-width int: a non-negative value is the client id of a
//! PLAYER_DIFF, a negative one names the message ([`id`]). The messages themselves are
//! described in [`records`](super::records) and laid out in [`layout`](super::layout).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::varint;
use binrw::{BinResult, binrw};

/// The 16 bytes every teehistorian file starts with: uuid3("teehistorian@ddnet.tw") in the
/// Teeworlds namespace, 699db17b-8efb-34ff-b1d8-da6f60c15dd1.
pub const FILE_UUID: [u8; 16] = [
    0x69, 0x9d, 0xb1, 0x7b, 0x8e, 0xfb, 0x34, 0xff, 0xb1, 0xd8, 0xda, 0x6f, 0x60, 0xc1, 0x5d, 0xd1,
];

/// The `comment` DDNet writes in every header: the name the file UUID is derived from.
pub const COMMENT: &str = "teehistorian@ddnet.tw";

/// `MAX_CLIENTS` in DDNet (128 since its 128-player support of 2024): client ids are
/// `0..MAX_CLIENTS`, and it is the "highest client id of the previous tick" the writer and a
/// reader start from, so that a first player record at any client id opens tick 1.
///
/// Servers built before that change had 64 slots ([`LEGACY_MAX_CLIENTS`]); their files never
/// hold a client id above 63, so they number their ticks the same from either start value.
pub const MAX_CLIENTS: i32 = 128;

/// `MAX_CLIENTS` of DDNet servers before 2024 (and `LEGACY_MAX_CLIENTS` in DDNet today).
pub const LEGACY_MAX_CLIENTS: i32 = 64;

/// Message ids: the first int of a message, negated (DDNet writes `-TEEHISTORIAN_*`).
/// Non-negative first ints are PLAYER_DIFF client ids.
pub mod id {
    /// End of the file.
    pub const FINISH: i32 = -1;
    /// Ticks without records; the next tick is the last one plus `dt + 1`.
    pub const TICK_SKIP: i32 = -2;
    /// A character appeared.
    pub const PLAYER_NEW: i32 = -3;
    /// A character disappeared.
    pub const PLAYER_OLD: i32 = -4;
    /// An input, as a difference to the client's previous one.
    pub const INPUT_DIFF: i32 = -5;
    /// A client's first input (or the first after its unique id changed).
    pub const INPUT_NEW: i32 = -6;
    /// A packed network message from a client.
    pub const MESSAGE: i32 = -7;
    /// A client joined (engine level).
    pub const JOIN: i32 = -8;
    /// A client left or was dropped.
    pub const DROP: i32 = -9;
    /// A console command was executed.
    pub const CONSOLE_COMMAND: i32 = -10;
    /// An extension message identified by a UUID (version 2).
    pub const EX: i32 = -11;
    /// The lowest id this crate knows; anything below cannot be skipped (its length is unknown).
    pub const LOWEST: i32 = EX;
}

/// The number of ints in `CNetObj_PlayerInput`, the payload of INPUT_NEW and INPUT_DIFF:
/// direction, target x/y, jump, fire, hook, player flags, wanted/next/prev weapon.
pub const INPUT_INTS: usize = 10;

/// Reads one Teeworlds variable-width int (1 to 5 bytes), accepting non-canonical forms as
/// DDNet's unpacker does.
#[binrw::parser(reader)]
pub(crate) fn read_varint() -> BinResult<i32> {
    let start = reader.stream_position()?;
    let mut bytes = [0u8; varint::MAX_BYTES];
    for (i, byte) in bytes.iter_mut().enumerate() {
        reader.read_exact(std::slice::from_mut(byte))?;
        // The fifth byte ends the int whatever its extend bit says.
        if *byte & 0x80 == 0 || i + 1 == varint::MAX_BYTES {
            break;
        }
    }
    match varint::unpack(&bytes) {
        Some((value, _)) => Ok(value),
        None => Err(binrw::Error::AssertFail {
            pos: start,
            message: "variable-width int cut short".into(),
        }),
    }
}

/// Writes one int in its canonical (shortest) form, as DDNet's packer does.
#[binrw::writer(writer)]
pub(crate) fn write_varint(value: &i32) -> BinResult<()> {
    let mut buf = [0u8; varint::MAX_BYTES];
    let len = varint::pack(*value, &mut buf);
    writer.write_all(buf.get(..len).unwrap_or(&buf))?;
    Ok(())
}

/// The frame of an EX message after its id: the extension's UUID and the payload size. The
/// payload (`size` bytes) follows.
#[binrw]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ExFrame {
    /// The extension UUID, 16 raw bytes (big-endian as UUIDs are written).
    pub uuid: [u8; 16],
    /// The payload size in bytes; DDNet never writes a negative one.
    #[br(parse_with = read_varint)]
    #[bw(write_with = write_varint)]
    pub size: i32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::Endian;
    use binrw::{BinRead, BinWrite};
    use std::io::Cursor;

    #[test]
    fn file_uuid_is_derived_from_the_comment() {
        assert_eq!(
            crate::codec::uuid::teeworlds_uuid(COMMENT).as_bytes(),
            &FILE_UUID
        );
    }

    #[test]
    fn varint_round_trips_in_canonical_form() {
        let read = |bytes: &[u8]| read_varint(&mut Cursor::new(bytes), Endian::Little, ());
        assert_eq!(read(&[0x42]).unwrap(), id::PLAYER_NEW);
        // Non-canonical input is read; the writer emits the canonical form.
        assert_eq!(read(&[0x81, 0x00]).unwrap(), 1);
        let mut out = Cursor::new(Vec::new());
        write_varint(&1, &mut out, Endian::Little, ()).unwrap();
        assert_eq!(out.into_inner(), [0x01]);
        assert!(read(&[0x81]).is_err());
    }

    #[test]
    fn ex_frame() {
        let mut bytes = vec![0u8; 16];
        bytes[0] = 0xd0;
        bytes.push(0x0e);
        let f = ExFrame::read_le(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!((f.uuid[0], f.size), (0xd0, 14));
        let mut out = Cursor::new(Vec::new());
        f.write_le(&mut out).unwrap();
        assert_eq!(out.into_inner(), bytes);
    }

    #[test]
    fn canonical_check_includes_the_fifth_byte() {
        let check = |bytes: &[u8]| {
            let (v, len) = varint::unpack(bytes).unwrap();
            varint::is_canonical(v, &bytes[..len])
        };
        assert!(check(&[0x00]));
        assert!(!check(&[0x80, 0x00]));
        assert!(check(&[0xbf, 0xff, 0xff, 0xff, 0x0f]));
        assert!(!check(&[0xbf, 0xff, 0xff, 0xff, 0xff]));
        assert!(!check(&[0xbf, 0xff, 0xff, 0xff, 0x1f]));
    }
}
