//! [`TickWalk`]: a file's world tick by tick, the fast way through a body for tools that
//! want the positions after each tick and the inputs (tables, statistics, training data)
//! rather than an event per message.
//!
//! It walks a file in memory ([`TickWalk::new`] over a [`TeehistorianSlice`]) or a stream
//! ([`TickWalk::from_reader`] over a [`TeehistorianReader`]: memory stays that of the
//! reader's buffer, whatever the file's length). Either way it gives what
//! [`Events::next_tick`](super::Events::next_tick) gives: the same ticks,
//! the same [`World`] after each, the same inputs in the same order, and the same error at
//! the same offset (a property test holds the two together). What it saves is the layering:
//! the int-only messages that make up most of a body are decoded and applied in one step,
//! with no [`MessageAt`] built for them, and the two commonest (PLAYER_DIFF and the
//! inputs) go from their bytes to the world without a [`Message`] either; every other
//! message takes the reader's general path.
//!
//! ```
//! use demokit::gamenet::Protocol;
//! use demokit::teehistorian::{EventKind, Header, Recorder, TeehistorianSlice, TickWalk};
//!
//! let mut rec = Recorder::new(Vec::new(), &Header::new("2"))?;
//! rec.record_player_join(0, Protocol::Six)?;
//! for tick in 1..=3 {
//!     rec.begin_tick(tick)?;
//!     rec.begin_players()?;
//!     rec.record_player(0, 100 + tick, 200)?;
//!     rec.end_players()?;
//!     rec.begin_inputs()?;
//!     rec.record_player_input(0, 1, &[0, 10 * tick, 0, 0, 0, 0, 0, 0, 0, 0])?;
//!     rec.end_inputs()?;
//!     rec.end_tick()?;
//! }
//! let bytes = rec.finish()?;
//!
//! let file = TeehistorianSlice::parse(&bytes)?;
//! let mut walk = TickWalk::new(&file);
//! let (mut positions, mut aims) = (Vec::new(), Vec::new());
//! while let Some(tick) = walk.next_tick(|event| {
//!     if let EventKind::Input { input, .. } = event.kind {
//!         aims.push((event.tick, input[1]));
//!     }
//! }) {
//!     positions.push((tick?, walk.world().position(0)));
//! }
//! assert_eq!(positions[3], (3, Some((103, 200))));
//! assert_eq!(aims, [(1, 10), (2, 20), (3, 30)]);
//! assert!(walk.finished());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::error::{ReadError, ReadErrorKind};
use super::format::MAX_CLIENTS;
use super::message::{
    INT_WINDOW, Message, decode_player_diff, decode_player_new_old, int_ends, skip_input,
    skip_player_diff,
};
use super::reader::{MessageAt, Messages, TeehistorianReader, TeehistorianSlice};
use super::semantic::{Event, EventKind, SemanticError, SemanticErrorKind, World};
use std::io::Read;

/// Where a [`TickWalk`] reads its messages: [`Messages`] (a file in memory) or a
/// [`TeehistorianReader`] (a stream). Implemented by those two only.
pub trait WalkSource: source::Source {}

mod source {
    use super::{Message, MessageAt, ReadError};

