//! A semantic layer over the messages: absolute player positions and inputs, grouped by
//! tick, for replay and analysis tools.
//!
//! The format stores positions and inputs as differences: PLAYER_NEW sets a position,
//! PLAYER_DIFF adds to it (wrapping), PLAYER_OLD removes it; INPUT_NEW sets a client's 10
//! input ints, INPUT_DIFF adds to them (wrapping). [`World`] holds the reconstructed
//! state and [`World::apply`] turns one message into an [`EventKind`] carrying absolute
//! values. [`Events`] drives a [`World`] over the messages of a reader and yields each
//! [`Event`] with its tick and offset, plus an [`EventKind::TickEnd`] after the last event
//! of every tick, at which point [`Events::world`] is the state after that tick.
//!
//! TICK_SKIP and FINISH are events too, so a tool sees every message once. Events borrow
//! from the messages (strings, payloads), the world is three fixed arrays indexed by client
//! id, and nothing is allocated per message.
//!
//! ```
//! use demokit::gamenet::Protocol;
//! use demokit::teehistorian::{EventKind, Events, Header, Recorder, TeehistorianSlice};
//!
//! let mut rec = Recorder::new(Vec::new(), &Header::new("2"))?;
//! rec.record_player_join(0, Protocol::Six)?;
//! for tick in 1..=3 {
//!     rec.begin_tick(tick)?;
//!     rec.begin_players()?;
//!     rec.record_player(0, 100 + tick, 200)?;
//!     rec.end_players()?;
//!     rec.begin_inputs()?;
//!     rec.end_inputs()?;
//!     rec.end_tick()?;
//! }
//! let bytes = rec.finish()?;
//!
//! let file = TeehistorianSlice::parse(&bytes)?;
//! let mut events = Events::new(file.messages());
//! let mut positions = Vec::new();
//! while let Some(event) = events.next() {
//!     if let EventKind::TickEnd = event?.kind {
//!         positions.push((events.tick(), events.world().position(0)));
//!     }
//! }
//! assert_eq!(
//!     positions,
//!     [(0, None), (1, Some((101, 200))), (2, Some((102, 200))), (3, Some((103, 200)))]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`StreamEvents`] gives the same events over the streaming
//! [`TeehistorianReader`], lent one at a time; a tool with its own loop over messages can
//! drive a [`World`] with [`World::apply`] directly.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind};
use super::format::{INPUT_INTS, MAX_CLIENTS};
use super::message::{Args, Ex, Message, apply_input_diff};
use super::reader::{MessageAt, TeehistorianReader};
use crate::codec::string::NulStr;
use std::fmt;
use std::io::Read;

/// The 10 input ints of a client (`CNetObj_PlayerInput`: direction, target x, target y,
/// jump, fire, hook, player flags, wanted weapon, next weapon, previous weapon).
pub type Input = [i32; INPUT_INTS];

/// The reconstructed state: each client's position (if it has a character) and last input,
/// and whether it is connected (JOIN seen, DROP not since).
///
/// Client ids are `0..128` ([`MAX_CLIENTS`]); a player or input
/// record for another id is an error ([`SemanticErrorKind::ClientIdOutOfRange`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World {
    positions: [Option<(i32, i32)>; MAX_CLIENTS as usize],
    inputs: [Option<Input>; MAX_CLIENTS as usize],
    connected: [bool; MAX_CLIENTS as usize],
    /// The clients with an input a walk stepped over without its ints (one bit per client
    /// id): a later INPUT_DIFF of theirs is no error.
    inputs_skipped: u128,
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

/// Client `cid`'s entry of a per-client table, or [`slot`]'s error.
#[inline(always)]
fn entry<'t, T>(
    table: &'t mut [T; MAX_CLIENTS as usize],
    cid: i32,
    record: &'static str,
) -> Result<&'t mut T, SemanticErrorKind> {
    usize::try_from(cid)
        .ok()
        .and_then(|i| table.get_mut(i))
        .ok_or(SemanticErrorKind::ClientIdOutOfRange { cid, record })
}

