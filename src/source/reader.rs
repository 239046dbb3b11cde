//! Readers: a zero-copy one over a byte slice ([`SourceSlice`]) and a streaming one over
//! any [`Read`] ([`SourceReader`]). Both cut frames with the same function, so they agree
//! by construction.
//!
//! A reader stops at the first error and reports it with its offset; every frame before it
//! has been delivered. A file that ends without a stop command ends in a truncation error
//! (that is what a crashed recorder leaves), after all its complete frames.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind};
use super::format::{
    CustomDataPrefix, FrameHead, GOLDSRC_MAGIC, HEADER_SIZE, Header, LengthPrefix, MAGIC,
    PacketTrailer, SOURCE2_MAGIC, UserCmdPrefix, VIEW_INFO_SIZE, ViewInfo,
};
use super::profile::{Command, Profile, ProfileOrigin};
use crate::read::Refill;
use binrw::BinRead;
use std::borrow::Cow;
use std::io::{self, Cursor, Read};

/// The body of a `dem_signon` or `dem_packet` frame.
///
/// With the `serde` feature: `{"views": [one [`ViewInfo`] per split], "seq_in": n,
/// "seq_out": n, "data": <hex>}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PacketBody<'a> {
    /// The view-info blocks as stored: 76 bytes per split ([`view_infos`](Self::view_infos)
    /// decodes them).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "views", serialize_with = "serialize_views")
    )]
    pub view: &'a [u8],
    /// Incoming sequence number.
    pub seq_in: i32,
    /// Outgoing sequence number.
    pub seq_out: i32,
    /// The network data.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
    pub data: &'a [u8],
}

impl PacketBody<'_> {
    /// The view-info blocks, one per split.
    pub fn view_infos(&self) -> impl Iterator<Item = ViewInfo> + '_ {
        self.view.chunks_exact(VIEW_INFO_SIZE).map(|block| {
            // 76 bytes always decode: every bit pattern is a valid i32 or f32.
            ViewInfo::read(&mut Cursor::new(block)).unwrap_or_default()
        })
    }
}

