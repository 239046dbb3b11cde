//! Readers: a zero-copy one over a byte slice ([`TeehistorianSlice`]) and a streaming one
//! over any [`Read`] ([`TeehistorianReader`]). Both decode with [`Message::decode`] and
//! number ticks with one [`TickState`], through the same `step` function, so they agree by
//! construction.
//!
//! A reader stops at the first error and reports it with its offset; every message before
//! it has been delivered. The input may end after FINISH or, without one, on a message
//! boundary: DDNet writes FINISH only when the game ends cleanly, so a file still being
//! written, or left by a server that was stopped or crashed between two writes, ends there.
//! Both end the iteration; `finished()` tells them apart. An input that ends inside a
//! message is a truncation error ([`ReadError::is_truncation`]), and bytes after FINISH are
//! an error too.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind};
use super::format::{FILE_UUID, MAX_CLIENTS, id as message_id};
use super::header::Header;
use super::message::{
    DecodeError, Decoded, INT_WINDOW, LEGACY_PACKER_SIZE, Message, decode_input, decode_ints_only,
    decode_player_diff, has_legacy_packer, skip_input,
};
use crate::codec::varint;
use crate::read::Refill;
use std::io::{self, Read};

/// The absolute tick, numbered exactly as DDNet's writer does.
///
/// The writer leaves a tick implicit when it is the next tick and its first player record
/// has a client id no higher than the last one recorded before; the reader mirrors that:
///
/// * it starts at tick 0 (the writer's implicit tick before the game) with the "last client
///   id" at 128 ([`MAX_CLIENTS`]), so the first player record opens tick 1 (files of 64-slot
///   servers, which never hold a client id above 63, number the same as from 64);
/// * a player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD) whose cid is not above the last
///   one advances the tick by one; either way its cid becomes the last one;
/// * TICK_SKIP `dt` advances the tick by `dt + 1` and sets the last cid to -1, so the
///   records of that tick do not advance it again;
/// * nothing else changes the tick.
///
/// A player record whose client id is outside `0..128` cannot come from DDNet's writer and
/// leaves no rule to number it by: [`TickState::apply`] refuses it.
///
/// (Readers that reset the last cid on TICK_SKIP to anything else, or start it at -1 or 64,
/// number the ticks after an explicit tick or at the start differently from DDNet.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TickState {
    tick: i32,
    last_cid: i32,
}

impl Default for TickState {
    fn default() -> Self {
        Self::new()
    }
}

impl TickState {
    /// The state at the start of the body: tick 0, last cid 128 ([`MAX_CLIENTS`]).
    pub const fn new() -> Self {
        TickState {
            tick: 0,
            last_cid: MAX_CLIENTS,
        }
    }

    /// The current tick.
    pub const fn tick(&self) -> i32 {
        self.tick
    }

    /// Applies `message` and returns the tick it belongs to. On an error (the tick would
    /// fall outside `0..=i32::MAX`, or a player record's client id is outside `0..128`) the
    /// state is left unchanged.
    #[inline]
    pub fn apply(&mut self, message: &Message<'_>) -> Result<i32, TickError> {
        match *message {
            Message::PlayerDiff { cid, .. }
            | Message::PlayerNew { cid, .. }
            | Message::PlayerOld { cid } => return self.player_record(cid),
            Message::TickSkip { dt } => {
                let next = i64::from(self.tick) + i64::from(dt) + 1;
                self.tick = i32::try_from(next)
                    .ok()
                    .filter(|&t| t >= 0)
                    .ok_or(TickError::OutOfRange { tick: next })?;
                self.last_cid = -1;
            }
            _ => {}
        }
        Ok(self.tick)
    }
}

impl TickState {
    /// [`apply`](Self::apply) for a player record of client `cid`.
    #[inline(always)]
    fn player_record(&mut self, cid: i32) -> Result<i32, TickError> {
        if !(0..MAX_CLIENTS).contains(&cid) {
            return Err(TickError::ClientIdOutOfRange { cid });
        }
        if cid <= self.last_cid {
            // The tick is never negative, so only i32::MAX can overflow.
            self.tick = self.tick.checked_add(1).ok_or(TickError::OutOfRange {
                tick: i64::from(self.tick) + 1,
            })?;
        }
        self.last_cid = cid;
        Ok(self.tick)
    }
}

/// Why [`TickState::apply`] cannot number a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TickError {
    /// The message would move the tick outside `0..=i32::MAX`.
    OutOfRange {
        /// The tick it would lead to.
        tick: i64,
    },
    /// A player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD) for a client id outside
    /// `0..128` ([`MAX_CLIENTS`]).
    ClientIdOutOfRange {
        /// The client id.
        cid: i32,
    },
}

impl From<TickError> for ReadErrorKind {
    fn from(e: TickError) -> Self {
        match e {
            TickError::OutOfRange { tick } => ReadErrorKind::TickOutOfRange { tick },
            TickError::ClientIdOutOfRange { cid } => ReadErrorKind::ClientIdOutOfRange { cid },
        }
    }
}