/// Converts a client id to an index, or says it is out of range.
#[inline(always)]
fn slot(cid: i32, record: &'static str) -> Result<usize, SemanticErrorKind> {
    usize::try_from(cid)
        .ok()
        .filter(|&i| i < MAX_CLIENTS as usize)
        .ok_or(SemanticErrorKind::ClientIdOutOfRange { cid, record })
}

impl World {
    /// The state at the start of a file: no characters, no inputs, nobody connected.
    pub const fn new() -> Self {
        World {
            positions: [None; MAX_CLIENTS as usize],
            inputs: [None; MAX_CLIENTS as usize],
            connected: [false; MAX_CLIENTS as usize],
            inputs_skipped: 0,
        }
    }

    /// Client `cid`'s character position, if it has one (`None` also for ids outside
    /// `0..128`).
    pub fn position(&self, cid: i32) -> Option<(i32, i32)> {
        *self.positions.get(usize::try_from(cid).ok()?)?
    }

    /// Client `cid`'s last input, if one was recorded (`None` also for ids outside `0..128`).
    /// An input stays after the client drops, as the format's diffs require.
    pub fn input(&self, cid: i32) -> Option<&Input> {
        self.inputs.get(usize::try_from(cid).ok()?)?.as_ref()
    }

    /// Whether client `cid` has joined and not dropped since.
    pub fn is_connected(&self, cid: i32) -> bool {
        usize::try_from(cid)
            .ok()
            .and_then(|i| self.connected.get(i).copied())
            .unwrap_or(false)
    }

    /// Every position, indexed by client id.
    pub fn positions(&self) -> &[Option<(i32, i32)>; MAX_CLIENTS as usize] {
        &self.positions
    }

    /// Every last input, indexed by client id.
    pub fn inputs(&self) -> &[Option<Input>; MAX_CLIENTS as usize] {
        &self.inputs
    }

