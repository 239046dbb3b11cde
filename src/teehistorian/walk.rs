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

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind};
use super::format::MAX_CLIENTS;
use super::message::{
    INT_WINDOW, Message, decode_player_diff, decode_player_new_old, skip_input, skip_player_diff,
    skip_ten_from_two,
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
    /// What the runs of a following walk remember from one to the next.
    skim: Skim,
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
                skim: Skim::new(),
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
                let (world, skim) = (&mut state.world, &mut state.skim);
                state.records += self.source.skim(|rest, last_cid| {
                    skim_run(rest, last_cid, followed, skip_inputs, world, skim)
                });
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

/// What a walk that follows a few clients remembers from run to run (see [`skim_run`]):
/// the shape of a move and of an input it measured, and the clients whose
/// inputs it may step over unchecked. Only the bytes decide a shape, so a shape stays
/// right whatever the world does; `inputs_known` is kept right as its doc says.
#[derive(Debug, Clone)]
struct Skim {
    /// What of a move's first word is its shape: the top bits of its client id (one
    /// byte below 64) and the extend bits of its bytes.
    move_mask: u64,
    /// A move whose first word, masked with `move_mask`, is this has the shape
    /// remembered...
    move_bits: u64,
    /// ...and so its length.
    move_len: usize,
    /// An input whose first word, masked with [`INPUT_MASK`], is this (INPUT_DIFF or
    /// INPUT_NEW, a one-byte client id below 64, the extend bits of its bytes 2..8)...
    input_bits: u64,
    /// ...and whose second word, masked with this (the extend bits of its bytes 8 to
    /// its end)...
    input_mask_high: u64,
    /// ...is this, has the shape remembered...
    input_bits_high: u64,
    /// ...and so its length.
    input_len: usize,
    /// The clients below 64 with an input stepped over in a run, one bit per client id.
    /// [`World::skip_input`] of theirs can no longer fail: it fails only for an
    /// INPUT_DIFF of a client with neither an input nor one stepped over, and the world
    /// forgets neither (a DROP, a JOIN or a character's going leaves both), so the bits
    /// need no clearing. The world is the walk's own from its start, never replaced.
    inputs_known: u64,
}

/// The extend bit of each byte of a word.
const EXTEND: u64 = 0x8080_8080_8080_8080;

/// What of an input's first word [`Skim`] checks: its id (INPUT_DIFF or INPUT_NEW, which
/// differ in bit 0), that its client id is one byte below 64, and the extend bits of the
/// ints after.
const INPUT_MASK: u64 = EXTEND & !0xFFFF | 0xC0FE;

impl Skim {
    /// Nothing measured yet, nobody's inputs known.
    fn new() -> Self {
        // Bits outside their masks: nothing matches before a message is measured.
        Skim {
            move_mask: 0,
            move_bits: 1,
            move_len: 0,
            input_bits: 1,
            input_mask_high: 0,
            input_bits_high: 0,
            input_len: 0,
            inputs_known: 0,
        }
    }

    /// Notes the shape of a move of `len` bytes whose first word is `word`, if it fits
    /// the word.
    #[inline(always)]
    fn measured_move(&mut self, word: u64, len: usize) {
        // A move is at least three bytes, so the shift is 0..=40; a longer one than the
        // word keeps the last shape (and is measured each time).
        if len <= 8 {
            self.move_mask = 0xC0 | EXTEND & (u64::MAX >> (64 - 8 * len));
            self.move_bits = word & self.move_mask;
            self.move_len = len;
        }
    }

    /// Notes the shape of an input of `len` bytes whose first words are `low` and
    /// `high`, if it fits the two.
    #[inline(always)]
    fn measured_input(&mut self, low: u64, high: u64, len: usize) {
        // An input is at least twelve bytes, so the shift is 0..=32; a longer one than
        // the two words keeps the last shape.
        if (9..=16).contains(&len) {
            self.input_bits = low & INPUT_MASK;
            self.input_mask_high = EXTEND & (u64::MAX >> (128 - 8 * len));
            self.input_bits_high = high & self.input_mask_high;
            self.input_len = len;
        }
    }
}

/// The `INT_WINDOW` bytes from `pos` in `rest`, if there are that many.
#[inline(always)]
fn window_at(rest: &[u8], pos: usize) -> Option<&[u8; INT_WINDOW]> {
    rest.get(pos..)?.first_chunk::<INT_WINDOW>()
}

/// The `i`th little-endian word of `window`.
#[inline(always)]
fn word(window: &[u8; INT_WINDOW], i: usize) -> u64 {
    let bytes = window.get(8 * i..).and_then(<[u8]>::first_chunk::<8>);
    u64::from_le_bytes(bytes.copied().unwrap_or_default())
}

/// Steps over the run of messages at the start of `rest` that a walk following only the
/// clients of `followed` need not hand on (see [`TickWalk::following`]), all in the tick
/// whose last player record is `last_cid`'s: the bytes stepped over, the new last client
/// id and how many messages. A message it does not take (one that opens the next tick,
/// any message but player records and, with `skip_inputs`, inputs, or one that would be
/// an error) ends the run, for the walk's other paths.
///
/// Moves of clients not followed and inputs, most of a server's file, each take a loop
/// of their own. The length of a message is what ties one message to the next (where
/// the next one starts), and measuring it from its bytes (its ints' extend bits) was
/// most of the time: instead a message whose extend bits are those of one measured
/// before has its length, which the processor knows before it has the bytes (it
/// predicts the comparison), so it reads on; a message of another shape is measured,
/// and its shape remembered if the message before was measured too.
/// The shape decides the length as the bytes do: an int ends at its first byte without
/// the extend bit (or at its fifth), so ints whose bytes have the same extend bits have
/// the same lengths, whatever their values.
#[inline(always)]
fn skim_run(
    rest: &[u8],
    mut last_cid: i32,
    followed: u128,
    skip_inputs: bool,
    world: &mut World,
    skim: &mut Skim,
) -> (usize, i32, u64) {
    let (mut pos, mut skimmed) = (0, 0);
    // The clients below 64 not followed.
    let skimmed_clients = !(followed as u64);
    // Where the last move and the last input measured end: a message of another shape
    // that starts there (the second in a row) becomes the shape remembered, not one
    // between messages of the remembered shape, which would cost those a second
    // measurement each (a server's moves and inputs have one common shape, and their
    // ints' lengths vary around it).
    let (mut move_missed, mut input_missed) = (usize::MAX, usize::MAX);
    loop {
        // Moves of clients not followed, with a character.
        while let Some(window) = window_at(rest, pos) {
            let low = word(window, 0);
            let len = if low & skim.move_mask == skim.move_bits {
                skim.move_len
            } else {
                if window[0] >= 0x40 {
                    break;
                }
                let Some(len) = skip_player_diff(window) else {
                    break;
                };
                if pos == move_missed || skim.move_len == 0 {
                    skim.measured_move(low, len);
                }
                move_missed = pos + len;
                len
            };
            // Below 64, as the shape or the check above says: the shift stays inside
            // the word.
            let cid = window[0];
            debug_assert!(cid < 64);
            if i32::from(cid) <= last_cid
                || skimmed_clients >> cid & 1 == 0
                || (world.positions().get(usize::from(cid))).is_none_or(Option::is_none)
            {
                break;
            }
            last_cid = i32::from(cid);
            pos += len;
            skimmed += 1;
        }
        // Inputs.
        while skip_inputs && let Some(window) = window_at(rest, pos) {
            let (low, high) = (word(window, 0), word(window, 1));
            let len = if (low & INPUT_MASK ^ skim.input_bits)
                | (high & skim.input_mask_high ^ skim.input_bits_high)
                == 0
            {
                skim.input_len
            } else {
                if low & 0xC0FE != 0x44 {
                    break;
                }
                let Some(len) = skip_ten_from_two(window) else {
                    break;
                };
                if pos == input_missed || skim.input_len == 0 {
                    skim.measured_input(low, high, len);
                }
                input_missed = pos + len;
                len
            };
            // Below 64 (one byte without its top bits, as the shape or the check above
            // says), so the shifts stay inside the word.
            let cid = window[1];
            debug_assert!(cid < 64);
            if skim.inputs_known >> cid & 1 == 0 {
                if world.skip_input(i32::from(cid), low & 1 != 0).is_err() {
                    break;
                }
                skim.inputs_known |= 1 << cid;
            } else {
                // What makes the bit right: the world would take the input anyway (and
                // it changes nothing, the client's bit being set there already).
                debug_assert!(world.skip_input(i32::from(cid), low & 1 != 0).is_ok());
            }
            pos += len;
            skimmed += 1;
        }
        // Any other message the run takes, one at a time.
        let Some(window) = window_at(rest, pos) else {
            break;
        };
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