    /// What a walk asks of its messages: the fast path for int-only messages, the general
    /// one for the rest.
    pub trait Source {
        /// Offset of the next message.
        fn position(&self) -> u64;
        /// The next message if it is a PLAYER_DIFF of a client id below 64 that numbers
        /// cleanly: its tick, client id and move; `None` (nothing read) otherwise.
        fn next_player_diff(&mut self) -> Option<(i32, i32, i32, i32)>;
        /// The next message if it is an INPUT_DIFF or INPUT_NEW: its tick, whether it is
        /// INPUT_NEW, the client id and the ints; `None` (nothing read) otherwise.
        fn next_input(&mut self) -> Option<(i32, bool, i32, [i32; 10])>;
        /// [`next_input`](Self::next_input) without the ints: the tick, whether it is
        /// INPUT_NEW and the client id.
        fn next_input_skipped(&mut self) -> Option<(i32, bool, i32)>;
        /// Steps over the run of messages `run` takes from the buffered bytes (see
        /// `Messages::skim`).
        fn skim(&mut self, run: impl FnOnce(&[u8], i32) -> (usize, i32, u64)) -> u64;
        /// The next message if it is an int-only one that decodes and numbers cleanly,
        /// with its tick; `None` (nothing read) otherwise.
        fn next_plain(&mut self) -> Option<(i32, Message<'static>)>;
        /// The next message through the reader's general path.
        fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>>;
    }
}

impl source::Source for Messages<'_> {
    #[inline(always)]
    fn position(&self) -> u64 {
        Messages::position(self) as u64
    }

    #[inline(always)]
    fn next_player_diff(&mut self) -> Option<(i32, i32, i32, i32)> {
        Messages::next_player_diff(self)
    }

    #[inline(always)]
    fn next_input(&mut self) -> Option<(i32, bool, i32, [i32; 10])> {
        Messages::next_input(self)
    }

    #[inline(always)]
    fn next_input_skipped(&mut self) -> Option<(i32, bool, i32)> {
        Messages::next_input_skipped(self)
    }

    #[inline(always)]
    fn skim(&mut self, run: impl FnOnce(&[u8], i32) -> (usize, i32, u64)) -> u64 {
        Messages::skim(self, run)
    }

    #[inline(always)]
    fn next_plain(&mut self) -> Option<(i32, Message<'static>)> {
        Messages::next_plain(self).map(|(tick, decoded)| (tick, decoded.message))
    }

    fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>> {
        self.next()
    }
}

impl WalkSource for Messages<'_> {}

impl<R: Read> source::Source for TeehistorianReader<R> {
    #[inline(always)]
    fn position(&self) -> u64 {
        TeehistorianReader::position(self)
    }

    #[inline(always)]
    fn next_player_diff(&mut self) -> Option<(i32, i32, i32, i32)> {
        TeehistorianReader::next_player_diff(self)
    }

    #[inline(always)]
    fn next_input(&mut self) -> Option<(i32, bool, i32, [i32; 10])> {
        TeehistorianReader::next_input(self)
    }

    #[inline(always)]
    fn next_input_skipped(&mut self) -> Option<(i32, bool, i32)> {
        TeehistorianReader::next_input_skipped(self)
    }

    #[inline(always)]
    fn skim(&mut self, run: impl FnOnce(&[u8], i32) -> (usize, i32, u64)) -> u64 {
        TeehistorianReader::skim(self, run)
    }

    #[inline(always)]
    fn next_plain(&mut self) -> Option<(i32, Message<'static>)> {
        TeehistorianReader::next_plain(self).map(|(tick, decoded)| (tick, decoded.message))
    }

    fn next_message(&mut self) -> Option<Result<MessageAt<'_>, ReadError>> {
        self.next()
    }
}

impl<R: Read> WalkSource for TeehistorianReader<R> {}

/// A message read ahead that opened the next tick; it is applied when that tick is walked.
#[derive(Debug, Clone)]
struct Pending {
    offset: u64,
    tick: i32,
    message: PendingMessage,
}

impl Pending {
    fn plain(offset: u64, tick: i32, message: Message<'static>) -> Self {
        Pending {
            offset,
            tick,
            message: PendingMessage::Plain(message),
        }
    }
}