    /// The clients with a character and their positions, by ascending client id.
    pub fn players(&self) -> impl Iterator<Item = (i32, (i32, i32))> + '_ {
        (0..)
            .zip(self.positions.iter())
            .filter_map(|(cid, p)| Some((cid, (*p)?)))
    }

    /// [`apply`](Self::apply) for a PLAYER_DIFF.
    #[inline(always)]
    pub(crate) fn move_player<'a>(
        &mut self,
        cid: i32,
        dx: i32,
        dy: i32,
    ) -> Result<EventKind<'a>, SemanticErrorKind> {
        let position = entry(&mut self.positions, cid, "PLAYER_DIFF")?;
        let (px, py) = position.ok_or(SemanticErrorKind::PlayerDiffNotAlive { cid })?;
        let (x, y) = (px.wrapping_add(dx), py.wrapping_add(dy));
        *position = Some((x, y));
        Ok(EventKind::PlayerMove { cid, x, y, dx, dy })
    }

    /// [`take_input`](Self::take_input) without the ints, for a walk that wants none:
    /// the same errors (a client id out of range, a difference with no input before it),
    /// and the client noted as having an input, which [`input`](Self::input) does not
    /// give.
    #[inline(always)]
    pub(crate) fn skip_input(&mut self, cid: i32, new: bool) -> Result<(), SemanticErrorKind> {
        let i = slot(cid, if new { "INPUT_NEW" } else { "INPUT_DIFF" })?;
        if !new
            && self.inputs_skipped & 1 << i == 0
            && self.inputs.get(i).is_none_or(Option::is_none)
        {
            return Err(SemanticErrorKind::InputDiffWithoutInput { cid });
        }
        self.inputs_skipped |= 1 << i;
        Ok(())
    }

    /// [`apply`](Self::apply) for an INPUT_NEW (`new`, `ints` the input) or an INPUT_DIFF
    /// (`ints` the difference).
    #[inline(always)]
    pub(crate) fn take_input<'a>(
        &mut self,
        cid: i32,
        new: bool,
        ints: Input,
    ) -> Result<EventKind<'a>, SemanticErrorKind> {
        let input = if new {
            *entry(&mut self.inputs, cid, "INPUT_NEW")? = Some(ints);
            ints
        } else {
            let slot = entry(&mut self.inputs, cid, "INPUT_DIFF")?;
            let old = slot
                .as_ref()
                .ok_or(SemanticErrorKind::InputDiffWithoutInput { cid })?;
            let input = apply_input_diff(old, &ints);
            *slot = Some(input);
            input
        };
        Ok(EventKind::Input { cid, input, new })
    }

    /// Applies one message and returns what it means in absolute terms. On an error the
    /// world is unchanged.
    ///
    /// TICK_SKIP and FINISH change nothing and give [`EventKind::TickSkip`] and
    /// [`EventKind::Finish`].
    #[inline(always)]
    pub fn apply<'a>(&mut self, message: &Message<'a>) -> Result<EventKind<'a>, SemanticErrorKind> {
        Ok(match *message {
            Message::PlayerNew { cid, x, y } => {
                let previous = entry(&mut self.positions, cid, "PLAYER_NEW")?.replace((x, y));
                EventKind::PlayerNew {
                    cid,
                    x,
                    y,
                    previous,
                }
            }
            Message::PlayerDiff { cid, dx, dy } => self.move_player(cid, dx, dy)?,
            Message::PlayerOld { cid } => {
                let (x, y) = entry(&mut self.positions, cid, "PLAYER_OLD")?
                    .take()
                    .ok_or(SemanticErrorKind::PlayerOldNotAlive { cid })?;
                EventKind::PlayerOld { cid, x, y }
            }
            Message::InputNew { cid, input } => self.take_input(cid, true, input)?,
            Message::InputDiff { cid, diff } => self.take_input(cid, false, diff)?,
            Message::Join { cid } => {
                if let Ok(connected) = entry(&mut self.connected, cid, "JOIN") {
                    *connected = true;
                }
                EventKind::Join { cid }
            }
            Message::Drop { cid, reason } => {
                if let Ok(connected) = entry(&mut self.connected, cid, "DROP") {
                    *connected = false;
                }
                EventKind::Drop { cid, reason }
            }
            Message::NetMessage { cid, data } => EventKind::NetMessage { cid, data },
            Message::ConsoleCommand {
                cid,
                flags,
                cmd,
                args,
            } => EventKind::ConsoleCommand {
                cid,
                flags,
                cmd,
                args,
            },
            Message::Ex(ex) => EventKind::Ex(ex),
            Message::TickSkip { dt } => EventKind::TickSkip { dt },
            Message::Finish => EventKind::Finish,
        })
    }
}

/// What a message means, with positions and inputs as absolute values.
///
/// With feature `serde` it is an object whose `"event"` is the variant's name in snake case
/// (`"player_move"`, `"ex"`, ...) beside its fields; strings as in
/// [`NulStr`], byte payloads in hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "event", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EventKind<'a> {
    /// Every event of the tick has been yielded: [`Events::world`] is the state after it.
    /// Only from [`Events`]; ticks without messages get none.
    TickEnd,
    /// A character appeared (PLAYER_NEW).
    PlayerNew {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// Position.
        x: i32,
        /// Position.
        y: i32,
        /// The position it replaced, if the client already had a character (DDNet never
        /// writes that).
        previous: Option<(i32, i32)>,
    },
    /// A character moved (PLAYER_DIFF), to (`x`, `y`).
    PlayerMove {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// New position.
        x: i32,
        /// New position.
        y: i32,
        /// The difference stored.
        dx: i32,
        /// The difference stored.
        dy: i32,
    },
    /// A character disappeared (PLAYER_OLD); (`x`, `y`) was its last position.
    PlayerOld {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// Last position.
        x: i32,
        /// Last position.
        y: i32,
    },
    /// A client's input (INPUT_NEW when `new`, else INPUT_DIFF), as absolute values.
    Input {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The input.
        input: Input,
        /// Whether it was stored whole (a new unique client id) rather than as a diff.
        new: bool,
    },
    /// A client joined (JOIN).
    Join {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
    },
    /// A client left (DROP).
    Drop {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// Why.
        reason: NulStr<&'a [u8]>,
    },
    /// A network message a client sent (MESSAGE).
    NetMessage {
        /// Client id.
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The packed message.
        #[cfg_attr(
            feature = "serde",
            serde(serialize_with = "super::message::serialize_hex")
        )]
        data: &'a [u8],
    },
    /// An executed console command (CONSOLE_COMMAND).
    ConsoleCommand {
        /// Client id (-1 for the server).
        #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
        cid: i32,
        /// The console's flag mask.
        flags: i32,
        /// Command name.
        cmd: NulStr<&'a [u8]>,
        /// Arguments.
        args: Args<'a>,
    },
    /// An extension message (EX).
    Ex(Ex<'a>),
    /// A TICK_SKIP: the tick advanced by `dt + 1` (the event's tick is the new one).
    TickSkip {
        /// The stored difference.
        dt: i32,
    },
    /// FINISH: the file ends cleanly (the last event before the last TickEnd).
    Finish,
}