/// What a frame carries, by command.
///
/// With the `serde` feature: `"command"` with the [`Command`]'s name (`"signon"`,
/// `"packet"`, `"synctick"`, `"consolecmd"`, `"usercmd"`, `"datatables"`, `"stop"`,
/// `"customdata"`, `"stringtables"`) and the body's fields: a packet's as [`PacketBody`]
/// writes them, `"data"` (hex) for the blobs, `"sequence"` and `"data"` for a user command,
/// `"callback"` and `"data"` for custom data, `"tail"` (hex) for the stop command.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "command", rename_all = "lowercase"))]
pub enum Body<'a> {
    /// `dem_signon`.
    Signon(PacketBody<'a>),
    /// `dem_packet`.
    Packet(PacketBody<'a>),
    /// `dem_synctick`: nothing.
    SyncTick,
    /// `dem_consolecmd`: the command text as stored (normally NUL-terminated).
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_data"))]
    ConsoleCmd(&'a [u8]),
    /// `dem_usercmd`.
    UserCmd {
        /// Outgoing sequence number of the command.
        sequence: i32,
        /// The bit-packed user command.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
        data: &'a [u8],
    },
    /// `dem_datatables`: the send and class tables.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_data"))]
    DataTables(&'a [u8]),
    /// `dem_stop`: every byte after the command byte, kept as stored. Real files hold 3 to
    /// 5: the tick, cut to 3 bytes by TF2 and Portal 1, and the slot byte when it survived.
    Stop {
        /// The bytes after the command byte.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
        tail: Cow<'a, [u8]>,
    },
    /// `dem_customdata` (demo protocol 4).
    CustomData {
        /// Index of the callback; -1 carries the table of callback names.
        callback: i32,
        /// The data.
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
        data: &'a [u8],
    },
    /// `dem_stringtables`.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_data"))]
    StringTables(&'a [u8]),
}

/// One command frame: header fields and body.
///
/// With the `serde` feature: `{"tick": n, "slot": n}` (`slot` left out when the profile has
/// none) and the [`Body`]'s fields.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Frame<'a> {
    /// The tick (for a stop command: read leniently from its tail, see [`stop_tick`]).
    pub tick: i32,
    /// The player-slot byte, in profiles that have one (for a stop command: the fifth tail
    /// byte, when present).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub slot: Option<u8>,
    /// What the frame carries.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub body: Body<'a>,
}

impl<'a> Frame<'a> {
    /// The frame's command.
    pub fn command(&self) -> Command {
        match self.body {
            Body::Signon(_) => Command::Signon,
            Body::Packet(_) => Command::Packet,
            Body::SyncTick => Command::SyncTick,
            Body::ConsoleCmd(_) => Command::ConsoleCmd,
            Body::UserCmd { .. } => Command::UserCmd,
            Body::DataTables(_) => Command::DataTables,
            Body::Stop { .. } => Command::Stop,
            Body::CustomData { .. } => Command::CustomData,
            Body::StringTables(_) => Command::StringTables,
        }
    }

    /// A stop command at `tick` written in full, as the engine means to: the tick, and the
    /// slot byte when the profile has one.
    pub fn stop(tick: i32, profile: &Profile) -> Frame<'static> {
        let mut tail = tick.to_le_bytes().to_vec();
        if profile.slot_byte {
            tail.push(0);
        }
        Frame {
            tick,
            slot: profile.slot_byte.then_some(0),
            body: Body::Stop {
                tail: Cow::Owned(tail),
            },
        }
    }

    /// The payload bytes the frame carries (network data, command text, tables...), empty
    /// for synctick and stop.
    pub fn payload(&self) -> &[u8] {
        match &self.body {
            Body::Signon(p) | Body::Packet(p) => p.data,
            Body::ConsoleCmd(d) | Body::DataTables(d) | Body::StringTables(d) => d,
            Body::UserCmd { data, .. } | Body::CustomData { data, .. } => data,
            Body::SyncTick | Body::Stop { .. } => &[],
        }
    }
}

/// The tick a stop command's tail holds: four bytes as stored, or three sign-extended (TF2
/// and Portal 1 lose the fourth); `None` with fewer than three.
pub fn stop_tick(tail: &[u8]) -> Option<i32> {
    match *tail {
        [a, b, c, d, ..] => Some(i32::from_le_bytes([a, b, c, d])),
        [a, b, c] => Some(i32::from_le_bytes([a, b, c, 0]) << 8 >> 8),
        _ => None,
    }
}

/// A frame with its place in the file.
///
/// With the `serde` feature: `{"offset": n, "len": n}` and the [`Frame`]'s fields, e.g.
/// `{"offset": 1072, "len": 90, "tick": 0, "command": "packet", "views": [...], ...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FrameAt<'a> {
    /// Offset of the frame's command byte.
    pub offset: u64,
    /// Length of the whole frame in bytes.
    pub len: usize,
    /// The frame.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub frame: Frame<'a>,
}

/// A packet's view-info blocks as a list of [`ViewInfo`]s.
#[cfg(feature = "serde")]
fn serialize_views<S: serde::Serializer>(view: &&[u8], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(view.chunks_exact(VIEW_INFO_SIZE).map(|block| {
        // 76 bytes always decode: every bit pattern is a valid i32 or f32.
        ViewInfo::read(&mut Cursor::new(block)).unwrap_or_default()
    }))
}

/// A blob body as `{"data": <hex>}`.
#[cfg(feature = "serde")]
fn serialize_data<S: serde::Serializer>(data: &&[u8], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Blob", 1)?;
    st.serialize_field("data", &hex::encode(data))?;
    st.end()
}

/// Reads and checks the 1072-byte header at the start of `data`.
pub fn parse_header(data: &[u8]) -> Result<Header, ReadError> {
    // The first bytes, as many as the stamp has (all of a shorter input).
    let stamp = data.get(..MAGIC.len()).unwrap_or(data);
    // A file cut inside the stamp still counts as a Source demo, so that the error says
    // where it ends.
    if stamp.is_empty() || !MAGIC.starts_with(stamp) {
        let kind = if data.starts_with(&GOLDSRC_MAGIC[..7]) {
            ReadErrorKind::GoldSrc
        } else if data.starts_with(&SOURCE2_MAGIC) {
            ReadErrorKind::Source2
        } else {
            ReadErrorKind::BadMagic {
                found: stamp.to_vec(),
            }
        };
        return Err(ReadError::new(0, kind));
    }
    let Some(bytes) = data.first_chunk::<HEADER_SIZE>() else {
        return Err(ReadError::new(
            0,
            ReadErrorKind::UnexpectedEnd {
                expected: "the 1072-byte HL2DEMO header",
                available: data.len() as u64,
            },
        ));
    };
    // 1072 bytes always decode: the strings are raw bytes and the numbers take any value.
    Header::read(&mut Cursor::new(&bytes[..])).map_err(|e| {
        ReadError::new(
            0,
            ReadErrorKind::Io(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
        )
    })
}

/// What the next step over the unread input `rest` is.
#[derive(Debug)]
pub(crate) enum Step<'a> {
    /// A complete frame of `len` bytes.
    Frame { frame: Frame<'a>, len: usize },
    /// `rest` ends inside a frame; more input (up to this total, if known) would tell.
    NeedMore(Option<usize>),
    /// An error (the reader stops).
    Fail(ReadErrorKind),
}

/// Cuts one frame off the front of `rest`. `eof` says that `rest` is all the input there
/// is; without it, a shortage asks for more instead of failing. Allocates nothing: every
/// length is checked against `rest` before it is used.
#[inline(always)]
pub(crate) fn step<'a>(profile: &Profile, rest: &'a [u8], eof: bool) -> Step<'a> {
    let short = |expected: &'static str, need: Option<usize>| {
        if eof {
            Step::Fail(ReadErrorKind::UnexpectedEnd {
                expected,
                available: rest.len() as u64,
            })
        } else {
            Step::NeedMore(need)
        }
    };
    let Some(&number) = rest.first() else {
        return short("a command (the file ends without dem_stop)", Some(1));
    };
    let Some(command) = profile.commands.command(number) else {
        return Step::Fail(ReadErrorKind::UnknownCommand {
            command: number,
            table: profile.commands,
        });
    };
    if command == Command::Stop {
        if !eof {
            return Step::NeedMore(None);
        }
        // After the command byte (`rest` has it: `number`).
        let tail = rest.get(1..).unwrap_or_default();
        return Step::Frame {
            frame: Frame {
                tick: stop_tick(tail).unwrap_or(0),
                slot: if profile.slot_byte {
                    tail.get(4).copied()
                } else {
                    None
                },
                body: Body::Stop {
                    tail: Cow::Borrowed(tail),
                },
            },
            len: rest.len(),
        };
    }
    let header_len = 5 + usize::from(profile.slot_byte);
    let Some(head) = rest.get(..header_len) else {
        return short("a frame header", Some(header_len));
    };
    let Ok(FrameHead { tick, slot, .. }) =
        FrameHead::read_args(&mut Cursor::new(head), (profile.slot_byte,))
    else {
        return short("a frame header", Some(header_len));
    };
    let mut pos = header_len;
    // Reads a fixed layout at `pos`.
    macro_rules! fixed {
        ($ty:ty, $size:expr, $what:expr) => {{
            let Some(bytes) = rest.get(pos..pos + $size) else {
                return short($what, Some(pos + $size));
            };
            pos += $size;
            match <$ty>::read(&mut Cursor::new(bytes)) {
                Ok(v) => v,
                Err(_) => return short($what, Some(pos)),
            }
        }};
    }
    // Takes `length` bytes at `pos`.
    macro_rules! data {
        ($length:expr, $what:expr) => {{
            let length = $length;
            let Ok(n) = usize::try_from(length) else {
                return Step::Fail(ReadErrorKind::NegativeLength {
                    what: $what,
                    value: length,
                });
            };
            if n > MAX_PAYLOAD_LEN {
                return Step::Fail(ReadErrorKind::PayloadTooLong {
                    what: $what,
                    length,
                });
            }
            let end = pos.saturating_add(n);
            let Some(bytes) = rest.get(pos..end) else {
                return short($what, Some(end));
            };
            pos = end;
            bytes
        }};
    }
    let body = match command {
        Command::Signon | Command::Packet => {
            let view_len = usize::from(profile.view_splits) * VIEW_INFO_SIZE;
            let Some(view) = rest.get(pos..pos + view_len) else {
                return short("the view-info blocks", Some(pos + view_len));
            };
            pos += view_len;
            let t = fixed!(PacketTrailer, 12, "the packet sequence numbers and length");
            let packet = PacketBody {
                view,
                seq_in: t.seq_in,
                seq_out: t.seq_out,
                data: data!(t.length, "the packet data"),
            };
            if command == Command::Signon {
                Body::Signon(packet)
            } else {
                Body::Packet(packet)
            }
        }
        Command::SyncTick => Body::SyncTick,
        Command::ConsoleCmd => {
            let p = fixed!(LengthPrefix, 4, "the console command's length");
            Body::ConsoleCmd(data!(p.length, "the console command"))
        }
        Command::UserCmd => {
            let p = fixed!(UserCmdPrefix, 8, "the user command's sequence and length");
            Body::UserCmd {
                sequence: p.sequence,
                data: data!(p.length, "the user command"),
            }
        }
        Command::DataTables => {
            let p = fixed!(LengthPrefix, 4, "the data tables' length");
            Body::DataTables(data!(p.length, "the data tables"))
        }
        Command::StringTables => {
            let p = fixed!(LengthPrefix, 4, "the string tables' length");
            Body::StringTables(data!(p.length, "the string tables"))
        }
        Command::CustomData => {
            let p = fixed!(CustomDataPrefix, 8, "the custom data's callback and length");
            Body::CustomData {
                callback: p.callback,
                data: data!(p.length, "the custom data"),
            }
        }
        Command::Stop => unreachable!("handled above"),
    };
    Step::Frame {
        frame: Frame { tick, slot, body },
        len: pos,
    }
}