/// A message with its place in the file.
///
/// With feature `serde` it is an object of `offset`, `tick`, `size` (the stored bytes),
/// `non_canonical` and `cut_args` (when not 0), and the message's own fields
/// ([`MessageLayout`](super::MessageLayout) describes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MessageAt<'a> {
    /// Offset of the message's first byte from the start of the file.
    pub offset: u64,
    /// The tick the message belongs to ([`TickState`]).
    pub tick: i32,
    /// The message.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub message: Message<'a>,
    /// The message's bytes as stored.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "size", serialize_with = "serialize_len")
    )]
    pub raw: &'a [u8],
    /// How many of its ints were stored in a form DDNet does not write; when non-zero,
    /// encoding `message` does not give back `raw`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub non_canonical: u32,
    /// How many arguments of a CONSOLE_COMMAND that DDNet's old 2 KiB packer cut are
    /// missing ([`Message::decode_cut_console_command`]); when non-zero, encoding
    /// `message` does not give back `raw`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub cut_args: u32,
}

#[cfg(feature = "serde")]
fn serialize_len<S: serde::Serializer>(raw: &&[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(raw.len() as u64)
}

#[cfg(feature = "serde")]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl MessageAt<'_> {
    /// Offset of the byte after the message.
    pub fn end(&self) -> u64 {
        self.offset + self.raw.len() as u64
    }
}

/// Checks the file UUID at the start of `data` (which holds the first up to 16 bytes).
fn check_magic(data: &[u8]) -> Result<(), ReadError> {
    let found = data.get(..FILE_UUID.len()).unwrap_or(data);
    let n = found.len();
    if !FILE_UUID.starts_with(found) {
        return Err(ReadError::new(
            0,
            ReadErrorKind::BadMagic {
                found: found.to_vec(),
            },
        ));
    }
    if n < FILE_UUID.len() {
        return Err(ReadError::new(
            0,
            ReadErrorKind::UnexpectedEnd {
                expected: "the 16-byte teehistorian UUID",
                available: n as u64,
            },
        ));
    }
    Ok(())
}

/// The longest JSON header either reader accepts, in bytes. DDNet cuts every header value
/// to at most 1023 escaped bytes, and its largest headers (every config variable changed)
/// stay well below this; the cap keeps the streaming reader from buffering a stream that
/// never ends its header.
pub const MAX_HEADER_LEN: usize = 4 << 20;

/// The longest message either reader accepts, in bytes. DDNet's longest (console commands
/// with their arguments, EX records carrying network messages) are a few KiB; the cap keeps
/// the streaming reader from buffering a message whose size field or unterminated string
/// runs on for gigabytes.
pub const MAX_MESSAGE_LEN: usize = 1 << 20;

/// Where the header's NUL is in `after_uuid` (the bytes after the file UUID, as far as they
/// have been read; `eof`: that is all there is), or the error both readers give: cut short,
/// or longer than [`MAX_HEADER_LEN`]. `Ok(None)`: more input is needed to tell.
fn header_end(after_uuid: &[u8], searched: usize, eof: bool) -> Result<Option<usize>, ReadError> {
    let window = after_uuid.get(..MAX_HEADER_LEN + 1).unwrap_or(after_uuid);
    if let Some(i) = (window.get(searched..).unwrap_or_default())
        .iter()
        .position(|&b| b == 0)
    {
        return Ok(Some(searched + i));
    }
    if after_uuid.len() > MAX_HEADER_LEN {
        return Err(ReadError::new(
            FILE_UUID.len() as u64,
            ReadErrorKind::HeaderTooLong,
        ));
    }
    if eof {
        return Err(header_cut(after_uuid.len()));
    }
    Ok(None)
}

/// The truncation error for a header whose NUL is missing.
fn header_cut(available: usize) -> ReadError {
    ReadError::new(
        FILE_UUID.len() as u64,
        ReadErrorKind::UnexpectedEnd {
            expected: "the JSON header and its terminating NUL",
            available: available as u64,
        },
    )
}

/// Parses the JSON header and checks that its version is one whose messages this crate
/// knows.
pub(crate) fn parse_header(json: &[u8]) -> Result<Header, ReadError> {
    let at = |kind| ReadError::new(FILE_UUID.len() as u64, kind);
    let header = Header::from_json(json).map_err(|e| at(ReadErrorKind::Header(e)))?;
    if header.version != "1" && header.version != "2" {
        return Err(at(ReadErrorKind::UnsupportedVersion {
            version: header.version.clone(),
        }));
    }
    Ok(header)
}

/// Reading state shared by both readers.
#[derive(Debug, Clone, Copy)]
struct Body {
    ticks: TickState,
    finished: bool,
    done: bool,
    /// Written with DDNet's old 2 KiB packer, which could cut console commands.
    legacy_packer: bool,
}

impl Body {
    fn new(header: &Header) -> Self {
        Body {
            ticks: TickState::new(),
            finished: false,
            done: false,
            legacy_packer: has_legacy_packer(&header.version, header.version_minor.as_deref()),
        }
    }