/// One event: what a message means, with its tick and the offset of its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Event<'a> {
    /// Offset of the message in the file; for [`EventKind::TickEnd`], the offset of the
    /// message after the tick (or the end of the file).
    pub offset: u64,
    /// The tick ([`TickState`](super::TickState) numbering).
    pub tick: i32,
    /// What happened.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub kind: EventKind<'a>,
}

/// Why a message does not fit the reconstructed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SemanticErrorKind {
    /// PLAYER_DIFF for a client without a character.
    #[error("PLAYER_DIFF for client {cid}, which has no character")]
    PlayerDiffNotAlive {
        /// Client id.
        cid: i32,
    },
    /// PLAYER_OLD for a client without a character.
    #[error("PLAYER_OLD for client {cid}, which has no character")]
    PlayerOldNotAlive {
        /// Client id.
        cid: i32,
    },
    /// INPUT_DIFF for a client without a previous input.
    #[error("INPUT_DIFF for client {cid}, which has no previous input")]
    InputDiffWithoutInput {
        /// Client id.
        cid: i32,
    },
    /// A player or input record for a client id outside `0..128` (DDNet's `MAX_CLIENTS`).
    #[error("{record} for client id {cid}, outside 0..128")]
    ClientIdOutOfRange {
        /// Client id.
        cid: i32,
        /// The message kind.
        record: &'static str,
    },
}

/// An error of [`Events`]: the reader's, or a message that does not fit the state.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    /// The reader failed.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The message at `offset` does not fit the reconstructed state.
    #[error("at byte {offset} (tick {tick}): {kind}")]
    State {
        /// Offset of the message.
        offset: u64,
        /// Its tick.
        tick: i32,
        /// What is wrong.
        kind: SemanticErrorKind,
    },
}

impl SemanticError {
    /// Offset of the failing message (or of the reader's failing element).
    pub fn offset(&self) -> u64 {
        match self {
            SemanticError::Read(e) => e.offset,
            SemanticError::State { offset, .. } => *offset,
        }
    }
}

/// The state both event iterators keep besides their input.
#[derive(Debug, Clone)]
struct Cursor {
    world: World,
    /// The current tick, once a message other than FINISH was read.
    tick: Option<i32>,
    /// Offset after the last message read.
    end: u64,
    finished: bool,
    done: bool,
}

impl Cursor {
    const fn new() -> Self {
        Cursor {
            world: World::new(),
            tick: None,
            end: 0,
            finished: false,
            done: false,
        }
    }

    /// The tick that ends before a message of tick `tick`, if any. FINISH belongs to the
    /// last tick and opens none (an empty file has no tick to end).
    fn ending_before(&self, message: &Message<'_>, tick: i32) -> Option<i32> {
        self.tick
            .filter(|&t| t != tick && !matches!(message, Message::Finish))
    }

    fn tick_end<'m>(&self, tick: i32) -> Event<'m> {
        Event {
            offset: self.end,
            tick,
            kind: EventKind::TickEnd,
        }
    }