/// A whole Source demo in memory, read without copying: frames borrow from the input.
#[derive(Debug, Clone)]
pub struct SourceSlice<'a> {
    data: &'a [u8],
    header: Header,
    profile: Profile,
    origin: ProfileOrigin,
}

impl<'a> SourceSlice<'a> {
    /// Checks the stamp, reads the header and chooses the profile ([`Profile::detect`]).
    pub fn parse(data: &'a [u8]) -> Result<Self, ReadError> {
        let header = parse_header(data)?;
        let (profile, origin) = Profile::detect(&header, data);
        Ok(SourceSlice {
            data,
            header,
            profile,
            origin,
        })
    }

    /// Like [`parse`](Self::parse) with a profile chosen by the caller.
    pub fn with_profile(data: &'a [u8], profile: Profile) -> Result<Self, ReadError> {
        let header = parse_header(data)?;
        Ok(SourceSlice {
            data,
            header,
            profile,
            origin: ProfileOrigin::Given,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The profile frames are read with.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Where the profile came from.
    pub fn profile_origin(&self) -> ProfileOrigin {
        self.origin
    }

    /// The whole input.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The frames in file order; the iterator ends after the stop command or the first
    /// error.
    pub fn frames(&self) -> Frames<'a> {
        Frames {
            data: self.data,
            pos: HEADER_SIZE,
            profile: self.profile,
            done: false,
        }
    }
}

/// The frames of a [`SourceSlice`], borrowed from its input.
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    data: &'a [u8],
    pos: usize,
    profile: Profile,
    done: bool,
}

impl Frames<'_> {
    /// Offset of the next frame.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<FrameAt<'a>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let offset = self.pos as u64;
        let rest = self.data.get(self.pos..).unwrap_or_default();
        match step(&self.profile, rest, true) {
            Step::Frame { frame, len } => {
                self.pos += len;
                self.done = frame.command() == Command::Stop;
                Some(Ok(FrameAt { offset, len, frame }))
            }
            Step::Fail(kind) => {
                self.done = true;
                Some(Err(ReadError::new(offset, kind)))
            }
            // Unreachable with eof = true; treated as the truncation it would be.
            Step::NeedMore(_) => {
                self.done = true;
                Some(Err(ReadError::new(
                    offset,
                    ReadErrorKind::UnexpectedEnd {
                        expected: "a frame",
                        available: rest.len() as u64,
                    },
                )))
            }
        }
    }
}