    /// Decodes the message at the start of `rest` as this file's writer wrote it: in a file
    /// written with DDNet's old 2 KiB packer, a console command is first read as one the
    /// packer may have cut ([`Message::decode_cut_console_command`]), since read whole it
    /// would take the bytes of the next messages for its missing arguments.
    #[inline]
    fn decode<'a>(&self, rest: &'a [u8]) -> Result<Decoded<'a>, DecodeError> {
        let decoded = Message::decode(rest);
        if self.legacy_packer
            && matches!(
                decoded,
                Ok(Decoded {
                    message: Message::ConsoleCommand { .. },
                    ..
                }) | Err(DecodeError::Incomplete { .. })
            )
            && let Some(cut) = Message::decode_cut_console_command(rest)
        {
            return Ok(cut);
        }
        decoded
    }

    /// Whether `rest`, which does not hold all of the input yet, starts with a console
    /// command whose cut cannot be told until the old packer's size is buffered.
    fn needs_packer_window(&self, rest: &[u8]) -> bool {
        self.legacy_packer
            && rest.len() < LEGACY_PACKER_SIZE
            && varint::unpack(rest.get(..varint::MAX_BYTES).unwrap_or(rest))
                .is_some_and(|(id, _)| id == message_id::CONSOLE_COMMAND)
    }
}

/// What the next step over the unread input `rest` is.
enum Step<'a> {
    /// A complete message.
    Message(Decoded<'a>),
    /// `rest` ends inside a message; more input (up to this total length, if known) would
    /// tell.
    NeedMore(Option<usize>),
    /// Clean end: FINISH was read and nothing follows.
    End,
    /// An error (the reader stops).
    Fail(ReadErrorKind),
}

/// The one decision both readers make for each message. `eof` says that `rest` is all the
/// input there is; without it, a shortage asks for more instead of failing. Changes nothing:
/// the reader calls [`commit`] with the message it takes.
#[inline(always)]
fn step<'a>(body: &Body, rest: &'a [u8], eof: bool) -> Step<'a> {
    if body.finished {
        return match (rest.is_empty(), eof) {
            (true, true) => Step::End,
            (true, false) => Step::NeedMore(Some(1)),
            // The streaming reader counts the rest of its input itself.
            (false, _) => Step::Fail(ReadErrorKind::DataAfterFinish {
                len: rest.len() as u64,
            }),
        };
    }
    if rest.is_empty() && eof {
        // An unfinished file: the server is still writing it, was stopped, or crashed
        // between two writes. Everything is there; `finished()` tells it apart.
        return Step::End;
    }
    if !eof && body.needs_packer_window(rest) {
        return Step::NeedMore(Some(LEGACY_PACKER_SIZE));
    }
    match body.decode(rest) {
        Ok(decoded) if decoded.len > MAX_MESSAGE_LEN => Step::Fail(ReadErrorKind::MessageTooLong {
            at_least: decoded.len as u64,
        }),
        Ok(decoded) => Step::Message(decoded),
        // Decided by where the message would end, never by how much happens to be buffered,
        // so that both readers give the same answer for the same bytes.
        Err(DecodeError::Incomplete {
            need: Some(total), ..
        }) if total > MAX_MESSAGE_LEN => Step::Fail(ReadErrorKind::MessageTooLong {
            at_least: total as u64,
        }),
        Err(DecodeError::Incomplete { .. }) if rest.len() > MAX_MESSAGE_LEN => {
            Step::Fail(ReadErrorKind::MessageTooLong {
                at_least: rest.len() as u64,
            })
        }
        Err(DecodeError::Incomplete { expected, need }) => {
            if eof {
                Step::Fail(ReadErrorKind::UnexpectedEnd {
                    expected,
                    available: rest.len() as u64,
                })
            } else {
                Step::NeedMore(need)
            }
        }
        Err(DecodeError::UnknownMessageId { id }) => {
            Step::Fail(ReadErrorKind::UnknownMessageId { id })
        }
        Err(DecodeError::NegativeLength { what, value }) => {
            Step::Fail(ReadErrorKind::NegativeLength { what, value })
        }
    }
}

/// Takes a decoded message: numbers its tick and notes a FINISH.
#[inline(always)]
fn commit<'a>(
    body: &mut Body,
    decoded: Decoded<'a>,
    raw: &'a [u8],
    offset: u64,
) -> Result<MessageAt<'a>, ReadErrorKind> {
    let tick = body.ticks.apply(&decoded.message)?;
    body.finished = matches!(decoded.message, Message::Finish);
    Ok(MessageAt {
        offset,
        tick,
        message: decoded.message,
        raw,
        non_canonical: decoded.non_canonical,
        cut_args: decoded.cut_args,
    })
}

/// A whole teehistorian file in memory, read without copying: messages borrow from the input.
#[derive(Debug, Clone)]
pub struct TeehistorianSlice<'a> {
    data: &'a [u8],
    header: Header,
    body_offset: usize,
}