/// The message of a [`Pending`]: decoded, or (from the general path, whose messages borrow
/// the source) its bytes, decoded again when it is applied. Only player records and
/// TICK_SKIP open a tick, and they take the fast path but near the end of the input.
#[derive(Debug, Clone)]
enum PendingMessage {
    Plain(Message<'static>),
    Raw(Vec<u8>),
    /// An input read without its ints: whether it is INPUT_NEW, and the client id.
    SkippedInput(bool, i32),
}

/// What a walk keeps besides its source.
#[derive(Debug, Clone)]
struct WalkState {
    world: World,
    /// The tick being walked, once a message other than FINISH was read.
    tick: Option<i32>,
    records: u64,
    finished: bool,
    done: bool,
    /// Whether inputs are stepped over ([`TickWalk::skipping_inputs`]).
    skip_inputs: bool,
    /// The clients whose moves are followed, one bit per client id
    /// ([`TickWalk::following`]); every one by default.
    followed: u128,
}

/// Walks a teehistorian body tick by tick, keeping the [`World`]; see the module docs.
/// `S` is where the messages come from: [`Messages`] ([`new`](TickWalk::new)) or a
/// [`TeehistorianReader`] ([`from_reader`](TickWalk::from_reader)).
#[derive(Debug, Clone)]
pub struct TickWalk<S> {
    source: S,
    state: WalkState,
    pending: Option<Pending>,
}

impl<'a> TickWalk<Messages<'a>> {
    /// A walk over `file`'s body from its first message, with an empty world.
    pub fn new(file: &TeehistorianSlice<'a>) -> Self {
        TickWalk::over(file.messages())
    }
}

impl<R: Read> TickWalk<TeehistorianReader<R>> {
    /// A walk over the messages `reader` has not read yet (all of them, fresh from
    /// [`TeehistorianReader::new`]), with an empty world.
    pub fn from_reader(reader: TeehistorianReader<R>) -> Self {
        TickWalk::over(reader)
    }

    /// The reader, for its header.
    pub fn reader(&self) -> &TeehistorianReader<R> {
        &self.source
    }
}

impl<S: WalkSource> TickWalk<S> {
    fn over(source: S) -> Self {
        TickWalk {
            source,
            state: WalkState {
                world: World::new(),
                tick: None,
                records: 0,
                finished: false,
                done: false,
                skip_inputs: false,
                followed: u128::MAX,
            },
            pending: None,
        }
    }

    /// A walk that steps over the inputs rather than decoding them, for a caller that
    /// wants only positions (one player's, say): about twice as fast on a server's file,
    /// whose bytes are mostly inputs. The ticks, positions, record count and errors are
    /// those of the walk that decodes them (an input's errors included: a client id out
    /// of range, a difference with no input before it); `on_event` gets no
    /// [`EventKind::Input`], and the world no inputs.
    pub fn skipping_inputs(mut self) -> Self {
        self.state.skip_inputs = true;
        self
    }

    /// A walk that follows the moves of the clients `client_ids` only, for a caller that
    /// wants their positions and not the others' (one player's rows of a server's file,
    /// say): the other clients' PLAYER_DIFFs are stepped over, in runs, without being
    /// decoded or handed on, which makes the walk several times as fast. Their
    /// [`position`](World::position)s are then where they were last placed (PLAYER_NEW,
    /// or a PLAYER_DIFF that opened a tick), not where they are. The ticks, the followed
    /// positions, the record count and the errors are those of the walk that follows
    /// everyone (a move of a client without a character is still an error); `on_event`
    /// gets none of the player records it steps over or applies in those runs (most
    /// [`PlayerMove`](super::EventKind::PlayerMove)s, followed clients' included, and the
    /// others' [`PlayerNew`](super::EventKind::PlayerNew) and
    /// [`PlayerOld`](super::EventKind::PlayerOld)), and with
    /// [`skipping_inputs`](Self::skipping_inputs) the inputs are stepped over in the same
    /// runs. Client ids outside `0..128` are ignored.
    pub fn following(mut self, client_ids: &[i32]) -> Self {
        self.state.followed = client_ids
            .iter()
            .filter_map(|&cid| u32::try_from(cid).ok().filter(|&c| c < 128))
            .fold(0, |mask, cid| mask | 1 << cid);
        self
    }