    /// Applies a message to the world and makes it an event.
    fn handle<'m>(
        &mut self,
        offset: u64,
        tick: i32,
        len: usize,
        message: &Message<'m>,
    ) -> Result<Event<'m>, SemanticError> {
        self.end = offset + len as u64;
        if matches!(message, Message::Finish) {
            self.finished = true;
        } else {
            self.tick = Some(tick);
        }
        match self.world.apply(message) {
            Ok(kind) => Ok(Event { offset, tick, kind }),
            Err(kind) => {
                self.done = true;
                Err(SemanticError::State { offset, tick, kind })
            }
        }
    }

    /// The end of the messages: the last tick ends.
    fn at_end<'m>(&mut self) -> Option<Result<Event<'m>, SemanticError>> {
        self.done = true;
        self.tick.map(|t| Ok(self.tick_end(t)))
    }
}

/// Events over messages (e.g. [`TeehistorianSlice::messages`](super::TeehistorianSlice::messages)),
/// maintaining a [`World`].
///
/// Yields one [`Event`] per message, and an [`EventKind::TickEnd`] after the last event of
/// each tick that has messages (a tick holding only a TICK_SKIP counts; FINISH alone does
/// not), including the last one when the messages end cleanly. A TICK_SKIP is the first
/// event of the tick it leads to; FINISH is the last event of the last tick, before its
/// TickEnd. When an event is yielded, [`world`](Self::world) includes it. Ends after the
/// first error.
#[derive(Debug, Clone)]
pub struct Events<'a, I> {
    messages: I,
    cursor: Cursor,
    /// The message read ahead that opened a new tick, yielded after the TickEnd.
    pending: Option<MessageAt<'a>>,
}

impl<'a, I> Events<'a, I>
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    /// Events over `messages`, starting from an empty [`World`].
    pub fn new(messages: I) -> Self {
        Events {
            messages,
            cursor: Cursor::new(),
            pending: None,
        }
    }

    /// The state after every event yielded so far.
    pub fn world(&self) -> &World {
        &self.cursor.world
    }

    /// The tick of the last event yielded (0 before the first).
    pub fn tick(&self) -> i32 {
        self.cursor.tick.unwrap_or(0)
    }

    /// Whether FINISH has been read.
    pub fn finished(&self) -> bool {
        self.cursor.finished
    }

    /// Advances to the end of the next tick and returns it: afterwards
    /// [`world`](Self::world) is the state after that tick. `None` at the end.
    pub fn next_tick(&mut self) -> Option<Result<i32, SemanticError>> {
        loop {
            match self.next()? {
                Ok(Event {
                    kind: EventKind::TickEnd,
                    tick,
                    ..
                }) => return Some(Ok(tick)),
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl<'a, I> Iterator for Events<'a, I>
where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>,
{
    type Item = Result<Event<'a>, SemanticError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.cursor.done {
            return None;
        }
        let at = match self.pending.take() {
            Some(at) => at,
            None => match self.messages.next() {
                Some(Ok(at)) => {
                    if let Some(tick) = self.cursor.ending_before(&at.message, at.tick) {
                        self.pending = Some(at);
                        return Some(Ok(self.cursor.tick_end(tick)));
                    }
                    at
                }
                Some(Err(e)) => {
                    self.cursor.done = true;
                    return Some(Err(e.into()));
                }
                None => return self.cursor.at_end(),
            },
        };
        Some(
            self.cursor
                .handle(at.offset, at.tick, at.raw.len(), &at.message),
        )
    }
}

impl<'a, I> std::iter::FusedIterator for Events<'a, I> where
    I: Iterator<Item = Result<MessageAt<'a>, ReadError>>
{
}

/// [`Events`] over the streaming [`TeehistorianReader`]: the same events, lent one at a
/// time (each borrows the reader's buffer until the next call).
///
/// The message that opens a new tick is copied into a reused buffer while its TickEnd is
/// yielded; nothing else is copied, and nothing is allocated once that buffer has grown to
/// the longest such message.
pub struct StreamEvents<R: Read> {
    reader: TeehistorianReader<R>,
    cursor: Cursor,
    /// The raw bytes of the message read ahead, with its offset and tick.
    pending: Vec<u8>,
    pending_at: Option<(u64, i32)>,
}

impl<R: Read> fmt::Debug for StreamEvents<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamEvents")
            .field("world", &self.cursor.world)
            .field("tick", &self.cursor.tick)
            .field("pending", &self.pending_at)
            .finish_non_exhaustive()
    }
}