impl<'a> TeehistorianSlice<'a> {
    /// Checks the file UUID and parses the header; messages are read lazily by
    /// [`messages`](Self::messages).
    pub fn parse(data: &'a [u8]) -> Result<Self, ReadError> {
        check_magic(data)?;
        // `check_magic` found the whole UUID.
        let after_uuid = data.get(FILE_UUID.len()..).unwrap_or_default();
        // With `eof`, `header_end` finds the NUL or fails: `None` is not returned.
        let nul = header_end(after_uuid, 0, true)?.ok_or_else(|| header_cut(after_uuid.len()))?;
        let json = after_uuid
            .get(..nul)
            .ok_or_else(|| header_cut(after_uuid.len()))?;
        let header = parse_header(json)?;
        Ok(TeehistorianSlice {
            data,
            header,
            body_offset: FILE_UUID.len() + nul + 1,
        })
    }

    /// The typed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header's JSON text as stored (without the file UUID and the NUL).
    pub fn header_json(&self) -> &'a [u8] {
        // `parse` found the header there.
        (self.data)
            .get(FILE_UUID.len()..self.body_offset - 1)
            .unwrap_or_default()
    }

    /// Offset of the first message: the header's length, UUID and NUL included.
    pub fn body_offset(&self) -> usize {
        self.body_offset
    }

    /// The whole input.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// An iterator over the messages; it ends after FINISH or after the first error.
    pub fn messages(&self) -> Messages<'a> {
        Messages {
            data: self.data,
            pos: self.body_offset,
            body: Body::new(&self.header),
            current: MessageAt {
                offset: 0,
                tick: 0,
                message: Message::Finish,
                raw: &[],
                non_canonical: 0,
                cut_args: 0,
            },
        }
    }
}

/// The messages of a [`TeehistorianSlice`], borrowed from its input.
#[derive(Debug, Clone)]
pub struct Messages<'a> {
    data: &'a [u8],
    pos: usize,
    body: Body,
    /// The message [`next_ref`](Self::next_ref) lends.
    current: MessageAt<'a>,
}

impl Messages<'_> {
    /// The tick of the last message read (0 before the first).
    pub fn tick(&self) -> i32 {
        self.body.ticks.tick()
    }

    /// Offset of the next message.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether FINISH has been read. At the end of an unfinished file (one that stops on a
    /// message boundary without FINISH), this is false.
    pub fn finished(&self) -> bool {
        self.body.finished
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<MessageAt<'a>, ReadError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.body.done {
            return None;
        }
        if let Some((tick, decoded, rest)) = self.next_clean() {
            let offset = self.pos as u64;
            self.pos += decoded.len;
            return Some(Ok(MessageAt {
                offset,
                tick,
                message: decoded.message,
                // The message was decoded from the start of `rest`.
                raw: rest.get(..decoded.len).unwrap_or(rest),
                non_canonical: decoded.non_canonical,
                cut_args: decoded.cut_args,
            }));
        }
        self.next_slow()
    }
}

impl<'a> Messages<'a> {
    /// The next message if it decodes and numbers without a problem, with its tick and the
    /// rest of the input from its start (FINISH noted; the position not moved): the body of
    /// a file is mostly such messages, and taking them straight through keeps the
    /// per-message cost of [`next`](Iterator::next) and [`next_ref`](Self::next_ref) to
    /// the decoding itself. Everything else is [`next_slow`](Self::next_slow)'s.
    #[inline(always)]
    fn next_clean(&mut self) -> Option<(i32, Decoded<'a>, &'a [u8])> {
        if self.body.finished {
            return None;
        }
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let decoded = Message::decode(rest).ok()?;
        if decoded.len > MAX_MESSAGE_LEN
            || (self.body.legacy_packer
                && matches!(decoded.message, Message::ConsoleCommand { .. }))
        {
            return None;
        }
        let tick = self.body.ticks.apply(&decoded.message).ok()?;
        self.body.finished = matches!(decoded.message, Message::Finish);
        Some((tick, decoded, rest))
    }