impl std::iter::FusedIterator for Frames<'_> {}

/// The longest payload a frame may announce (packet data, a console or user command, data
/// or string tables, custom data), for both readers: the streaming reader holds a frame
/// whole, so a damaged length field on an endless stream must not make it buffer
/// gigabytes. The largest in the real files this crate is tested on is 0.9 MB (Left 4
/// Dead 2's string tables).
pub const MAX_PAYLOAD_LEN: usize = 32 << 20;

/// The most bytes after a stop command the streaming reader keeps (real files hold 3 to 5).
pub const MAX_STREAM_STOP_TAIL: usize = 1 << 20;

/// How many bytes of frames the streaming reader reads with the header, at least, before
/// it detects a profile from them (the slice reader's detection sees the whole file).
const DETECT_WINDOW: usize = 64 * 1024;

/// How much of a file the streaming reader reads ahead at most to detect a profile the
/// header leaves open (the slice reader looks at the first 64 frames, wherever they end).
pub const MAX_DETECT_PREFIX: usize = 16 << 20;

/// A streaming reader over any [`Read`]: it holds the header and the unread part of the
/// current read (plus, for a long frame, that frame).
///
/// Nothing is allocated from a length field: a payload is read as the source delivers it,
/// so a length larger than the file costs no more memory than the file. Bytes after the
/// stop command are kept up to [`MAX_STREAM_STOP_TAIL`].
pub struct SourceReader<R: Read> {
    input: Refill<R>,
    header: Header,
    profile: Profile,
    origin: ProfileOrigin,
    done: bool,
}