    /// The state after the last tick returned (and, after an error, after the messages
    /// before it).
    pub fn world(&self) -> &World {
        &self.state.world
    }

    /// The tick of the last message applied (0 before the first), as
    /// [`Events::tick`](super::Events::tick).
    pub fn tick(&self) -> i32 {
        self.state.tick.unwrap_or(0)
    }

    /// The messages applied so far.
    pub fn records(&self) -> u64 {
        self.state.records
    }

    /// Whether FINISH has been read.
    pub fn finished(&self) -> bool {
        self.state.finished
    }

    /// Walks to the end of the next tick and returns it; [`world`](Self::world) is then the
    /// state after that tick. `on_event` gets the event of every message of the tick as it
    /// is applied (the events [`Events`](super::Events) yields, but for its
    /// [`TickEnd`](super::EventKind::TickEnd)s; over a reader they borrow its buffer until
    /// the callback returns); a caller that ignores most kinds pays little for them, as the
    /// callback is inlined. `None` at the end (a FINISH in a file without ticks is handed
    /// on in that call); after an error (returned once, with the messages before it
    /// applied and handed on) the walk ends.
    ///
    /// The ticks are those [`Events`](super::Events) ends with a
    /// [`TickEnd`](super::EventKind::TickEnd): ticks with messages, the last one included.
    pub fn next_tick(
        &mut self,
        mut on_event: impl FnMut(Event<'_>),
    ) -> Option<Result<i32, SemanticError>> {
        let state = &mut self.state;
        if state.done {
            return None;
        }
        if let Some(p) = self.pending.take() {
            let applied = match &p.message {
                PendingMessage::Plain(message) => {
                    state.apply(p.offset, p.tick, message, &mut on_event)
                }
                &PendingMessage::SkippedInput(new, cid) => {
                    state.skip_input(p.offset, p.tick, cid, new)
                }
                PendingMessage::Raw(raw) => match Message::decode(raw) {
                    Ok(decoded) => state.apply(p.offset, p.tick, &decoded.message, &mut on_event),
                    // The same bytes decoded a moment ago; kept as an error, not a panic.
                    Err(_) => {
                        state.done = true;
                        Err(SemanticError::Read(ReadError::new(
                            p.offset,
                            ReadErrorKind::UnexpectedEnd {
                                expected: "a message",
                                available: raw.len() as u64,
                            },
                        )))
                    }
                },
            };
            if let Err(e) = applied {
                return Some(Err(e));
            }
        }
        loop {
            if state.followed != u128::MAX && state.tick.is_some() {
                let (followed, skip_inputs) = (state.followed, state.skip_inputs);
                let world = &mut state.world;
                state.records += self
                    .source
                    .skim(|rest, last_cid| skim_run(rest, last_cid, followed, skip_inputs, world));
            }
            let offset = self.source.position();
            // The commonest message first, applied straight to the world.
            if let Some((tick, cid, dx, dy)) = self.source.next_player_diff() {
                if let Some(ended) = state.ended_by(tick) {
                    let message = Message::PlayerDiff { cid, dx, dy };
                    self.pending = Some(Pending::plain(offset, tick, message));
                    return Some(Ok(ended));
                }
                state.tick = Some(tick);
                let applied = state.world.move_player(cid, dx, dy);
                if let Err(e) = state.note(offset, tick, applied, &mut on_event) {
                    return Some(Err(e));
                }
                continue;
            }
            if state.skip_inputs {
                if let Some((tick, new, cid)) = self.source.next_input_skipped() {
                    if let Some(ended) = state.ended_by(tick) {
                        self.pending = Some(Pending {
                            offset,
                            tick,
                            message: PendingMessage::SkippedInput(new, cid),
                        });
                        return Some(Ok(ended));
                    }
                    if let Err(e) = state.skip_input(offset, tick, cid, new) {
                        return Some(Err(e));
                    }
                    continue;
                }
            } else if let Some((tick, new, cid, ints)) = self.source.next_input() {
                if let Some(ended) = state.ended_by(tick) {
                    let message = if new {
                        Message::InputNew { cid, input: ints }
                    } else {
                        Message::InputDiff { cid, diff: ints }
                    };
                    self.pending = Some(Pending::plain(offset, tick, message));
                    return Some(Ok(ended));
                }
                state.tick = Some(tick);
                let applied = state.world.take_input(cid, new, ints);
                if let Err(e) = state.note(offset, tick, applied, &mut on_event) {
                    return Some(Err(e));
                }
                continue;
            }
            if let Some((tick, message)) = self.source.next_plain() {
                if let Some(ended) = state.ended_by(tick) {
                    self.pending = Some(Pending::plain(offset, tick, message));
                    return Some(Ok(ended));
                }
                if let Err(e) = state.apply(offset, tick, &message, &mut on_event) {
                    return Some(Err(e));
                }
                continue;
            }
            match self.source.next_message() {
                Some(Ok(at)) => {
                    if let Some(ended) = state.ended_by(at.tick) {
                        self.pending = Some(Pending {
                            offset,
                            tick: at.tick,
                            message: PendingMessage::Raw(at.raw.to_vec()),
                        });
                        return Some(Ok(ended));
                    }
                    if let Err(e) = state.apply(offset, at.tick, &at.message, &mut on_event) {
                        return Some(Err(e));
                    }
                }
                Some(Err(e)) => {
                    state.done = true;
                    return Some(Err(e.into()));
                }
                None => {
                    state.done = true;
                    return state.tick.map(Ok);
                }
            }
        }
    }
}

impl WalkState {
    #[inline(always)]
    fn apply<'m>(
        &mut self,
        offset: u64,
        tick: i32,
        message: &Message<'m>,
        on_event: &mut impl FnMut(Event<'m>),
    ) -> Result<(), SemanticError> {
        if matches!(message, Message::Finish) {
            self.finished = true;
        } else {
            self.tick = Some(tick);
        }
        // An input off the fast path (near the end of the input, or numbered in a
        // non-canonical form) is skipped the same way.
        match *message {
            Message::InputNew { cid, .. } if self.skip_inputs => {
                return self.skip_input(offset, tick, cid, true);
            }
            Message::InputDiff { cid, .. } if self.skip_inputs => {
                return self.skip_input(offset, tick, cid, false);
            }
            _ => {}
        }
        let applied = self.world.apply(message);
        self.note(offset, tick, applied, on_event)
    }