    /// The next message as [`next`](Iterator::next) gives it, kept in the iterator and
    /// lent until the next call: the fastest way through a body. A [`MessageAt`] is 96
    /// bytes, and one returned by value is built where the decoder's registers go and
    /// then copied to where the caller keeps it; read back in wider pieces than it was
    /// written, that copy waits for the stores (a store-forwarding stall), which was
    /// the largest single cost of `next`. Here each field is written once, in place.
    #[inline]
    pub fn next_ref(&mut self) -> Option<Result<&MessageAt<'a>, ReadError>> {
        if self.body.done {
            return None;
        }
        if let Some((tick, decoded, rest)) = self.next_clean() {
            let current = &mut self.current;
            current.offset = self.pos as u64;
            current.tick = tick;
            current.message = decoded.message;
            // The message was decoded from the start of `rest`.
            current.raw = rest.get(..decoded.len).unwrap_or(rest);
            current.non_canonical = decoded.non_canonical;
            current.cut_args = decoded.cut_args;
            self.pos += decoded.len;
            return Some(Ok(&self.current));
        }
        match self.next_slow()? {
            Ok(message) => {
                self.current = message;
                Some(Ok(&self.current))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// The next message if it is one of the int-only messages (player records, inputs,
    /// TICK_SKIP, JOIN, FINISH) and decodes and numbers cleanly, with its tick; otherwise
    /// `None`, and nothing is read. Most of a body is such messages: the semantic layer's
    /// [`TickWalk`](super::TickWalk) takes them this way, without a [`MessageAt`] each.
    #[inline(always)]
    pub(crate) fn next_plain(&mut self) -> Option<(i32, Decoded<'static>)> {
        if self.body.finished || self.body.done {
            return None;
        }
        // A window of INT_WINDOW bytes is far below MAX_MESSAGE_LEN, and int-only messages
        // are never the console commands the old packer cut.
        let decoded = decode_ints_only(self.data.get(self.pos..)?.first_chunk::<INT_WINDOW>()?)?;
        let tick = self.body.ticks.apply(&decoded.message).ok()?;
        self.body.finished = matches!(decoded.message, Message::Finish);
        self.pos += decoded.len;
        Some((tick, decoded))
    }

    /// [`next_plain`](Self::next_plain) for the commonest message, a PLAYER_DIFF of a
    /// client id below 64: its tick, client id and move, without a [`Message`] made.
    #[inline(always)]
    pub(crate) fn next_player_diff(&mut self) -> Option<(i32, i32, i32, i32)> {
        if self.body.finished || self.body.done {
            return None;
        }
        let window = self.data.get(self.pos..)?.first_chunk::<INT_WINDOW>()?;
        let (cid, dx, dy, len) = decode_player_diff(window)?;
        let tick = self.body.ticks.player_record(cid).ok()?;
        self.pos += len;
        Some((tick, cid, dx, dy))
    }

    /// [`next_plain`](Self::next_plain) for an INPUT_DIFF or INPUT_NEW: its tick, whether
    /// it is INPUT_NEW, the client id and the ints, without a [`Message`] made.
    #[inline(always)]
    pub(crate) fn next_input(&mut self) -> Option<(i32, bool, i32, [i32; 10])> {
        if self.body.finished || self.body.done {
            return None;
        }
        let window = self.data.get(self.pos..)?.first_chunk::<INT_WINDOW>()?;
        let (new, cid, ints, len) = decode_input(window)?;
        self.pos += len;
        // An input never changes the tick.
        Some((self.body.ticks.tick(), new, cid, ints))
    }

    /// Steps over the messages at the start of the rest that `run` takes, all in the
    /// current tick: `run` gets the rest and the client id of the tick's last player
    /// record, and gives the bytes it stepped over, the new last client id (`run` takes no
    /// record that would open the next tick) and how many messages; the count is
    /// returned. For a walk that follows a few clients of many (see
    /// [`TickWalk::following`](super::TickWalk::following)).
    #[inline(always)]
    pub(crate) fn skim(&mut self, run: impl FnOnce(&[u8], i32) -> (usize, i32, u64)) -> u64 {
        if self.body.finished || self.body.done {
            return 0;
        }
        // `pos` never passes the end: only whole messages are stepped over.
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let (len, last_cid, skimmed) = run(rest, self.body.ticks.last_cid);
        self.pos += len;
        self.body.ticks.last_cid = last_cid;
        skimmed
    }

    /// [`next_input`](Self::next_input) without the ints (see [`skip_input`]).
    #[inline(always)]
    pub(crate) fn next_input_skipped(&mut self) -> Option<(i32, bool, i32)> {
        if self.body.finished || self.body.done {
            return None;
        }
        let window = self.data.get(self.pos..)?.first_chunk::<INT_WINDOW>()?;
        let (new, cid, len) = skip_input(window)?;
        self.pos += len;
        Some((self.body.ticks.tick(), new, cid))
    }

    /// [`next`](Iterator::next) for everything but a message that decodes and numbers
    /// cleanly: the end, errors, and the message after FINISH.
    #[inline(never)]
    fn next_slow(&mut self) -> Option<<Self as Iterator>::Item> {
        // `pos` never passes the end: only whole messages are stepped over.
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let offset = self.pos as u64;
        let result = match step(&self.body, rest, true) {
            Step::Message(decoded) => {
                let raw = rest.get(..decoded.len).unwrap_or(rest);
                commit(&mut self.body, decoded, raw, offset)
            }
            Step::End => {
                self.body.done = true;
                return None;
            }
            Step::Fail(kind) => Err(kind),
            // Unreachable with eof = true; treated as the truncation it would be.
            Step::NeedMore(_) => Err(ReadErrorKind::UnexpectedEnd {
                expected: "a message",
                available: rest.len() as u64,
            }),
        };
        match result {
            Ok(item) => {
                self.pos += item.raw.len();
                Some(Ok(item))
            }
            Err(kind) => {
                self.body.done = true;
                Some(Err(ReadError::new(offset, kind)))
            }
        }
    }
}

impl std::iter::FusedIterator for Messages<'_> {}

/// The messages of a file in order, from memory ([`Messages`]) or from a stream
/// ([`TeehistorianReader`]): what the operations that walk a file once (validate, dump,
/// rewrite, repair, scrub) take, so that a file on disk is walked without being held in
/// memory. Each message may borrow the source until the next call.
pub trait ReadMessages {
    /// The next message; `None` after FINISH (when nothing follows) or after an error.
    fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>>;
    /// Whether FINISH has been read.
    fn finished(&self) -> bool;
    /// The offset of the next message (at the end: the bytes read).
    fn position(&self) -> u64;
}

impl ReadMessages for Messages<'_> {
    fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>> {
        self.next()
    }

    fn finished(&self) -> bool {
        Messages::finished(self)
    }

    fn position(&self) -> u64 {
        self.pos as u64
    }
}

impl<R: Read> ReadMessages for TeehistorianReader<R> {
    fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>> {
        self.next()
    }