impl<R: Read> SourceReader<R> {
    /// Reads the header; the profile comes from it, or from the first frames when the
    /// header leaves it open ([`Profile::detect`], over the first 64 KiB).
    pub fn new(inner: R) -> Result<Self, ReadError> {
        let mut reader = Self::start(inner, None)?;
        if !Profile::from_header(&reader.header).1 {
            // Read on until no candidate's probe runs out of input (or the cap), so that
            // detection sees what the slice reader's sees.
            while !reader.input.eof() && reader.input.head().len() < MAX_DETECT_PREFIX {
                let header = reader.header;
                let buffered = reader.input.head();
                let ran_out =
                    Profile::candidates().any(|p| p.probe_prefix(&header, buffered, false).1);
                if !ran_out {
                    break;
                }
                reader.input.fill(None, 0)?;
            }
        }
        let (profile, origin) = Profile::detect(&reader.header, reader.input.head());
        reader.profile = profile;
        reader.origin = origin;
        reader.input.consume(HEADER_SIZE);
        Ok(reader)
    }

    /// Like [`new`](Self::new) with a profile chosen by the caller.
    pub fn with_profile(inner: R, profile: Profile) -> Result<Self, ReadError> {
        let mut reader = Self::start(inner, Some(profile))?;
        reader.input.consume(HEADER_SIZE);
        Ok(reader)
    }