impl<R: Read> StreamEvents<R> {
    /// Events over `reader`'s messages, starting from an empty [`World`].
    pub fn new(reader: TeehistorianReader<R>) -> Self {
        StreamEvents {
            reader,
            cursor: Cursor::new(),
            pending: Vec::new(),
            pending_at: None,
        }
    }

    /// The reader (its header, for example).
    pub fn reader(&self) -> &TeehistorianReader<R> {
        &self.reader
    }

    /// The state after every event yielded so far.
    pub fn world(&self) -> &World {
        &self.cursor.world
    }

    /// The tick of the last event yielded (0 before the first).
    pub fn tick(&self) -> i32 {
        self.cursor.tick.unwrap_or(0)
    }

    /// Whether FINISH has been read.
    pub fn finished(&self) -> bool {
        self.cursor.finished
    }

    /// The next event; `None` at the end or after an error.
    #[allow(clippy::should_implement_trait)] // A lending iterator: events borrow the reader.
    pub fn next(&mut self) -> Option<Result<Event<'_>, SemanticError>> {
        if self.cursor.done {
            return None;
        }
        if let Some((offset, tick)) = self.pending_at.take() {
            return Some(match Message::decode(&self.pending) {
                Ok(d) => self.cursor.handle(offset, tick, d.len, &d.message),
                // The same bytes decoded before; kept as an error rather than a panic.
                Err(_) => {
                    self.cursor.done = true;
                    Err(SemanticError::Read(ReadError::new(
                        offset,
                        ReadErrorKind::UnexpectedEnd {
                            expected: "a message",
                            available: self.pending.len() as u64,
                        },
                    )))
                }
            });
        }
        match self.reader.next() {
            Some(Ok(at)) => {
                if let Some(tick) = self.cursor.ending_before(&at.message, at.tick) {
                    self.pending.clear();
                    self.pending.extend_from_slice(at.raw);
                    self.pending_at = Some((at.offset, at.tick));
                    return Some(Ok(self.cursor.tick_end(tick)));
                }
                Some(
                    self.cursor
                        .handle(at.offset, at.tick, at.raw.len(), &at.message),
                )
            }
            Some(Err(e)) => {
                self.cursor.done = true;
                Some(Err(e.into()))
            }
            None => self.cursor.at_end(),
        }
    }

    /// Advances to the end of the next tick and returns it: afterwards
    /// [`world`](Self::world) is the state after that tick. `None` at the end.
    pub fn next_tick(&mut self) -> Option<Result<i32, SemanticError>> {
        loop {
            match self.next()? {
                Ok(Event {
                    kind: EventKind::TickEnd,
                    tick,
                    ..
                }) => return Some(Ok(tick)),
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// The body of the conformance reference file (written by DDNet's own code) behind the
/// header `header_json`: for the unit tests of this layer and of the tools built on it.
#[cfg(test)]
pub(crate) fn reference_file(header_json: &[u8]) -> Vec<u8> {
    use crate::teehistorian::ExKind;
    use crate::teehistorian::format::FILE_UUID;
    let mut data = FILE_UUID.to_vec();
    data.extend_from_slice(header_json);
    data.push(0);
    data.push(0x4a);
    data.extend_from_slice(ExKind::JoinVer6.uuid().as_bytes());
    data.extend_from_slice(&[0x01, 0x00, 0x47, 0x00, 0x4a]);
    data.extend_from_slice(ExKind::PlayerName.uuid().as_bytes());
    data.extend_from_slice(b"\x0e\x00nameless tee\x00");
    data.extend_from_slice(&[0x42, 0x00, 0xa4, 0x01, 0x88, 0x03]);
    data.extend_from_slice(&[0x45, 0x00, 0x01, 0x0a, 0x53, 0, 0, 0, 0, 0, 0, 0]);
    data.extend_from_slice(&[0x00, 0x03, 0x00]);
    data.extend_from_slice(&[0x44, 0x00, 0x40, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
    data.extend_from_slice(&[0x41, 0x07, 0x43, 0x00, 0x41, 0x00]);
    data.extend_from_slice(b"\x48\x00bye\x00\x40");
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::format::FILE_UUID;
    use crate::teehistorian::{ReadErrorKind, TeehistorianReader, TeehistorianSlice};

    /// The body of the conformance reference file behind a minimal header.
    fn reference() -> Vec<u8> {
        reference_file(br#"{"version":"2"}"#)
    }

    #[test]
    fn reference_file_by_tick() {
        let data = reference();
        let file = TeehistorianSlice::parse(&data).unwrap();
        let mut events = Events::new(file.messages());
        let mut ticks = Vec::new();
        while let Some(tick) = events.next_tick() {
            let tick = tick.unwrap();
            let w = events.world();
            ticks.push((tick, w.position(0), w.input(0).copied(), w.is_connected(0)));
        }
        assert!(events.finished());
        let a = [1, 10, -20, 0, 0, 0, 0, 0, 0, 0];
        let b = [0, 10, -20, 1, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            ticks,
            [
                (0, None, None, true),
                (1, Some((100, 200)), Some(a), true),
                (2, Some((103, 200)), Some(b), true),
                (10, None, Some(b), true),
                (11, None, Some(b), false),
            ]
        );
    }

    #[test]
    fn reference_file_events() {
        let data = reference();
        let file = TeehistorianSlice::parse(&data).unwrap();
        let events: Vec<_> = Events::new(file.messages())
            .map(|e| e.map(|e| (e.tick, e.kind)))
            .collect::<Result<_, _>>()
            .unwrap();
        use EventKind::*;
        assert_eq!(
            events,
            [
                (0, Ex(crate::teehistorian::Ex::JoinVer6 { cid: 0 })),
                (0, Join { cid: 0 }),
                (
                    0,
                    Ex(crate::teehistorian::Ex::PlayerName {
                        cid: 0,
                        name: "nameless tee".into()
                    })
                ),
                (0, TickEnd),
                (
                    1,
                    PlayerNew {
                        cid: 0,
                        x: 100,
                        y: 200,
                        previous: None
                    }
                ),
                (
                    1,
                    Input {
                        cid: 0,
                        input: [1, 10, -20, 0, 0, 0, 0, 0, 0, 0],
                        new: true
                    }
                ),
                (1, TickEnd),
                (
                    2,
                    PlayerMove {
                        cid: 0,
                        x: 103,
                        y: 200,
                        dx: 3,
                        dy: 0
                    }
                ),
                (
                    2,
                    Input {
                        cid: 0,
                        input: [0, 10, -20, 1, 0, 0, 0, 0, 0, 0],
                        new: false
                    }
                ),
                (2, TickEnd),
                (10, TickSkip { dt: 7 }),
                (
                    10,
                    PlayerOld {
                        cid: 0,
                        x: 103,
                        y: 200
                    }
                ),
                (10, TickEnd),
                (11, TickSkip { dt: 0 }),
                (
                    11,
                    Drop {
                        cid: 0,
                        reason: "bye".into()
                    }
                ),
                (11, Finish),
                (11, TickEnd),
            ]
        );
    }

    #[test]
    fn streaming_events_match() {
        let data = reference();
        let file = TeehistorianSlice::parse(&data).unwrap();
        let expected: Vec<_> = Events::new(file.messages()).map(Result::unwrap).collect();
        let mut stream = StreamEvents::new(TeehistorianReader::new(&data[..]).unwrap());
        for want in &expected {
            assert_eq!(&stream.next().unwrap().unwrap(), want);
        }
        assert!(stream.next().is_none());
        assert!(stream.finished());
        assert_eq!(stream.tick(), 11);
        let mut stream = StreamEvents::new(TeehistorianReader::new(&data[..]).unwrap());
        assert_eq!(stream.next_tick().unwrap().unwrap(), 0);
        assert_eq!(stream.next_tick().unwrap().unwrap(), 1);
        assert_eq!(stream.world().position(0), Some((100, 200)));
    }

    fn file_with(body: &[u8]) -> Vec<u8> {
        let mut data = FILE_UUID.to_vec();
        data.extend_from_slice(br#"{"version":"2"}"#);
        data.push(0);
        data.extend_from_slice(body);
        data
    }

    fn first_error(data: &[u8]) -> SemanticError {
        let file = TeehistorianSlice::parse(data).unwrap();
        let mut events = Events::new(file.messages());
        let err = events.find_map(Result::err).unwrap();
        assert!(events.next().is_none());
        err
    }

    #[test]
    fn state_errors_have_offsets() {
        // PLAYER_DIFF 0 without a character, at the first body byte (offset 32).
        let data = file_with(&[0x00, 0x01, 0x01, 0x40]);
        let e = first_error(&data);
        assert_eq!(e.offset(), 32);
        assert!(matches!(
            e,
            SemanticError::State {
                kind: SemanticErrorKind::PlayerDiffNotAlive { cid: 0 },
                tick: 1,
                ..
            }
        ));
        // INPUT_DIFF without an input, after a JOIN.
        let mut body = vec![0x47, 0x00, 0x44, 0x03];
        body.extend_from_slice(&[0; 10]);
        let e = first_error(&file_with(&body));
        assert_eq!(e.offset(), 34);
        assert!(matches!(
            e,
            SemanticError::State {
                kind: SemanticErrorKind::InputDiffWithoutInput { cid: 3 },
                ..
            }
        ));
        // PLAYER_OLD without a character; PLAYER_NEW for cid 128 (refused by the reader,
        // whose tick rule ends at 127); INPUT_NEW for cid 128.
        let e = first_error(&file_with(&[0x43, 0x05]));
        assert!(matches!(
            e,
            SemanticError::State {
                kind: SemanticErrorKind::PlayerOldNotAlive { cid: 5 },
                ..
            }
        ));
        let e = first_error(&file_with(&[0x42, 0x80, 0x02, 0x00, 0x00]));
        match e {
            SemanticError::Read(e) => assert!(
                matches!(e.kind, ReadErrorKind::ClientIdOutOfRange { cid: 128 }),
                "{e}"
            ),
            other => panic!("expected the reader's error, got {other}"),
        }
        let mut input_new = vec![0x45, 0x80, 0x02];
        input_new.extend([0; INPUT_INTS]);
        let e = first_error(&file_with(&input_new));
        assert!(matches!(
            e,
            SemanticError::State {
                kind: SemanticErrorKind::ClientIdOutOfRange { cid: 128, .. },
                ..
            }
        ));
        // A truncated file: the reader's error.
        let e = first_error(&file_with(&[0x47]));
        assert!(matches!(e, SemanticError::Read(_)));
    }

    #[test]
    fn failed_apply_changes_nothing_and_diffs_wrap() {
        let mut w = World::new();
        assert!(
            w.apply(&Message::PlayerDiff {
                cid: 1,
                dx: 1,
                dy: 1
            })
            .is_err()
        );
        assert_eq!(w, World::new());
        w.apply(&Message::PlayerNew {
            cid: 1,
            x: i32::MAX,
            y: 0,
        })
        .unwrap();
        w.apply(&Message::PlayerDiff {
            cid: 1,
            dx: 1,
            dy: -1,
        })
        .unwrap();
        assert_eq!(w.position(1), Some((i32::MIN, -1)));
        assert_eq!(w.players().collect::<Vec<_>>(), [(1, (i32::MIN, -1))]);
        assert_eq!(w.position(-1), None);
        assert_eq!(w.input(99), None);
    }
}