    fn finished(&self) -> bool {
        TeehistorianReader::finished(self)
    }

    fn position(&self) -> u64 {
        TeehistorianReader::position(self)
    }
}

/// A streaming reader over any [`Read`]: it holds the header and the unread part of the
/// current read chunk (plus, for a long message, that message).
///
/// Nothing is allocated from a length field: a MESSAGE or EX payload, a string or the header
/// is read as the source delivers it, so a size field larger than the file costs no more
/// memory than the file. Reads are buffered internally; there is no need for a `BufReader`.
pub struct TeehistorianReader<R: Read> {
    input: Refill<R>,
    header: Header,
    header_json: Vec<u8>,
    body_offset: u64,
    body: Body,
}

impl<R: Read> TeehistorianReader<R> {
    /// Reads and checks the file UUID and the header.
    pub fn new(inner: R) -> Result<Self, ReadError> {
        let mut input = Refill::new(inner);
        while input.head().len() < FILE_UUID.len() && !input.eof() {
            input.fill(Some(FILE_UUID.len()), 0)?;
        }
        check_magic(input.head())?;
        // Search each newly read part once for the NUL.
        let mut searched = 0;
        let nul = loop {
            // `check_magic` found the whole UUID.
            let after_uuid = input.head().get(FILE_UUID.len()..).unwrap_or_default();
            if let Some(i) = header_end(after_uuid, searched, input.eof())? {
                break FILE_UUID.len() + i;
            }
            searched = after_uuid.len();
            input.fill(None, FILE_UUID.len() as u64)?;
        };
        let json = (input.head())
            .get(FILE_UUID.len()..nul)
            .ok_or_else(|| header_cut(nul - FILE_UUID.len()))?;
        let header = parse_header(json)?;
        let header_json = json.to_vec();
        input.consume(nul + 1);
        Ok(TeehistorianReader {
            body: Body::new(&header),
            header,
            header_json,
            body_offset: input.position(),
            input,
        })
    }

    /// The typed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header's JSON text as stored (without the file UUID and the NUL).
    pub fn header_json(&self) -> &[u8] {
        &self.header_json
    }

    /// Offset of the first message.
    pub fn body_offset(&self) -> u64 {
        self.body_offset
    }

    /// Offset of the next message.
    pub fn position(&self) -> u64 {
        self.input.position()
    }

    /// The tick of the last message read (0 before the first).
    pub fn tick(&self) -> i32 {
        self.body.ticks.tick()
    }

    /// Whether FINISH has been read. At the end of an unfinished file (one that stops on a
    /// message boundary without FINISH), this is false.
    pub fn finished(&self) -> bool {
        self.body.finished
    }