    fn start(inner: R, profile: Option<Profile>) -> Result<Self, ReadError> {
        let mut input = Refill::new(inner);
        // The header and enough frames to detect a profile from.
        while input.head().len() < HEADER_SIZE + DETECT_WINDOW && !input.eof() {
            input.fill(None, 0)?;
        }
        Ok(SourceReader {
            header: parse_header(input.head())?,
            input,
            profile: profile.unwrap_or(Profile::SOURCE_2013),
            origin: ProfileOrigin::Given,
            done: false,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The profile frames are read with.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Where the profile came from.
    pub fn profile_origin(&self) -> ProfileOrigin {
        self.origin
    }

    /// Offset of the next frame.
    pub fn position(&self) -> u64 {
        self.input.position()
    }

    /// Reads the next frame; `None` after the stop command or an error.
    ///
    /// The frame borrows the reader's buffer, which the next call reuses.
    #[allow(clippy::should_implement_trait)] // A lending iterator: items borrow the reader.
    pub fn next(&mut self) -> Option<Result<FrameAt<'_>, ReadError>> {
        if self.done {
            return None;
        }
        let offset = self.position();
        // Find out how long the next frame is, reading more as needed; then cut it once
        // more to hand out a frame borrowing the settled buffer.
        let len = loop {
            let rest = self.input.rest();
            let kind = match step(&self.profile, rest, self.input.eof()) {
                Step::Frame { len, .. } => break len,
                Step::NeedMore(need) => {
                    if rest.len() > MAX_STREAM_STOP_TAIL
                        && rest.first() == self.profile.commands.number(Command::Stop).as_ref()
                    {
                        ReadErrorKind::StopTailTooLong {
                            limit: MAX_STREAM_STOP_TAIL,
                        }
                    } else {
                        match self.input.fill(need, offset) {
                            Ok(()) => continue,
                            Err(e) => {
                                self.done = true;
                                return Some(Err(e));
                            }
                        }
                    }
                }
                Step::Fail(kind) => kind,
            };
            self.done = true;
            return Some(Err(ReadError::new(offset, kind)));
        };
        let (rest, read) = self.input.split();
        read.consume(len);
        match rest
            .get(..len)
            .map(|bytes| step(&self.profile, bytes, true))
        {
            Some(Step::Frame { frame, len }) => {
                self.done = frame.command() == Command::Stop;
                Some(Ok(FrameAt { offset, len, frame }))
            }
            // The same bytes were cut a moment ago; kept as an error rather than a panic.
            _ => {
                self.done = true;
                Some(Err(ReadError::new(
                    offset,
                    ReadErrorKind::UnexpectedEnd {
                        expected: "a frame",
                        available: len as u64,
                    },
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_ticks() {
        assert_eq!(stop_tick(&[0x9d, 0xff, 0xff]), Some(-99));
        assert_eq!(stop_tick(&[0x73, 0, 0]), Some(115));
        assert_eq!(stop_tick(&[0xba, 4, 0, 0, 0]), Some(1210));
        assert_eq!(stop_tick(&[1, 2]), None);
    }

    #[test]
    fn other_stamps_are_named() {
        let kind = |d: &[u8]| parse_header(d).unwrap_err().kind;
        assert!(matches!(kind(b"HLDEMO\0\0xxxx"), ReadErrorKind::GoldSrc));
        assert!(matches!(kind(b"PBDEMS2\0xxxx"), ReadErrorKind::Source2));
        assert!(matches!(kind(b"HL2DEMX"), ReadErrorKind::BadMagic { .. }));
        assert!(matches!(kind(b""), ReadErrorKind::BadMagic { .. }));
        assert!(matches!(
            kind(b"HL2DEMO\0"),
            ReadErrorKind::UnexpectedEnd { .. }
        ));
    }
}