    /// An input stepped over: noted in the world, counted, no event.
    #[inline(always)]
    fn skip_input(
        &mut self,
        offset: u64,
        tick: i32,
        cid: i32,
        new: bool,
    ) -> Result<(), SemanticError> {
        self.tick = Some(tick);
        match self.world.skip_input(cid, new) {
            Ok(()) => {
                self.records += 1;
                Ok(())
            }
            Err(kind) => {
                self.done = true;
                Err(SemanticError::State { offset, tick, kind })
            }
        }
    }

    /// The tick a message of `tick` ends, if it belongs to another one than the messages
    /// before it (FINISH never does: it changes no tick).
    #[inline(always)]
    fn ended_by(&self, tick: i32) -> Option<i32> {
        self.tick.filter(|&ended| ended != tick)
    }

    /// Hands on the event of a message applied to the world, or ends the walk with its
    /// error.
    #[inline(always)]
    fn note<'m>(
        &mut self,
        offset: u64,
        tick: i32,
        applied: Result<EventKind<'m>, SemanticErrorKind>,
        on_event: &mut impl FnMut(Event<'m>),
    ) -> Result<(), SemanticError> {
        match applied {
            Ok(kind) => on_event(Event { offset, tick, kind }),
            Err(kind) => {
                self.done = true;
                return Err(SemanticError::State { offset, tick, kind });
            }
        }
        self.records += 1;
        Ok(())
    }
}

/// Steps over the run of messages at the start of `rest` that a walk following only the
/// clients of `followed` need not hand on (see [`TickWalk::following`]), all in the tick
/// whose last player record is `last_cid`'s: the bytes stepped over, the new last client
/// id and how many messages. A message it does not take (one that opens the next tick,
/// any message but player records and, with `skip_inputs`, inputs, or one that would be
/// an error) ends the run, for the walk's other paths.
///
/// Moves of clients not followed, most of a server's file, are found from a mask of
/// where the window's ints end, one bit per byte, made once for several moves: the next
/// move's start then follows from the mask alone, not from loading the bytes of the one
/// before (that load, in a chain from message to message, was most of the time).
#[inline(always)]
fn skim_run(
    rest: &[u8],
    mut last_cid: i32,
    followed: u128,
    skip_inputs: bool,
    world: &mut World,
) -> (usize, i32, u64) {
    let (mut pos, mut skimmed) = (0, 0);
    while let Some(window) = rest.get(pos..).and_then(|r| r.first_chunk::<INT_WINDOW>()) {
        // A run of moves from the mask, while they start in the window's first 32 bytes
        // (each ends within 9 bytes of its start, as no int in the window's first 40
        // bytes is longer than four).
        let mut moved = 0;
        if window[0] < 0x40
            && let Some(ends) = int_ends(window)
        {
            while moved < 32 {
                let cid = i32::from(window[moved]);
                if cid >= 0x40
                    || cid <= last_cid
                    || followed & 1 << cid != 0
                    || world.position(cid).is_none()
                {
                    break;
                }
                // Bit 0 is the move's first int's first byte; the second set bit ends it.
                let after = ends >> (moved + 1);
                let second = after & after.wrapping_sub(1);
                if second == 0 {
                    break;
                }
                moved += second.trailing_zeros() as usize + 2;
                last_cid = cid;
                skimmed += 1;
            }
        }
        if moved > 0 {
            pos += moved;
            continue;
        }
        let Some((len, cid)) = skim_one(window, last_cid, followed, skip_inputs, world) else {
            break;
        };
        if let Some(cid) = cid {
            last_cid = cid;
        }
        pos += len;
        skimmed += 1;
    }
    (pos, last_cid, skimmed)
}

/// One message of [`skim_run`] decoded from its window: its length and, for a player
/// record, its client id; `None` for a message the run does not take.
#[inline(always)]
fn skim_one(
    window: &[u8; INT_WINDOW],
    last_cid: i32,
    followed: u128,
    skip_inputs: bool,
    world: &mut World,
) -> Option<(usize, Option<i32>)> {
    let first = window[0];
    if first < 0x40 {
        // A PLAYER_DIFF in this tick of a client with a character: stepped over if the
        // client is not followed, applied if it is.
        let cid = i32::from(first);
        if cid <= last_cid {
            return None;
        }
        if followed & 1 << cid == 0 {
            world.position(cid)?;
            return Some((skip_player_diff(window)?, Some(cid)));
        }
        let (_, dx, dy, len) = decode_player_diff(window)?;
        world.move_player(cid, dx, dy).ok()?;
        return Some((len, Some(cid)));
    }
    // A character of a client not followed appearing or going (it still decides whether
    // the client's next moves are errors).
    if let Some((message, cid, len)) = decode_player_new_old(window) {
        if cid <= last_cid || cid >= MAX_CLIENTS || followed & 1 << cid != 0 {
            return None;
        }
        world.apply(&message).ok()?;
        return Some((len, Some(cid)));
    }
    if !skip_inputs {
        return None;
    }
    let (new, cid, len) = skip_input(window)?;
    world.skip_input(cid, new).ok()?;
    Some((len, None))
}