    /// Reads the next message; `None` after FINISH (when nothing follows) or after an error.
    ///
    /// The message borrows the reader's buffer, which the next call reuses.
    #[allow(clippy::should_implement_trait)] // A lending iterator: items borrow the reader.
    pub fn next(&mut self) -> Option<Result<MessageAt<'_>, ReadError>> {
        if self.body.done {
            return None;
        }
        let offset = self.position();
        // Most messages hold only ints and borrow nothing, so they are decoded once, here;
        // the rest take the general path below.
        if self.input.rest().len() < INT_WINDOW
            && !self.input.eof()
            && let Err(e) = self.input.fill(None, offset)
        {
            return Some(Err(self.fail(e)));
        }
        if !self.body.finished
            && let Some(window) = self.input.rest().first_chunk::<INT_WINDOW>()
            && let Some(decoded) = decode_ints_only(window)
        {
            // `decoded` borrows nothing: the message handed out borrows only `rest`.
            let len = decoded.len;
            let (rest, read) = self.input.split();
            return Some(
                match commit(
                    &mut self.body,
                    decoded,
                    rest.get(..len).unwrap_or(rest),
                    offset,
                ) {
                    Ok(item) => {
                        read.consume(len);
                        Ok(item)
                    }
                    Err(kind) => {
                        self.body.done = true;
                        Err(ReadError::new(offset, kind))
                    }
                },
            );
        }
        // First find out how long the next message is, reading more as needed; then decode
        // it once more to hand out a message borrowing the settled buffer.
        let len = loop {
            let rest = self.input.rest();
            let kind = match step(&self.body, rest, self.input.eof()) {
                Step::Message(decoded) => break decoded.len,
                Step::NeedMore(need) => match self.input.fill(need, offset) {
                    Ok(()) => continue,
                    Err(e) => return Some(Err(self.fail(e))),
                },
                Step::End => {
                    self.body.done = true;
                    return None;
                }
                Step::Fail(ReadErrorKind::DataAfterFinish { len }) => {
                    // Count what follows to the end, without keeping it.
                    match io::copy(self.input.inner_mut(), &mut io::sink()) {
                        Ok(more) => ReadErrorKind::DataAfterFinish { len: len + more },
                        Err(e) => ReadErrorKind::Io(e),
                    }
                }
                Step::Fail(kind) => kind,
            };
            return Some(Err(self.fail(ReadError::new(offset, kind))));
        };
        let (rest, read) = self.input.split();
        // `step` found the message's length in these bytes.
        let raw = rest.get(..len).unwrap_or(rest);
        let result = match self.body.decode(raw) {
            Ok(decoded) => commit(&mut self.body, decoded, raw, offset),
            // The same bytes decoded a moment ago; kept as an error rather than a panic.
            Err(_) => Err(ReadErrorKind::UnexpectedEnd {
                expected: "a message",
                available: len as u64,
            }),
        };
        match result {
            Ok(item) => {
                read.consume(len);
                Some(Ok(item))
            }
            Err(kind) => {
                self.body.done = true;
                Some(Err(ReadError::new(offset, kind)))
            }
        }
    }

    fn fail(&mut self, e: ReadError) -> ReadError {
        self.body.done = true;
        e
    }

    /// [`Messages::next_plain`] for a stream: the next message if it is an int-only one
    /// that decodes and numbers cleanly from what is buffered, with its tick; otherwise
    /// `None`, nothing is read, and [`next`](Self::next) reads more as needed.
    #[inline(always)]
    pub(crate) fn next_plain(&mut self) -> Option<(i32, Decoded<'static>)> {
        if self.body.finished || self.body.done {
            return None;
        }
        let decoded = decode_ints_only(self.input.rest().first_chunk::<INT_WINDOW>()?)?;
        let tick = self.body.ticks.apply(&decoded.message).ok()?;
        self.body.finished = matches!(decoded.message, Message::Finish);
        self.input.consume(decoded.len);
        Some((tick, decoded))
    }

    /// [`Messages::next_input`] for a stream.
    #[inline(always)]
    pub(crate) fn next_input(&mut self) -> Option<(i32, bool, i32, [i32; 10])> {
        if self.body.finished || self.body.done {
            return None;
        }
        let (new, cid, ints, len) = decode_input(self.input.rest().first_chunk::<INT_WINDOW>()?)?;
        self.input.consume(len);
        Some((self.body.ticks.tick(), new, cid, ints))
    }

    /// [`Messages::skim`] for a stream: over what is buffered.
    #[inline(always)]
    pub(crate) fn skim(&mut self, run: impl FnOnce(&[u8], i32) -> (usize, i32, u64)) -> u64 {
        if self.body.finished || self.body.done {
            return 0;
        }
        let (len, last_cid, skimmed) = run(self.input.rest(), self.body.ticks.last_cid);
        self.input.consume(len);
        self.body.ticks.last_cid = last_cid;
        skimmed
    }

    /// [`Messages::next_input_skipped`] for a stream.
    #[inline(always)]
    pub(crate) fn next_input_skipped(&mut self) -> Option<(i32, bool, i32)> {
        if self.body.finished || self.body.done {
            return None;
        }
        let (new, cid, len) = skip_input(self.input.rest().first_chunk::<INT_WINDOW>()?)?;
        self.input.consume(len);
        Some((self.body.ticks.tick(), new, cid))
    }

    /// [`Messages::next_player_diff`] for a stream.
    #[inline(always)]
    pub(crate) fn next_player_diff(&mut self) -> Option<(i32, i32, i32, i32)> {
        if self.body.finished || self.body.done {
            return None;
        }
        let (cid, dx, dy, len) =
            decode_player_diff(self.input.rest().first_chunk::<INT_WINDOW>()?)?;
        let tick = self.body.ticks.player_record(cid).ok()?;
        self.input.consume(len);
        Some((tick, cid, dx, dy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(messages: &[Message<'_>]) -> Vec<i32> {
        let mut s = TickState::new();
        messages.iter().map(|m| s.apply(m).unwrap()).collect()
    }

    #[test]
    fn ddnet_tick_rule() {
        let diff = |cid| Message::PlayerDiff { cid, dx: 1, dy: 0 };
        // The conformance reference: join and name at tick 0, tick 1 implicit, tick 2
        // implicit, TICK_SKIP 7 to tick 10 (whose PLAYER_OLD 0 does not advance again),
        // TICK_SKIP 0 to tick 11.
        let seq = [
            Message::Join { cid: 0 },
            Message::PlayerNew {
                cid: 0,
                x: 100,
                y: 200,
            },
            Message::InputNew {
                cid: 0,
                input: [0; 10],
            },
            diff(0),
            Message::TickSkip { dt: 7 },
            Message::PlayerOld { cid: 0 },
            Message::TickSkip { dt: 0 },
            Message::Finish,
        ];
        assert_eq!(ticks(&seq), [0, 1, 1, 2, 10, 10, 11, 11]);
        // Ascending cids stay in one tick; a repeated or lower cid opens the next one.
        assert_eq!(
            ticks(&[diff(0), diff(3), diff(3), diff(5), diff(1)]),
            [1, 1, 2, 2, 3]
        );
        // After a TICK_SKIP even cid 0 belongs to the skipped-to tick.
        assert_eq!(
            ticks(&[Message::TickSkip { dt: 4 }, diff(0), diff(1), diff(0)]),
            [5, 5, 5, 6]
        );
        // The very first record at any client id opens tick 1, up to cid 127 (DDNet's
        // writer starts from MAX_CLIENTS = 128).
        for cid in [0, 63, 64, 65, 100, 127] {
            assert_eq!(ticks(&[diff(cid)]), [1], "cid {cid}");
        }
        assert_eq!(ticks(&[diff(100), diff(127), diff(64)]), [1, 1, 2]);
    }

    #[test]
    fn ticks_stay_in_range() {
        let mut s = TickState::new();
        assert_eq!(s.apply(&Message::TickSkip { dt: -1 }), Ok(0));
        assert_eq!(
            s.apply(&Message::TickSkip { dt: -2 }),
            Err(TickError::OutOfRange { tick: -1 })
        );
        assert_eq!(
            s.apply(&Message::TickSkip { dt: i32::MAX - 1 }),
            Ok(i32::MAX)
        );
        // Cid 5 after the skip stays in the tick; a second one would open the next.
        assert_eq!(s.apply(&Message::PlayerOld { cid: 5 }), Ok(i32::MAX));
        assert_eq!(
            s.apply(&Message::PlayerOld { cid: 5 }),
            Err(TickError::OutOfRange {
                tick: i64::from(i32::MAX) + 1
            })
        );
        assert_eq!(s.tick(), i32::MAX);
    }

    #[test]
    fn player_records_outside_128_clients_are_refused() {
        let mut s = TickState::new();
        for m in [
            Message::PlayerDiff {
                cid: 128,
                dx: 0,
                dy: 0,
            },
            Message::PlayerNew {
                cid: 1000,
                x: 0,
                y: 0,
            },
            Message::PlayerOld { cid: -5 },
        ] {
            let cid = m.player_record_cid().unwrap();
            assert_eq!(s.apply(&m), Err(TickError::ClientIdOutOfRange { cid }));
            assert_eq!(s, TickState::new());
        }
    }

    /// A reader over a source that hands out one byte per `read`.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    #[test]
    fn streaming_matches_slice_even_byte_by_byte() {
        let mut data = FILE_UUID.to_vec();
        data.extend_from_slice(br#"{"version":"2"}"#);
        data.push(0);
        data.extend_from_slice(&[0x42, 0x00, 0xa4, 0x01, 0x88, 0x03]);
        data.extend_from_slice(b"\x46\x01\x03abc");
        data.extend_from_slice(&[0x41, 0x00, 0x40, 0xff, 0xff]);
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let expected: Vec<_> = slice.messages().collect();
        assert_eq!(expected.len(), 5);
        let err = expected.last().unwrap().as_ref().unwrap_err();
        assert!(matches!(
            err.kind,
            ReadErrorKind::DataAfterFinish { len: 2 }
        ));
        let mut stream = TeehistorianReader::new(Trickle(&data)).unwrap();
        assert_eq!(stream.header(), slice.header());
        for e in &expected {
            match (stream.next().unwrap(), e) {
                (Ok(got), Ok(e)) => assert_eq!(&got, e),
                (Err(got), Err(e)) => assert_eq!(got.to_string(), e.to_string()),
                (got, e) => panic!("{got:?} vs {e:?}"),
            }
        }
        assert!(stream.next().is_none());
    }

    #[test]
    fn header_errors() {
        assert!(matches!(
            TeehistorianSlice::parse(&FILE_UUID[..5]).unwrap_err().kind,
            ReadErrorKind::UnexpectedEnd { available: 5, .. }
        ));
        assert!(matches!(
            TeehistorianSlice::parse(b"TWDEMO\0\x06").unwrap_err().kind,
            ReadErrorKind::BadMagic { .. }
        ));
        let mut data = FILE_UUID.to_vec();
        data.extend_from_slice(br#"{"version":"3"}"#);
        let e = TeehistorianSlice::parse(&data).unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(e.is_truncation());
        data.push(0);
        let e = TeehistorianSlice::parse(&data).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::UnsupportedVersion { .. }));
        let e = TeehistorianReader::new(&data[..]).err().unwrap();
        assert!(matches!(e.kind, ReadErrorKind::UnsupportedVersion { .. }));
    }
}
